"""Tasks: create (A1), the completed list (A2), the pending list and one task (B2, B3), import (B8),
and the links `--public-url` decides.

Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.
Every test talks to a real `queuedesk serve` process (the session `server` fixture, or its own process
for `--public-url`) and works in a fresh queue, so tests never see each other's tasks.
"""

import time
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.support.contract import (
    ADA,
    BLOCK_IDS,
    EMPTY_ASSIGNMENT,
    PAGE_KEYS,
    SLACK,
    TASK_KEYS,
    WES,
    WYN,
    assert_task,
    body_of,
    claim,
    complete_next,
    completed_ids,
    create,
    full,
    moment,
    now,
    split_link,
)

# --- A1 create a task ---------------------------------------------------------------------------


def test_create_task_answers_new_api_task_with_every_block(admin, queue, qpath):
    before = now()
    response = admin.post(f"{qpath}/tasks/create", json={"data": {"category": "blue"}})
    after = now()
    task = body_of(response)
    assert list(task) == TASK_KEYS
    assert isinstance(task["id"], int) and task["id"] > 0
    assert task["status"] == "new"
    assert before - SLACK <= moment(task["created_at"]) <= after + SLACK
    assert task["completed_at"] is None
    assert task["completed_by"] is None
    assert task["queue"] == queue["name"]
    assert task["queue_id"] == queue["id"]
    assert task["data"] == {"paragraph": None, "category": "blue", "photo": None}
    assert list(task["data"]) == BLOCK_IDS
    assert task["source"] == "api"

    second = create(admin, qpath, paragraph="Fire", category="red", photo="https://example.com/fire.png")
    assert second["id"] > task["id"]
    assert second["data"] == {"paragraph": "Fire", "category": "red", "photo": "https://example.com/fire.png"}
    assert moment(second["created_at"]) >= moment(task["created_at"])


def test_create_task_does_not_enforce_required_blocks(admin, queue, qpath):
    task = create(admin, qpath, paragraph="no category yet", category=None)
    assert task["status"] == "new"
    assert task["data"] == full(paragraph="no category yet")


# --- A2 list completed tasks --------------------------------------------------------------------


def test_completed_list_envelope_count_and_ordering(clients, admin, worker, queue, qpath):
    first = create(admin, qpath, paragraph="one")
    second = create(admin, qpath, paragraph="two")
    third = create(admin, qpath, paragraph="three")
    create(admin, qpath, paragraph="still pending")
    # Three holders, completed in the order third, first, second: completed_at order is not id order.
    assert claim(worker, qpath)["id"] == first["id"]
    assert claim(clients["worker2"], qpath)["id"] == second["id"]
    assert claim(admin, qpath)["id"] == third["id"]
    done = {}
    for client, task in ((admin, third), (worker, first), (clients["worker2"], second)):
        done[task["id"]] = body_of(
            client.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "green"}})
        )
    completed_by = {first["id"]: WES[0], second["id"]: WYN[0], third["id"]: ADA[0]}

    page = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert list(page) == PAGE_KEYS
    assert page["count"] == 3
    assert page["next"] is None
    assert page["previous"] is None
    assert [t["id"] for t in page["tasks"]] == [second["id"], first["id"], third["id"]]
    stamps = [moment(t["completed_at"]) for t in page["tasks"]]
    assert stamps == sorted(stamps, reverse=True)
    for task in page["tasks"]:
        assert_task(task, queue)
        assert task == done[task["id"]]
        assert task["status"] == "completed"
        assert task["completed_by"] == completed_by[task["id"]]
        assert task["data"]["category"] == "green"

    small = body_of(admin.get(f"{qpath}/tasks/completed", params={"limit": 2}))
    assert small["count"] == 3, "count is the total, not the page size"
    assert len(small["tasks"]) == 2


def test_completed_list_paging_links_keep_other_parameters(server, admin, worker, queue, qpath, org_id):
    for n in range(5):
        create(admin, qpath, paragraph=f"task {n}")
    for _ in range(4):
        complete_next(worker, qpath, category="red")
    complete_next(admin, qpath, category="blue")
    everything = completed_ids(admin, qpath)
    assert len(everything) == 5
    wes_ids = completed_ids(admin, qpath, completed_by=WES[0])
    assert len(wes_ids) == 4

    path = f"{qpath}/tasks/completed"
    page = body_of(admin.get(path, params={"completed_by": WES[0], "limit": 2, "offset": 1}))
    assert list(page) == PAGE_KEYS
    assert page["count"] == 4
    assert [t["id"] for t in page["tasks"]] == wes_ids[1:3]

    scheme, netloc, link_path, query = split_link(page["next"])
    assert f"{scheme}://{netloc}" == server.url
    assert link_path == path
    assert query == {"completed_by": WES[0], "limit": "2", "offset": "3"}

    scheme, netloc, link_path, query = split_link(page["previous"])
    assert f"{scheme}://{netloc}" == server.url
    assert link_path == path
    assert query == {"completed_by": WES[0], "limit": "2", "offset": "0"}

    following = body_of(admin.get(page["next"]))
    assert following["count"] == 4
    assert [t["id"] for t in following["tasks"]] == wes_ids[3:]
    assert following["next"] is None
    assert split_link(following["previous"])[3] == {"completed_by": WES[0], "limit": "2", "offset": "1"}

    preceding = body_of(admin.get(page["previous"]))
    assert [t["id"] for t in preceding["tasks"]] == wes_ids[0:2]
    assert preceding["previous"] is None

    # A start_date filter is kept too.
    dated = body_of(admin.get(path, params={"start_date": "2000-01-01", "limit": 1}))
    assert dated["count"] == 5
    assert split_link(dated["next"])[3] == {"start_date": "2000-01-01", "limit": "1", "offset": "1"}


def test_completed_list_next_null_at_end_previous_null_at_start(admin, worker, queue, qpath):
    for n in range(5):
        create(admin, qpath, paragraph=f"task {n}")
        complete_next(worker, qpath, category="red")
    path = f"{qpath}/tasks/completed"
    ids = completed_ids(admin, qpath)

    start = body_of(admin.get(path, params={"limit": 2}))
    assert start["previous"] is None
    assert start["next"] is not None
    assert split_link(start["next"])[3] == {"limit": "2", "offset": "2"}

    middle = body_of(admin.get(path, params={"limit": 2, "offset": 2}))
    assert [t["id"] for t in middle["tasks"]] == ids[2:4]
    assert split_link(middle["next"])[3] == {"limit": "2", "offset": "4"}
    assert split_link(middle["previous"])[3] == {"limit": "2", "offset": "0"}

    boundary = body_of(admin.get(path, params={"limit": 2, "offset": 3}))  # offset + limit == count
    assert boundary["next"] is None
    assert [t["id"] for t in boundary["tasks"]] == ids[3:5]
    assert split_link(boundary["previous"])[3] == {"limit": "2", "offset": "1"}

    last = body_of(admin.get(path, params={"limit": 2, "offset": 4}))
    assert last["next"] is None
    assert [t["id"] for t in last["tasks"]] == ids[4:]
    assert last["count"] == 5

    beyond = body_of(admin.get(path, params={"limit": 2, "offset": 9}))
    assert beyond["tasks"] == []
    assert beyond["count"] == 5
    assert beyond["next"] is None
    assert beyond["previous"] is not None

    clamped = body_of(admin.get(path, params={"limit": 2, "offset": 1}))
    assert split_link(clamped["previous"])[3] == {"limit": "2", "offset": "0"}


def test_completed_list_filters_completed_by_me_and_email(clients, admin, worker, queue, qpath):
    worker2 = clients["worker2"]
    for n in range(5):
        create(admin, qpath, paragraph=f"task {n}")
    wes_done = [complete_next(worker, qpath, category="red")["id"] for _ in range(2)]
    wyn_done = [complete_next(worker2, qpath, category="blue")["id"] for _ in range(2)]
    ada_done = [complete_next(admin, qpath, category="green")["id"]]

    mine = body_of(worker.get(f"{qpath}/tasks/completed", params={"completed_by": "me"}))
    assert mine["count"] == 2
    assert [t["id"] for t in mine["tasks"]] == wes_done[::-1]
    assert {t["completed_by"] for t in mine["tasks"]} == {WES[0]}

    theirs = body_of(worker2.get(f"{qpath}/tasks/completed", params={"completed_by": "me"}))
    assert [t["id"] for t in theirs["tasks"]] == wyn_done[::-1]

    admin_me = body_of(admin.get(f"{qpath}/tasks/completed", params={"completed_by": "me"}))
    assert [t["id"] for t in admin_me["tasks"]] == ada_done

    by_email = body_of(clients["supervisor"].get(f"{qpath}/tasks/completed", params={"completed_by": WYN[0]}))
    assert by_email["count"] == 2
    assert [t["id"] for t in by_email["tasks"]] == wyn_done[::-1]

    nobody = body_of(admin.get(f"{qpath}/tasks/completed", params={"completed_by": "nobody@acme.test"}))
    assert nobody == {"next": None, "previous": None, "count": 0, "tasks": []}

    unfiltered = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert unfiltered["count"] == 5


def test_completed_list_date_filters_are_inclusive(admin, worker, queue, qpath):
    tasks = []
    for n in range(3):
        create(admin, qpath, paragraph=f"task {n}")
        tasks.append(complete_next(worker, qpath, category="red"))
        time.sleep(0.002)
    first, second, third = (t["completed_at"] for t in tasks)
    ids = [t["id"] for t in tasks]
    path = f"{qpath}/tasks/completed"

    def listed(**params: Any) -> list[int]:
        page = body_of(admin.get(path, params=params))
        assert page["count"] == len(page["tasks"])
        return [t["id"] for t in page["tasks"]]

    assert listed(start_date=second) == [ids[2], ids[1]]
    assert listed(end_date=second) == [ids[1], ids[0]]
    assert listed(start_date=second, end_date=second) == [ids[1]]
    assert listed(start_date=first, end_date=third) == ids[::-1]
    # `+00:00` is read as well as `Z`.
    assert listed(start_date=third.replace("Z", "+00:00")) == [ids[2]]
    after_all = (moment(third) + timedelta(microseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert listed(start_date=after_all) == []
    before_all = (moment(first) - timedelta(microseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert listed(end_date=before_all) == []
    # A bare date as end_date covers the whole of that day.
    today = third[:10]
    assert listed(start_date=today, end_date=today) == ids[::-1]


def test_completed_list_default_limit_is_100(admin, queue, qpath):
    imported = body_of(
        admin.post(
            f"{qpath}/tasks/import", json={"source": "manual", "tasks": [{"data": {"paragraph": "x"}}] * 101}
        )
    )
    assert imported["created"] == 101
    for _ in range(101):
        complete_next(admin, qpath, category="red")
    page = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert page["count"] == 101
    assert len(page["tasks"]) == 100
    assert page["previous"] is None
    assert split_link(page["next"])[3] == {"limit": "100", "offset": "100"}
    rest = body_of(admin.get(page["next"]))
    assert len(rest["tasks"]) == 1
    assert rest["next"] is None
    assert {t["id"] for t in page["tasks"]} | {t["id"] for t in rest["tasks"]} == set(imported["ids"])


# --- B2 pending list, B3 one task ---------------------------------------------------------------


def test_pending_list_oldest_first_with_assignment_and_status_filter(clients, admin, worker, queue, qpath):
    worker2 = clients["worker2"]
    done = create(admin, qpath, paragraph="done")
    complete_next(worker, qpath, category="red")
    held = create(admin, qpath, paragraph="held")
    reopened = create(admin, qpath, paragraph="reopened")
    fresh = create(admin, qpath, paragraph="fresh")
    assert claim(worker, qpath)["id"] == held["id"]
    assert claim(worker2, qpath)["id"] == reopened["id"]
    body_of(worker2.post(f"{qpath}/tasks/{reopened['id']}/release"))

    page = body_of(clients["supervisor"].get(f"{qpath}/tasks"))
    assert list(page) == PAGE_KEYS
    assert page["count"] == 3
    assert page["next"] is None
    assert page["previous"] is None
    assert [t["id"] for t in page["tasks"]] == [held["id"], reopened["id"], fresh["id"]]
    assert done["id"] not in [t["id"] for t in page["tasks"]]
    created = [moment(t["created_at"]) for t in page["tasks"]]
    assert created == sorted(created)
    for task in page["tasks"]:
        assert_task(task, queue, assignment=True)
        assert task["completed_at"] is None
        assert task["completed_by"] is None
        assert task["source"] == "api"

    first, second, third = page["tasks"]
    assert first["status"] == "in_progress"
    assert first["data"] == full(paragraph="held")
    assignment = first["assignment"]
    assert assignment["assigned_to"] == WES[0]
    assert assignment["assigned_to_name"] == WES[1]
    assert moment(assignment["lease_expires_at"]) > moment(assignment["assigned_at"]) > now() - SLACK
    assert second["status"] == "open"
    assert second["assignment"] == EMPTY_ASSIGNMENT
    assert third["status"] == "new"
    assert third["assignment"] == EMPTY_ASSIGNMENT

    def ids(**params: Any) -> tuple[int, list[int]]:
        filtered = body_of(admin.get(f"{qpath}/tasks", params=params))
        return filtered["count"], [t["id"] for t in filtered["tasks"]]

    assert ids(status="new") == (1, [fresh["id"]])
    assert ids(status="open") == (1, [reopened["id"]])
    assert ids(status="in_progress") == (1, [held["id"]])
    assert ids(status="new,in_progress") == (2, [held["id"], fresh["id"]])
    assert ids(status="open,new,in_progress") == (3, [held["id"], reopened["id"], fresh["id"]])

    paged = body_of(worker.get(f"{qpath}/tasks", params={"status": "new,open", "limit": 1}))
    assert paged["count"] == 2
    assert [t["id"] for t in paged["tasks"]] == [reopened["id"]]
    assert paged["previous"] is None
    assert split_link(paged["next"])[3] == {"status": "new,open", "limit": "1", "offset": "1"}
    following = body_of(worker.get(paged["next"]))
    assert [t["id"] for t in following["tasks"]] == [fresh["id"]]
    assert following["next"] is None
    assert split_link(following["previous"])[3] == {"status": "new,open", "limit": "1", "offset": "0"}


def test_get_task_with_assignment_in_every_status(clients, admin, worker, queue, qpath):
    made = create(admin, qpath, paragraph="look at me", photo="https://example.com/a.png")
    fresh = body_of(clients["supervisor"].get(f"{qpath}/tasks/{made['id']}"))
    assert_task(fresh, queue, assignment=True)
    assert {k: fresh[k] for k in TASK_KEYS} == made
    assert fresh["assignment"] == EMPTY_ASSIGNMENT

    claimed = claim(worker, qpath)
    held = body_of(worker.get(f"{qpath}/tasks/{made['id']}"))
    assert held["status"] == "in_progress"
    assert held["assignment"] == claimed["assignment"]
    assert held["assignment"]["assigned_to"] == WES[0]
    assert held["assignment"]["assigned_to_name"] == WES[1]

    body_of(worker.post(f"{qpath}/tasks/{made['id']}/release"))
    reopened = body_of(admin.get(f"{qpath}/tasks/{made['id']}"))
    assert reopened["status"] == "open"
    assert reopened["assignment"] == EMPTY_ASSIGNMENT

    completed = complete_next(worker, qpath, category="green")
    final = body_of(worker.get(f"{qpath}/tasks/{made['id']}"))  # another worker: 403 (test_roles_table)
    assert_task(final, queue, assignment=True)
    assert final["status"] == "completed"
    assert final["completed_by"] == WES[0]
    assert final["completed_at"] == completed["completed_at"]
    assert final["data"] == {
        "paragraph": "look at me",
        "category": "green",
        "photo": "https://example.com/a.png",
    }
    assert {k: final[k] for k in TASK_KEYS} == {k: completed[k] for k in TASK_KEYS}


# --- B8 import ----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["reports-2026.csv", "manual", "connector"])
def test_import_creates_every_task_with_its_source(admin, queue, qpath, source):
    items = [
        {"data": {"paragraph": "a"}},
        {"data": {"category": "green", "photo": "https://example.com/b.png"}},
        {"data": {"paragraph": "c", "category": None}},
    ]
    before = now()
    result = body_of(admin.post(f"{qpath}/tasks/import", json={"source": source, "tasks": items}))
    after = now()
    assert list(result) == ["created", "ids"]
    assert result["created"] == 3
    ids = result["ids"]
    assert len(ids) == 3
    assert all(isinstance(i, int) for i in ids)
    assert ids == sorted(ids)
    assert len(set(ids)) == 3

    expected = [
        full(paragraph="a"),
        full(category="green", photo="https://example.com/b.png"),
        full(paragraph="c"),
    ]
    for task_id, data in zip(ids, expected, strict=True):
        task = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
        assert_task(task, queue, assignment=True)
        assert task["status"] == "new"
        assert task["source"] == source
        assert task["data"] == data
        assert task["completed_at"] is None
        assert task["completed_by"] is None
        assert before - SLACK <= moment(task["created_at"]) <= after + SLACK
        assert task["assignment"] == EMPTY_ASSIGNMENT

    pending = body_of(admin.get(f"{qpath}/tasks"))
    assert pending["count"] == 3
    assert [t["id"] for t in pending["tasks"]] == ids
    assert body_of(admin.get(qpath))["n_tasks"] == 3


# --- Part C: --public-url decides the links -----------------------------------------------------


def test_public_url_decides_scheme_and_host_of_links(tmp_path, backend):
    process = ServerProcess(
        tmp_path / "public.db",
        ["--public-url", "https://queues.example.com"],
        seed=ROLES_SEED,
        backend=backend,
    ).start()
    try:
        with httpx.Client(
            base_url=process.url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=30
        ) as client:
            org = body_of(client.get("/me"))["organization_id"]
            seeded = next(
                q for q in body_of(client.get(f"/orgs/{org}/queues")) if q["name"] == "Categorization"
            )
            path = f"/orgs/{org}/queues/{seeded['id']}"
            body_of(
                client.post(
                    f"{path}/tasks/import",
                    json={"source": "manual", "tasks": [{"data": {"paragraph": f"t{n}"}} for n in range(3)]},
                )
            )
            for _ in range(3):
                complete_next(client, path, category="red")

            page = body_of(client.get(f"{path}/tasks/completed", params={"limit": 1, "offset": 1}))
            assert page["count"] == 3
            for link, offset in ((page["next"], "2"), (page["previous"], "0")):
                scheme, netloc, link_path, query = split_link(link)
                assert scheme == "https"
                assert netloc == "queues.example.com"
                assert link_path == f"{path}/tasks/completed"
                assert query == {"limit": "1", "offset": offset}

            filtered = body_of(
                client.get(f"{path}/tasks/completed", params={"completed_by": "me", "limit": 1})
            )
            assert filtered["previous"] is None
            assert filtered["next"].startswith(f"https://queues.example.com{path}/tasks/completed?")
            assert split_link(filtered["next"])[3] == {"completed_by": "me", "limit": "1", "offset": "1"}

            # The seeded task and two imported ones were completed; one imported task is pending.
            body_of(
                client.post(
                    f"{path}/tasks/import",
                    json={"source": "manual", "tasks": [{"data": {"paragraph": "more"}}]},
                )
            )
            pending = body_of(client.get(f"{path}/tasks", params={"limit": 1, "offset": 1}))
            assert pending["count"] == 2
            for link, offset in ((pending["next"], None), (pending["previous"], "0")):
                if offset is None:
                    assert link is None
                    continue
                scheme, netloc, link_path, query = split_link(link)
                assert (scheme, netloc, link_path) == ("https", "queues.example.com", f"{path}/tasks")
                assert query == {"limit": "1", "offset": offset}
            legacy = body_of(
                client.get(f"/orgs/{org}/workflows/{seeded['id']}/tasks/completed", params={"limit": 2})
            )
            assert urlsplit(legacy["next"])[:2] == ("https", "queues.example.com")
    finally:
        process.stop()
    assert process.process is not None and process.process.poll() is not None
