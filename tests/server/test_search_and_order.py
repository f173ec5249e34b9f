"""`q` (text in task values, any case) on A2 and B2, and `order` on A2, B2 and B10: any list read
from either end."""

import time

import httpx

from tests.support.contract import body_of, claim, create, split_link


def _ids(response: httpx.Response) -> list[int]:
    return [task["id"] for task in body_of(response)["tasks"]]


def test_pending_tasks_are_searched_in_their_values_in_any_case(admin, qpath) -> None:
    fire = create(admin, qpath, paragraph="The Printer is on FIRE")["id"]
    school = create(admin, qpath, paragraph="Lettre de l'ÉCOLE", category="blue")["id"]
    create(admin, qpath, paragraph="nothing to see")
    assert _ids(admin.get(f"{qpath}/tasks", params={"q": "on fire"})) == [fire]
    assert _ids(admin.get(f"{qpath}/tasks", params={"q": "école"})) == [school]
    assert _ids(admin.get(f"{qpath}/tasks", params={"q": "BLU"})) == [school]  # an option's id is a value
    assert _ids(admin.get(f"{qpath}/tasks", params={"q": "paragraph"})) == []  # block ids are not
    assert _ids(admin.get(f"{qpath}/tasks", params={"q": "%"})) == []  # no wildcards: the text itself
    page = body_of(admin.get(f"{qpath}/tasks", params={"q": "e", "limit": 1}))
    assert page["count"] == 3 and split_link(page["next"])[3] == {"q": "e", "limit": "1", "offset": "1"}


def test_completed_tasks_are_searched_with_the_other_filters(admin, worker, qpath) -> None:
    for text in ("Invoice 17 from ACME", "invoice 18", "receipt"):
        create(admin, qpath, paragraph=text)
    done = []
    for _ in range(3):
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
        done.append(task["id"])
    history = f"{qpath}/tasks/completed"
    assert _ids(admin.get(history, params={"q": "INVOICE"})) == [done[1], done[0]]
    assert _ids(admin.get(history, params={"q": "acme", "completed_by": "wes@acme.test"})) == [done[0]]
    assert _ids(worker.get(history, params={"q": "receipt", "completed_by": "me"})) == [done[2]]
    assert body_of(admin.get(history, params={"q": "nowhere"}))["count"] == 0


def test_each_list_pages_from_either_end(admin, worker, qpath) -> None:
    made = [create(admin, qpath, paragraph=f"task {n}")["id"] for n in range(4)]
    assert _ids(admin.get(f"{qpath}/tasks")) == made
    assert _ids(admin.get(f"{qpath}/tasks", params={"order": "desc", "limit": 3})) == made[:0:-1]
    assert _ids(admin.get(f"{qpath}/tasks", params={"order": "asc"})) == made
    done = []
    for _ in range(3):
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
        done.append(task["id"])
    history = f"{qpath}/tasks/completed"
    assert _ids(admin.get(history)) == done[::-1]
    oldest = body_of(admin.get(history, params={"order": "asc", "limit": 2}))
    assert [t["id"] for t in oldest["tasks"]] == done[:2]
    assert split_link(oldest["next"])[3] == {"order": "asc", "limit": "2", "offset": "2"}


def test_the_delivery_log_pages_from_either_end(admin, worker, qpath) -> None:
    assert admin.put(f"{qpath}/webhook", json={"target": "http://127.0.0.1:9/hook"}).status_code == 200
    for n in range(3):
        create(admin, qpath, paragraph=f"hooked {n}")
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
    newest = [d["id"] for d in body_of(admin.get(f"{qpath}/webhook/deliveries"))["deliveries"]]
    oldest = [
        d["id"]
        for d in body_of(admin.get(f"{qpath}/webhook/deliveries", params={"order": "asc"}))["deliveries"]
    ]
    assert len(newest) == 3 and oldest == newest[::-1] and newest == sorted(newest, reverse=True)


def test_a_wrong_order_or_search_is_a_400_naming_it(admin, qpath) -> None:
    for path in ("tasks", "tasks/completed", "webhook/deliveries"):
        refused = admin.get(f"{qpath}/{path}", params={"order": "newest"})
        assert refused.status_code == 400, refused.text
        assert refused.json()["errors"][0]["field"] == "order"
    for path in ("tasks", "tasks/completed"):
        refused = admin.get(f"{qpath}/{path}", params={"q": "x" * 201})
        assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "q"


def test_pending_tasks_sort_by_holder_or_status_and_page_stably(admin, worker, clients, qpath) -> None:
    """Holders by name (Ada, Wes, Wyn), tasks nobody holds last whichever way; ties by id."""
    made = [create(admin, qpath, paragraph=f"task {n}")["id"] for n in range(6)]
    wyn, wes, ada = clients["worker2"], worker, admin
    held = {claim(holder, qpath)["id"]: name for holder, name in ((wyn, "Wyn"), (wes, "Wes"), (ada, "Ada"))}
    held[claim(wes, qpath)["id"]] = "Wes"
    by_name = sorted(held, key=lambda task_id: (held[task_id], task_id))
    free = [task_id for task_id in made if task_id not in held]
    assert _ids(admin.get(f"{qpath}/tasks", params={"sort": "holder"})) == by_name + free
    reverse = _ids(admin.get(f"{qpath}/tasks", params={"sort": "holder", "order": "desc"}))
    assert reverse == sorted(held, key=lambda t: (held[t], t), reverse=True) + free[::-1]
    pages = [
        _ids(admin.get(f"{qpath}/tasks", params={"sort": "holder", "limit": 4, "offset": offset}))
        for offset in (0, 4)
    ]
    assert pages[0] + pages[1] == by_name + free
    by_status = _ids(admin.get(f"{qpath}/tasks", params={"sort": "status"}))
    assert by_status == sorted(held) + free  # in_progress before new


def test_completed_tasks_sort_by_who_completed_them_or_by_id(admin, worker, clients, qpath) -> None:
    for n in range(4):
        create(admin, qpath, paragraph=f"task {n}")
    by: dict[int, str] = {}
    for client, email in ((clients["worker2"], "wyn@acme.test"), (worker, "wes@acme.test")) * 2:
        task = claim(client, qpath)
        body_of(client.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
        by[task["id"]] = email
    history = f"{qpath}/tasks/completed"
    # Newest completion first within each person (desc), people from z to a.
    newest = sorted(by, key=lambda t: (by[t], t), reverse=True)
    assert _ids(admin.get(history, params={"sort": "completed_by"})) == newest
    assert _ids(admin.get(history, params={"sort": "completed_by", "order": "asc"})) == newest[::-1]
    assert _ids(admin.get(history, params={"sort": "id", "order": "asc"})) == sorted(by)
    page = body_of(admin.get(history, params={"sort": "completed_by", "limit": 1}))
    assert split_link(page["next"])[3] == {"sort": "completed_by", "limit": "1", "offset": "1"}


def test_a_wrong_sort_is_a_400_naming_it_and_what_it_takes(admin, qpath) -> None:
    for path, takes in (
        ("tasks", "id, status, holder"),
        ("tasks/completed", "completed_at, completed_by, id"),
    ):
        refused = admin.get(f"{qpath}/{path}", params={"sort": "data"})
        assert refused.status_code == 400, refused.text
        error = refused.json()["errors"][0]
        assert error["field"] == "sort" and takes in error["message"], error


def test_the_delivery_log_sorts_by_status_tries_or_task(admin, worker, qpath, receiver) -> None:
    def complete_one() -> int:
        create(admin, qpath, paragraph="hooked")
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
        return task["id"]

    assert admin.put(f"{qpath}/webhook", json={"target": "http://127.0.0.1:9/hook"}).status_code == 200
    refused = complete_one()  # the first delivery: to a port nothing listens on, retried
    assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
    delivered = [complete_one(), complete_one()]
    receiver.wait_for(2)

    def log(**params: str) -> list[dict]:
        return body_of(admin.get(f"{qpath}/webhook/deliveries", params=params))["deliveries"]

    deadline = 50
    while any(d["status"] == "pending" and d["task_id"] in delivered for d in log()) and deadline:
        time.sleep(0.1)
        deadline -= 1
    by_status = log(sort="status", order="asc")
    assert [d["task_id"] for d in by_status] == [*delivered, refused], by_status
    assert by_status[0]["status"] == "delivered" and by_status[2]["status"] != "delivered"
    assert [d["task_id"] for d in log(sort="task_id", order="asc")] == [refused, *delivered]
    tries = log(sort="attempts")
    assert [d["attempts"] for d in tries] == sorted((d["attempts"] for d in tries), reverse=True)
    wrong = admin.get(f"{qpath}/webhook/deliveries", params={"sort": "target"})
    assert wrong.status_code == 400 and wrong.json()["errors"][0]["field"] == "sort"
