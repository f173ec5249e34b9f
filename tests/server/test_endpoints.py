"""Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.

Every test talks to a real `queuedesk serve` process (the session `server` fixture, or its own
process for `--public-url`) and works in a fresh queue, so tests never see each other's tasks.
"""

import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

import queuedesk
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
TASK_KEYS = [
    "id",
    "status",
    "created_at",
    "completed_at",
    "completed_by",
    "queue",
    "queue_id",
    "data",
    "source",
]
ASSIGNMENT_KEYS = ["assigned_to", "assigned_to_name", "assigned_at", "lease_expires_at"]
QUEUE_KEYS = ["id", "name", "created_at", "n_tasks", "active_users"]
QUEUE_DETAIL_KEYS = [*QUEUE_KEYS, "description", "data"]
PAGE_KEYS = ["next", "previous", "count", "tasks"]
BLOCK_IDS = ["paragraph", "category", "photo"]
EMPTY_ASSIGNMENT = dict.fromkeys(ASSIGNMENT_KEYS)
DEFAULT_LEASE = timedelta(seconds=900)
SLACK = timedelta(seconds=5)

WES = ("wes@acme.test", "Wes")
WYN = ("wyn@acme.test", "Wyn")
ADA = ("ada@acme.test", "Ada")


# --- helpers ------------------------------------------------------------------------------------


def moment(value: Any) -> datetime:
    """A contract timestamp (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), parsed."""
    assert isinstance(value, str) and TIMESTAMP.match(value), value
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def now() -> datetime:
    return datetime.now(UTC)


def body_of(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    return response.json()


def assert_empty_200(response: httpx.Response) -> None:
    assert response.status_code == 200, (response.status_code, response.text)
    assert response.content == b"", response.content


def full(**values: Any) -> dict[str, Any]:
    """A core-queue task's `data`: every block present, null where not given."""
    return {block: values.get(block) for block in BLOCK_IDS}


def assert_task(task: dict, queue: dict, *, assignment: bool = False) -> None:
    """The Task's exact keys, in the contract's order, and the types of its fields."""
    expected = [*TASK_KEYS, "assignment"] if assignment else TASK_KEYS
    assert list(task) == expected, list(task)
    assert isinstance(task["id"], int) and task["id"] > 0
    assert task["status"] in ("new", "open", "in_progress", "completed")
    moment(task["created_at"])
    assert task["queue"] == queue["name"]
    assert task["queue_id"] == queue["id"]
    assert list(task["data"]) == [b["id"] for b in queue["data"]]
    if assignment:
        assert list(task["assignment"]) == ASSIGNMENT_KEYS, task["assignment"]


def create(admin: httpx.Client, qpath: str, **data: Any) -> dict:
    return body_of(admin.post(f"{qpath}/tasks/create", json={"data": data}))


def claim(client: httpx.Client, qpath: str) -> dict:
    return body_of(client.post(f"{qpath}/tasks/next"))


def complete_next(client: httpx.Client, qpath: str, **data: Any) -> dict:
    task = claim(client, qpath)
    return body_of(client.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": data}))


def split_link(url: str) -> tuple[str, str, str, dict[str, str]]:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    assert len(query) == len({k for k, _ in query}), query
    return parts.scheme, parts.netloc, parts.path, dict(query)


def completed_ids(admin: httpx.Client, qpath: str, **params: Any) -> list[int]:
    page = body_of(admin.get(f"{qpath}/tasks/completed", params=params))
    return [t["id"] for t in page["tasks"]]


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


# --- A3 list queues, A4 get a queue -------------------------------------------------------------


def test_list_queues_ordered_by_id_with_exact_keys(clients, admin, queue, org_id, other_org):
    listed = body_of(admin.get(f"/orgs/{org_id}/queues"))
    assert isinstance(listed, list)
    ids = [q["id"] for q in listed]
    assert ids == sorted(ids)
    assert len(ids) == len(set(ids))
    assert other_org["queue"] not in ids
    for item in listed:
        assert list(item) == QUEUE_KEYS, item
        moment(item["created_at"])
        assert isinstance(item["n_tasks"], int)
        assert isinstance(item["active_users"], list)
    assert "Categorization" in [q["name"] for q in listed]
    mine = next(q for q in listed if q["id"] == queue["id"])
    assert mine == {
        "id": queue["id"],
        "name": queue["name"],
        "created_at": queue["created_at"],
        "n_tasks": 0,
        "active_users": [],
    }
    for role in ("supervisor", "worker"):
        assert body_of(clients[role].get(f"/orgs/{org_id}/queues")) == listed


def test_list_queues_counts_open_tasks_and_live_claim_holders(clients, admin, worker, queue, qpath, org_id):
    worker2 = clients["worker2"]

    def summary() -> dict:
        listed = body_of(admin.get(f"/orgs/{org_id}/queues"))
        return next(q for q in listed if q["id"] == queue["id"])

    for n in range(5):
        create(admin, qpath, paragraph=f"task {n}")
    assert summary()["n_tasks"] == 5
    assert summary()["active_users"] == []

    # Claimed in the order Wes, Ada, Wyn: the names come back sorted, not in claim order (or its reverse).
    held_by_wes = claim(worker, qpath)
    held_by_ada = claim(admin, qpath)
    claim(worker2, qpath)
    state = summary()
    assert state["n_tasks"] == 5, "in_progress tasks are not completed"
    assert state["active_users"] == ["Ada", "Wes", "Wyn"]

    body_of(worker.post(f"{qpath}/tasks/{held_by_wes['id']}/complete", json={"data": {"category": "red"}}))
    state = summary()
    assert state["n_tasks"] == 4
    assert state["active_users"] == ["Ada", "Wyn"]

    body_of(admin.post(f"{qpath}/tasks/{held_by_ada['id']}/release"))
    state = summary()
    assert state["n_tasks"] == 4, "an open task still counts"
    assert state["active_users"] == ["Wyn"]

    detail = body_of(admin.get(qpath))
    assert detail["n_tasks"] == 4
    assert detail["active_users"] == ["Wyn"]


def test_get_queue_adds_description_and_data(clients, admin, queue, qpath, org_id):
    detail = body_of(admin.get(qpath))
    assert list(detail) == QUEUE_DETAIL_KEYS
    assert detail["id"] == queue["id"]
    assert detail["name"] == queue["name"]
    assert detail["created_at"] == queue["created_at"]
    moment(detail["created_at"])
    assert detail["n_tasks"] == 0
    assert detail["active_users"] == []
    assert detail["description"] == ""
    assert [b["id"] for b in detail["data"]] == BLOCK_IDS
    for sent, got in zip(CORE_BLOCKS, detail["data"], strict=True):
        assert got["id"] == sent["id"]
        assert got["name"] == sent["name"]
        assert got["type"] == sent["type"]
        settings = got[sent["type"]]
        for key, value in sent[sent["type"]].items():
            assert settings[key] == value, (sent["id"], key)

    create(admin, qpath, paragraph="one")
    create(admin, qpath, paragraph="two")
    assert body_of(clients["worker"].get(qpath))["n_tasks"] == 2
    assert body_of(clients["supervisor"].get(qpath)) == body_of(admin.get(qpath))

    seeded = next(q for q in body_of(admin.get(f"/orgs/{org_id}/queues")) if q["name"] == "Categorization")
    seeded_detail = body_of(admin.get(f"/orgs/{org_id}/queues/{seeded['id']}"))
    assert seeded_detail["description"] == "Sort incoming reports"
    assert [b["id"] for b in seeded_detail["data"]] == ["paragraph", "category"]


# --- A5 flush -----------------------------------------------------------------------------------


def test_flush_deletes_pending_and_keeps_completed(clients, admin, worker, queue, qpath):
    done = create(admin, qpath, paragraph="done")
    completed = complete_next(worker, qpath, category="red")
    assert completed["id"] == done["id"]
    reopened = create(admin, qpath, paragraph="open")
    held = create(admin, qpath, paragraph="held")
    fresh = create(admin, qpath, paragraph="new")
    body_of(worker.post(f"{qpath}/tasks/{claim(worker, qpath)['id']}/release"))
    assert claim(clients["worker2"], qpath)["id"] == held["id"]
    statuses = {t["id"]: t["status"] for t in body_of(admin.get(f"{qpath}/tasks"))["tasks"]}
    assert statuses == {reopened["id"]: "open", held["id"]: "in_progress", fresh["id"]: "new"}
    assert body_of(admin.get(qpath))["n_tasks"] == 3

    assert_empty_200(admin.put(f"{qpath}/flush"))

    pending = body_of(admin.get(f"{qpath}/tasks"))
    assert pending["count"] == 0
    assert pending["tasks"] == []
    after = body_of(admin.get(qpath))
    assert after["n_tasks"] == 0
    assert after["active_users"] == []
    history = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert history["count"] == 1
    assert history["tasks"] == [completed]
    assert body_of(admin.get(f"{qpath}/tasks/{done['id']}"))["status"] == "completed"
    for gone in (reopened, held, fresh):
        assert admin.get(f"{qpath}/tasks/{gone['id']}").status_code == 404

    # Flushing an already empty queue is still a 200 with an empty body.
    assert_empty_200(admin.put(f"{qpath}/flush"))
    assert body_of(admin.get(f"{qpath}/tasks/completed"))["count"] == 1


# --- A6 / A7 webhook ----------------------------------------------------------------------------


def test_webhook_get_set_patch_and_remove(clients, admin, queue, qpath):
    supervisor = clients["supervisor"]
    hook = f"{qpath}/webhook"
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/hook"}))
    assert body_of(admin.get(hook)) == {"target": "http://127.0.0.1:9/hook"}
    assert body_of(supervisor.get(hook)) == {"target": "http://127.0.0.1:9/hook"}

    assert_empty_200(admin.patch(hook, json={"target": "https://localhost:8443/other?x=1"}))
    assert body_of(admin.get(hook)) == {"target": "https://localhost:8443/other?x=1"}

    assert_empty_200(admin.put(hook, json={"target": ""}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/again"}))
    assert body_of(admin.get(hook)) == {"target": "http://127.0.0.1:9/again"}
    assert_empty_200(admin.put(hook, json={"target": None}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.patch(hook, json={"target": "http://10.0.0.1/patched"}))
    assert body_of(admin.get(hook)) == {"target": "http://10.0.0.1/patched"}
    assert_empty_200(admin.patch(hook, json={"target": None}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/delete-me"}))
    assert_empty_200(admin.delete(hook))
    assert body_of(supervisor.get(hook)) == {"target": ""}

    long_target = "http://127.0.0.1:9/" + "a" * (2048 - len("http://127.0.0.1:9/"))
    assert len(long_target) == 2048
    assert_empty_200(admin.put(hook, json={"target": long_target}))
    assert body_of(admin.get(hook)) == {"target": long_target}


# --- legacy /workflows aliases ------------------------------------------------------------------


def test_workflows_aliases_behave_like_queues(server, clients, admin, worker, queue, qpath, org_id):
    legacy = qpath.replace(f"/orgs/{org_id}/queues/", f"/orgs/{org_id}/workflows/", 1)
    assert legacy != qpath

    assert body_of(admin.get(f"/orgs/{org_id}/workflows")) == body_of(admin.get(f"/orgs/{org_id}/queues"))
    assert body_of(admin.get(legacy)) == body_of(admin.get(qpath))

    made = body_of(admin.post(f"{legacy}/tasks/create", json={"data": {"paragraph": "legacy"}}))
    assert_task(made, queue)
    assert made["status"] == "new"
    assert made["source"] == "api"
    assert made["data"] == full(paragraph="legacy")
    assert body_of(admin.get(f"{qpath}/tasks/{made['id']}"))["data"] == made["data"]

    create(admin, qpath, paragraph="second")
    create(admin, qpath, paragraph="third")
    for _ in range(3):
        complete_next(worker, qpath, category="blue")
    params = {"completed_by": WES[0], "limit": 2}
    old = body_of(admin.get(f"{legacy}/tasks/completed", params=params))
    new = body_of(admin.get(f"{qpath}/tasks/completed", params=params))
    assert list(old) == PAGE_KEYS
    assert old["count"] == new["count"] == 3
    assert old["tasks"] == new["tasks"]
    assert old["previous"] is None
    scheme, netloc, _, query = split_link(old["next"])
    assert f"{scheme}://{netloc}" == server.url
    assert query == {"completed_by": WES[0], "limit": "2", "offset": "2"}
    assert body_of(admin.get(old["next"]))["tasks"] == body_of(admin.get(new["next"]))["tasks"]
    mine = body_of(worker.get(f"{legacy}/tasks/completed", params={"completed_by": "me"}))
    assert mine["count"] == 3

    assert body_of(admin.get(f"{legacy}/webhook")) == {"target": ""}
    assert_empty_200(admin.put(f"{legacy}/webhook", json={"target": "http://127.0.0.1:9/legacy"}))
    assert body_of(admin.get(f"{qpath}/webhook")) == {"target": "http://127.0.0.1:9/legacy"}
    assert_empty_200(admin.patch(f"{legacy}/webhook", json={"target": "http://127.0.0.1:9/patched"}))
    assert body_of(clients["supervisor"].get(f"{legacy}/webhook")) == {"target": "http://127.0.0.1:9/patched"}
    assert_empty_200(admin.put(f"{legacy}/webhook", json={"target": ""}))
    assert body_of(admin.get(f"{qpath}/webhook")) == {"target": ""}

    create(admin, qpath, paragraph="to flush")
    assert body_of(admin.get(legacy))["n_tasks"] == 1
    assert_empty_200(admin.put(f"{legacy}/flush"))
    assert body_of(admin.get(qpath))["n_tasks"] == 0
    assert body_of(admin.get(f"{legacy}/tasks/completed"))["count"] == 3


# --- B1 /me -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "email", "name", "user_role", "organization"),
    [
        ("admin", "ada@acme.test", "Ada", "admin", "Acme"),
        ("supervisor", "sue@acme.test", "Sue", "supervisor", "Acme"),
        ("worker", "wes@acme.test", "Wes", "worker", "Acme"),
        ("worker2", "wyn@acme.test", "Wyn", "worker", "Acme"),
        ("other_admin", "gus@globex.test", "Gus", "admin", "Globex"),
    ],
)
def test_me_describes_the_caller(clients, org_id, other_org, role, email, name, user_role, organization):
    me = body_of(clients[role].get("/me"))
    assert list(me) == ["email", "name", "role", "organization_id", "organization", "server", "version"]
    assert me["email"] == email
    assert me["name"] == name
    assert me["role"] == user_role
    assert me["organization"] == organization
    assert me["organization_id"] == (other_org["org"] if organization == "Globex" else org_id)
    assert isinstance(me["organization_id"], int)
    assert me["server"] == "queuedesk"
    assert me["version"] == queuedesk.__version__
    assert org_id != other_org["org"]


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
    final = body_of(clients["worker2"].get(f"{qpath}/tasks/{made['id']}"))
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


# --- B4 claim -----------------------------------------------------------------------------------


def test_claim_answers_task_with_assignment_and_future_lease(admin, worker, queue, qpath):
    made = create(admin, qpath, paragraph="work")
    before = now()
    response = worker.post(f"{qpath}/tasks/next")
    after = now()
    task = body_of(response)
    assert_task(task, queue, assignment=True)
    assert task["id"] == made["id"]
    assert task["status"] == "in_progress"
    assert task["data"] == made["data"]
    assert task["created_at"] == made["created_at"]
    assert task["completed_at"] is None
    assert task["completed_by"] is None
    assert task["source"] == "api"
    assignment = task["assignment"]
    assert assignment["assigned_to"] == WES[0]
    assert assignment["assigned_to_name"] == WES[1]
    assigned_at = moment(assignment["assigned_at"])
    lease = moment(assignment["lease_expires_at"])
    assert before - SLACK <= assigned_at <= after + SLACK
    assert lease > after
    assert abs((lease - assigned_at) - DEFAULT_LEASE) < timedelta(seconds=1)

    again = claim(worker, qpath)
    assert again["id"] == made["id"], "a live claim is handed back to its holder"
    assert again["assignment"]["assigned_to"] == WES[0]
    assert moment(again["assignment"]["lease_expires_at"]) >= lease


def test_claim_takes_new_before_open_and_oldest_first(clients, admin, worker, queue, qpath):
    worker2 = clients["worker2"]
    first = create(admin, qpath, paragraph="first")
    second = create(admin, qpath, paragraph="second")
    third = create(admin, qpath, paragraph="third")
    assert claim(worker, qpath)["id"] == first["id"]
    body_of(worker.post(f"{qpath}/tasks/{first['id']}/release"))
    # `first` is open now; new tasks come first, oldest first.
    assert claim(worker2, qpath)["id"] == second["id"]
    assert claim(worker, qpath)["id"] == third["id"]
    body_of(worker.post(f"{qpath}/tasks/{third['id']}/complete", json={"data": {"category": "red"}}))
    reclaimed = claim(worker, qpath)
    assert reclaimed["id"] == first["id"]
    assert reclaimed["status"] == "in_progress"
    assert reclaimed["assignment"]["assigned_to"] == WES[0]


def test_claim_answers_204_with_tasks_held_when_nothing_is_claimable(clients, admin, worker, queue, qpath):
    empty = worker.post(f"{qpath}/tasks/next")
    assert empty.status_code == 204, empty.text
    assert empty.content == b""
    assert empty.headers["X-Tasks-Held"] == "0"

    one = create(admin, qpath, paragraph="one")
    two = create(admin, qpath, paragraph="two")
    assert claim(clients["worker2"], qpath)["id"] == one["id"]
    assert claim(admin, qpath)["id"] == two["id"]
    held = worker.post(f"{qpath}/tasks/next")
    assert held.status_code == 204, held.text
    assert held.content == b""
    assert held.headers["X-Tasks-Held"] == "2"


# --- B5 heartbeat, B6 release, B7 complete ------------------------------------------------------


def test_heartbeat_extends_the_lease(admin, worker, queue, qpath):
    create(admin, qpath, paragraph="long job")
    task = claim(worker, qpath)
    first_lease = moment(task["assignment"]["lease_expires_at"])
    time.sleep(0.05)
    response = worker.post(f"{qpath}/tasks/{task['id']}/heartbeat")
    body = body_of(response)
    # "200 with `assignment`": accept the assignment object itself or a Task carrying it.
    assignment = body.get("assignment", body)
    assert list(assignment) == ASSIGNMENT_KEYS
    assert assignment["assigned_to"] == WES[0]
    assert assignment["assigned_to_name"] == WES[1]
    assert assignment["assigned_at"] == task["assignment"]["assigned_at"]
    new_lease = moment(assignment["lease_expires_at"])
    assert new_lease > first_lease
    assert new_lease - first_lease >= timedelta(milliseconds=40)
    assert abs((new_lease - now()) - DEFAULT_LEASE) < SLACK

    stored = body_of(worker.get(f"{qpath}/tasks/{task['id']}"))
    assert stored["status"] == "in_progress"
    assert stored["assignment"]["lease_expires_at"] == assignment["lease_expires_at"]


def test_release_reopens_the_task_and_keeps_a_draft(admin, worker, queue, qpath):
    made = create(admin, qpath, paragraph="original", photo="https://example.com/p.png")
    task = claim(worker, qpath)
    released = body_of(worker.post(f"{qpath}/tasks/{task['id']}/release"))
    assert_task(released, queue, assignment=True)
    assert released["id"] == made["id"]
    assert released["status"] == "open"
    assert released["assignment"] == EMPTY_ASSIGNMENT
    assert released["data"] == made["data"]
    assert released["completed_at"] is None
    assert released["completed_by"] is None

    claim(worker, qpath)
    drafted = body_of(
        worker.post(
            f"{qpath}/tasks/{made['id']}/release", json={"data": {"paragraph": "draft", "category": "blue"}}
        )
    )
    assert drafted["status"] == "open"
    assert drafted["assignment"] == EMPTY_ASSIGNMENT
    assert drafted["data"] == {"paragraph": "draft", "category": "blue", "photo": "https://example.com/p.png"}
    assert body_of(admin.get(f"{qpath}/tasks/{made['id']}"))["data"] == drafted["data"]

    # An admin may give back a worker's task.
    claim(worker, qpath)
    by_admin = body_of(admin.post(f"{qpath}/tasks/{made['id']}/release"))
    assert by_admin["status"] == "open"
    assert by_admin["assignment"] == EMPTY_ASSIGNMENT
    assert by_admin["data"] == drafted["data"]
    assert claim(admin, qpath)["assignment"]["assigned_to"] == ADA[0]


def test_complete_merges_data_and_records_the_caller(clients, admin, worker, queue, qpath):
    made = create(admin, qpath, paragraph="keep me", photo="https://example.com/p.png")
    task = claim(worker, qpath)
    before = now()
    response = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "blue"}})
    after = now()
    done = body_of(response)
    assert list(done)[: len(TASK_KEYS)] == TASK_KEYS
    assert set(done) <= {*TASK_KEYS, "assignment"}
    assert done["id"] == made["id"]
    assert done["status"] == "completed"
    assert before - SLACK <= moment(done["completed_at"]) <= after + SLACK
    assert moment(done["completed_at"]) >= moment(done["created_at"])
    assert done["completed_by"] == WES[0]
    assert done["queue"] == queue["name"]
    assert done["queue_id"] == queue["id"]
    assert done["created_at"] == made["created_at"]
    assert done["source"] == "api"
    assert done["data"] == {"paragraph": "keep me", "category": "blue", "photo": "https://example.com/p.png"}
    assert list(done["data"]) == BLOCK_IDS

    history = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert history["tasks"] == [{k: done[k] for k in TASK_KEYS}]

    # A supplied value replaces the stored one; the caller's own email is recorded.
    create(admin, qpath, paragraph="old text", category="red")
    other = claim(clients["worker2"], qpath)
    second = body_of(
        clients["worker2"].post(
            f"{qpath}/tasks/{other['id']}/complete", json={"data": {"paragraph": "new text", "photo": None}}
        )
    )
    assert second["completed_by"] == WYN[0]
    assert second["data"] == {"paragraph": "new text", "category": "red", "photo": None}
    assert body_of(admin.get(qpath))["n_tasks"] == 0


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


# --- B12 create and B13 change queues -----------------------------------------------------------


def test_create_queue_answers_the_queue_with_data(clients, admin, org_id):
    blocks = [
        {
            "id": "body",
            "name": "Body",
            "type": "text",
            "text": {"placeholder": "Say it", "is_required": True},
        },
        {
            "id": "mood",
            "name": "Mood",
            "type": "single_selection",
            "single_selection": {"options": [{"id": "up", "name": "Up"}, {"id": "down", "name": "Down"}]},
        },
    ]
    name = f"Created {time.monotonic_ns()}"
    before = now()
    made = body_of(
        admin.post(f"/orgs/{org_id}/queues", json={"name": name, "description": "Moods", "data": blocks})
    )
    after = now()
    assert list(made) == QUEUE_DETAIL_KEYS
    assert isinstance(made["id"], int) and made["id"] > 0
    assert made["name"] == name
    assert before - SLACK <= moment(made["created_at"]) <= after + SLACK
    assert made["n_tasks"] == 0
    assert made["active_users"] == []
    assert made["description"] == "Moods"
    assert [b["id"] for b in made["data"]] == ["body", "mood"]
    assert made["data"][0]["text"]["placeholder"] == "Say it"
    assert made["data"][1]["single_selection"]["options"] == blocks[1]["single_selection"]["options"]

    assert body_of(admin.get(f"/orgs/{org_id}/queues/{made['id']}")) == made
    listed = body_of(clients["worker"].get(f"/orgs/{org_id}/queues"))
    assert listed[-1] == {k: made[k] for k in QUEUE_KEYS}

    bare = body_of(admin.post(f"/orgs/{org_id}/queues", json={"name": f"{name} bare", "data": blocks[:1]}))
    assert bare["description"] == ""
    assert bare["id"] > made["id"]

    task = create(admin, f"/orgs/{org_id}/queues/{made['id']}", mood="down")
    assert task["data"] == {"body": None, "mood": "down"}
    assert task["queue"] == name


def test_patch_queue_changes_only_what_is_sent(admin, worker, queue, qpath):
    create(admin, qpath, paragraph="counted")

    renamed = body_of(admin.patch(qpath, json={"name": f"{queue['name']} renamed"}))
    assert list(renamed) == QUEUE_DETAIL_KEYS
    assert renamed["id"] == queue["id"]
    assert renamed["name"] == f"{queue['name']} renamed"
    assert renamed["created_at"] == queue["created_at"]
    assert renamed["description"] == ""
    assert renamed["data"] == queue["data"]
    assert renamed["n_tasks"] == 1
    assert renamed["active_users"] == []

    described = body_of(admin.patch(qpath, json={"description": "Now with words"}))
    assert described["description"] == "Now with words"
    assert described["name"] == renamed["name"]
    assert described["data"] == queue["data"]

    claim(worker, qpath)
    blocks = [*CORE_BLOCKS, {"id": "notes", "name": "Notes", "type": "text", "text": {}}]
    reshaped = body_of(admin.patch(qpath, json={"data": blocks}))
    assert [b["id"] for b in reshaped["data"]] == [*BLOCK_IDS, "notes"]
    assert reshaped["name"] == renamed["name"]
    assert reshaped["description"] == "Now with words"
    assert reshaped["active_users"] == ["Wes"]
    assert reshaped["n_tasks"] == 1

    everything = body_of(admin.patch(qpath, json={"name": "All at once " + queue["name"], "description": ""}))
    assert everything["name"] == "All at once " + queue["name"]
    assert everything["description"] == ""
    assert body_of(admin.get(qpath)) == everything

    task = create(admin, qpath, notes="new block")
    assert task["queue"] == everything["name"]
    assert task["data"] == {"paragraph": None, "category": None, "photo": None, "notes": "new block"}


# --- B14 health ---------------------------------------------------------------------------------


def test_healthz_answers_without_authentication(clients):
    response = clients["anonymous"].get("/healthz")
    assert "authorization" not in {k.lower() for k in response.request.headers}
    assert body_of(response) == {"status": "ok"}


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
