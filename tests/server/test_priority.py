"""B24 (priority and due dates) and B25 (reservations) over real HTTP on both databases: the fields
on A1, B8 and import sessions and in Part B answers, the PATCH and the assignment with their audit
events and refusals, B2's filters, the queue's `order`, the claim order (table-driven), `n_overdue`
exact after completions, PATCHes and flushes, and B1's features."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.conftest import make_queue
from tests.support.contract import body_of

BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}]},
    },
]
WORKER, WORKER2, SUPERVISOR, ADMIN = "wes@acme.test", "wyn@acme.test", "sue@acme.test", "ada@acme.test"


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def soon(seconds: float) -> str:
    return stamp(datetime.now(UTC) + timedelta(seconds=seconds))


@pytest.fixture
def worker2(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["worker2"]


@pytest.fixture
def supervisor(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["supervisor"]


def new_queue(admin: httpx.Client, org_id: int, **extra: Any) -> str:
    made = make_queue(admin, org_id, BLOCKS, label="Due", **extra)
    return f"/orgs/{org_id}/queues/{made['id']}"


def create(admin: httpx.Client, qpath: str, text: str = "t", **fields: Any) -> dict[str, Any]:
    return body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": text}, **fields}))


def claim(client: httpx.Client, qpath: str) -> int | None:
    answer = client.post(f"{qpath}/tasks/next")
    if answer.status_code == 204:
        return None
    return int(body_of(answer)["id"])


def done(client: httpx.Client, qpath: str, task_id: int) -> None:
    body_of(client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}))


def errors(response: httpx.Response, status: int = 400) -> list[tuple[str, str | None]]:
    assert response.status_code == status, response.text
    return [(e["code"], e.get("field")) for e in response.json()["errors"]]


def last_audit(admin: httpx.Client, org_id: int, action: str) -> dict[str, Any]:
    return body_of(admin.get(f"/orgs/{org_id}/audit", params={"action": action, "limit": 1}))["events"][0]


def n_overdue(client: httpx.Client, qpath: str) -> int:
    return int(body_of(client.get(qpath))["n_overdue"])


def wait_for_overdue(client: httpx.Client, qpath: str, expected: int, timeout: float = 30) -> None:
    import time

    deadline = time.monotonic() + timeout
    while n_overdue(client, qpath) != expected:
        assert time.monotonic() < deadline, f"n_overdue stayed {n_overdue(client, qpath)}, not {expected}"
        time.sleep(0.05)


# --- the fields ---------------------------------------------------------------------------------------


def test_a_task_is_created_with_priority_due_date_and_reservation(
    admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    due = "2030-01-02T03:04:05.123456Z"
    made = create(admin, qpath, priority=7, due_at=due, reserved_for=WORKER.upper())
    assert "priority" not in made  # A1 answers the Part A Task
    shown = body_of(admin.get(f"{qpath}/tasks/{made['id']}"))
    assert (shown["priority"], shown["due_at"], shown["reserved_for"]) == (7, due, WORKER)
    plain = body_of(admin.get(f"{qpath}/tasks/{create(admin, qpath)['id']}"))
    assert (plain["priority"], plain["due_at"], plain["reserved_for"]) == (0, None, None)
    offset = body_of(
        admin.get(f"{qpath}/tasks/{create(admin, qpath, due_at='2030-01-02T05:04:05+02:00')['id']}")
    )
    assert offset["due_at"] == "2030-01-02T03:04:05.000000Z"
    listed = body_of(worker.get(f"{qpath}/tasks"))["tasks"]
    assert [t["priority"] for t in listed] == [7, 0, 0]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"priority": 1001}, "priority"),
        ({"priority": -1001}, "priority"),
        ({"priority": True}, "priority"),
        ({"priority": 1.5}, "priority"),
        ({"due_at": "tomorrow"}, "due_at"),
        ({"due_at": "2030-01-02"}, "due_at"),
        ({"due_at": 1700000000}, "due_at"),
        ({"reserved_for": "nobody@acme.test"}, "reserved_for"),
        ({"reserved_for": SUPERVISOR}, "reserved_for"),
        ({"reserved_for": "ada@umbrella.test"}, "reserved_for"),
        ({"reserved_for": 5}, "reserved_for"),
    ],
)
def test_bad_fields_are_refused_by_field(
    admin: httpx.Client, qpath: str, fields: dict[str, Any], field: str
) -> None:
    answer = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "x"}, **fields})
    assert errors(answer) == [("invalid_value", field)]


def test_import_takes_the_fields_and_names_each_failing_task(admin: httpx.Client, org_id: int) -> None:
    qpath = new_queue(admin, org_id)
    rows = [
        {
            "data": {"paragraph": "a"},
            "priority": 3,
            "due_at": "2031-05-06T07:08:09Z",
            "reserved_for": WORKER2,
        },
        {"data": {"paragraph": "b"}},
    ]
    made = body_of(admin.post(f"{qpath}/tasks/import", json={"source": "x.csv", "tasks": rows}))
    first = body_of(admin.get(f"{qpath}/tasks/{made['ids'][0]}"))
    assert (first["priority"], first["due_at"], first["reserved_for"]) == (
        3,
        "2031-05-06T07:08:09.000000Z",
        WORKER2,
    )
    bad = [
        {"data": {"paragraph": "a"}, "priority": 5000},
        {"data": {"paragraph": "b"}, "reserved_for": "x@y.z"},
    ]
    refused = admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": bad})
    assert errors(refused) == [("invalid_value", "tasks[0].priority")]
    refused = admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": bad[1:]})
    assert errors(refused) == [("invalid_value", "tasks[0].reserved_for")]
    assert body_of(admin.get(qpath))["n_tasks"] == 2


def test_an_import_session_keeps_the_fields(admin: httpx.Client, org_id: int) -> None:
    qpath = new_queue(admin, org_id)
    session = body_of(admin.post(f"{qpath}/imports", json={"key": "due-1", "source": "d.csv", "total": 2}))
    rows = [
        {"data": {"paragraph": "a"}, "priority": -4, "due_at": "2032-01-01T00:00:00Z"},
        {"data": {"paragraph": "b"}, "reserved_for": WORKER},
    ]
    body_of(admin.post(f"{qpath}/imports/{session['id']}/chunks", json={"offset": 0, "tasks": rows}))
    ids = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))["ids"]
    shown = [body_of(admin.get(f"{qpath}/tasks/{task_id}")) for task_id in ids]
    assert [(t["priority"], t["due_at"], t["reserved_for"]) for t in shown] == [
        (-4, "2032-01-01T00:00:00.000000Z", None),
        (0, None, WORKER),
    ]


# --- PATCH and assign --------------------------------------------------------------------------------


def test_patch_changes_priority_and_due_date_with_an_audit_event(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    task_id = create(admin, qpath, priority=1)["id"]
    path = f"{qpath}/tasks/{task_id}"
    assert supervisor.patch(path, json={"priority": 2}).status_code == 403
    assert worker.patch(path, json={"priority": 2}).status_code == 403
    changed = body_of(admin.patch(path, json={"priority": 9, "due_at": "2030-03-04T05:06:07Z"}))
    assert (changed["priority"], changed["due_at"]) == (9, "2030-03-04T05:06:07.000000Z")
    event = last_audit(admin, org_id, "task.update")
    assert event["subject"] == {"task_id": task_id}
    assert event["detail"] == {
        "fields": ["priority", "due_at"],
        "priority": {"from": 1, "to": 9},
        "due_at": {"from": None, "to": "2030-03-04T05:06:07.000000Z"},
    }
    assert body_of(admin.patch(path, json={"due_at": None}))["due_at"] is None
    assert errors(admin.patch(path, json={"priority": "high"})) == [("invalid_value", "priority")]
    assert errors(admin.patch(path, json={"colour": 1})) == [("unknown_field", "colour")]
    assert errors(admin.patch(f"{qpath}/tasks/999999999", json={"priority": 1}), 404)
    assert claim(worker, qpath) == task_id
    done(worker, qpath, task_id)
    assert errors(admin.patch(path, json={"priority": 3}), 409) == [("already_completed", None)]


def test_assign_reserves_and_lifts_with_audit_events(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    task_id = create(admin, qpath)["id"]
    path = f"{qpath}/tasks/{task_id}/assign"
    assert worker.post(path, json={"to": WORKER}).status_code == 403
    assert body_of(supervisor.post(path, json={"to": WORKER}))["reserved_for"] == WORKER
    event = last_audit(admin, org_id, "task.assign")
    assert (event["subject"], event["detail"]) == ({"task_id": task_id}, {"from": None, "to": WORKER})
    assert event["actor"]["email"] == SUPERVISOR
    assert body_of(admin.post(path, json={"to": ADMIN}))["reserved_for"] == ADMIN
    assert last_audit(admin, org_id, "task.assign")["detail"] == {"from": WORKER, "to": ADMIN}
    for wrong in (SUPERVISOR, "nobody@acme.test", "ada@umbrella.test", 7, ""):
        assert errors(supervisor.post(path, json={"to": wrong})) == [("invalid_value", "to")], wrong
    assert errors(supervisor.post(path, json={})) == [("missing_required", "to")]
    assert body_of(supervisor.post(path, json={"to": None}))["reserved_for"] is None
    assert last_audit(admin, org_id, "task.assign")["detail"] == {"from": ADMIN, "to": None}
    assert claim(worker, qpath) == task_id
    done(worker, qpath, task_id)
    assert errors(supervisor.post(path, json={"to": WORKER}), 409) == [("already_completed", None)]


def test_a_disabled_worker_cannot_be_given_a_task(
    admin: httpx.Client, supervisor: httpx.Client, org_id: int
) -> None:
    person = body_of(
        admin.post(
            f"/orgs/{org_id}/users", json={"email": "gone@acme.test", "name": "Gone", "role": "worker"}
        )
    )
    qpath = new_queue(admin, org_id)
    task_id = create(admin, qpath)["id"]
    assert body_of(supervisor.post(f"{qpath}/tasks/{task_id}/assign", json={"to": "gone@acme.test"}))
    body_of(admin.patch(f"/orgs/{org_id}/users/{person['id']}", json={"disabled": True}))
    refused = supervisor.post(f"{qpath}/tasks/{task_id}/assign", json={"to": "gone@acme.test"})
    assert errors(refused) == [("invalid_value", "to")]


def test_pending_list_filters_overdue_and_reserved(
    admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    late = create(admin, qpath, due_at="2001-01-01T00:00:00Z")["id"]
    later = create(admin, qpath, due_at="2099-01-01T00:00:00Z")["id"]
    mine = create(admin, qpath, reserved_for=WORKER)["id"]
    theirs = create(admin, qpath, reserved_for=WORKER2)["id"]

    def listed(client: httpx.Client, **params: str) -> tuple[list[int], int]:
        page = body_of(client.get(f"{qpath}/tasks", params=params))
        return [t["id"] for t in page["tasks"]], page["count"]

    assert listed(worker, overdue="true") == ([late], 1)
    assert listed(worker, overdue="false")[1] == 4
    assert listed(worker, reserved_for="me") == ([mine], 1)
    assert listed(admin, reserved_for=WORKER2) == ([theirs], 1)
    assert listed(admin, reserved_for="me") == ([], 0)
    assert later in listed(admin)[0]
    assert errors(admin.get(f"{qpath}/tasks", params={"overdue": "yes"})) == [
        ("invalid_parameter", "overdue")
    ]


def test_the_queue_order_is_set_returned_and_audited(admin: httpx.Client, org_id: int) -> None:
    made = make_queue(admin, org_id, BLOCKS, label="Order", order="least_confident")
    assert made["order"] == "least_confident"
    qpath = f"/orgs/{org_id}/queues/{made['id']}"
    assert body_of(admin.patch(qpath, json={"order": "oldest"}))["order"] == "oldest"
    event = last_audit(admin, org_id, "queue.update")
    assert event["detail"]["fields"] == ["order"]
    assert event["detail"]["order"] == {"from": "least_confident", "to": "oldest"}
    assert [q["order"] for q in body_of(admin.get(f"/orgs/{org_id}/queues")) if q["id"] == made["id"]] == [
        "oldest"
    ]
    assert errors(admin.patch(qpath, json={"order": "newest"})) == [("invalid_value", "order")]


def test_me_lists_b24_and_b25(worker: httpx.Client) -> None:
    assert {"B24", "B25"} <= set(body_of(worker.get("/me"))["features"])


# --- the claim order ------------------------------------------------------------------------------------

# (label, fields): created in this order; the worker (wes) must get them in CLAIM_ORDER, never "theirs".
TASKS: list[tuple[str, dict[str, Any]]] = [
    ("plain old", {}),
    ("due late", {"due_at": "2099-06-01T00:00:00Z"}),
    ("due early", {"due_at": "2099-01-01T00:00:00Z"}),
    ("urgent", {"priority": 5}),
    ("urgent due", {"priority": 5, "due_at": "2099-03-01T00:00:00Z"}),
    ("low", {"priority": -1}),
    ("theirs", {"priority": 1000, "reserved_for": WORKER2}),
    ("mine low", {"priority": -5, "reserved_for": WORKER}),
    ("mine due", {"priority": -5, "due_at": "2099-01-01T00:00:00Z", "reserved_for": WORKER}),
    ("plain new", {}),
]
CLAIM_ORDER = [
    "mine due",
    "mine low",
    "urgent due",
    "urgent",
    "due early",
    "due late",
    "plain old",
    "plain new",
    "low",
]


def test_claims_follow_reservation_priority_due_date_and_age(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    ids = {label: create(admin, qpath, label, **fields)["id"] for label, fields in TASKS}
    names = {task_id: label for label, task_id in ids.items()}
    got = []
    while (task_id := claim(worker, qpath)) is not None:
        got.append(names[task_id])
        done(worker, qpath, task_id)
    assert got == CLAIM_ORDER
    assert claim(worker2, qpath) == ids["theirs"]


def test_a_given_back_task_comes_after_new_ones_and_to_its_giver_last(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    first, second = create(admin, qpath, "1")["id"], create(admin, qpath, "2")["id"]
    assert claim(worker, qpath) == first
    body_of(worker.post(f"{qpath}/tasks/{first}/release"))
    assert claim(worker, qpath) == second  # not the one they just gave back
    assert claim(worker2, qpath) == first  # anyone else gets it
    body_of(worker2.post(f"{qpath}/tasks/{first}/release"))
    done(worker, qpath, second)
    assert claim(worker, qpath) == first  # nothing else is claimable: theirs again
    # an admin's release of someone's claim counts for the holder
    third = create(admin, qpath, "3")["id"]
    body_of(admin.post(f"{qpath}/tasks/{first}/release"))
    assert claim(worker, qpath) == third


def test_held_claims_come_back_in_the_claim_order(
    admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    low = create(admin, qpath, "low")["id"]
    high = create(admin, qpath, "high", priority=3)["id"]
    first = body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": []}))["id"]
    second = body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [first]}))["id"]
    assert (first, second) == (high, low)
    body_of(admin.patch(f"{qpath}/tasks/{low}", json={"priority": 10}))
    assert claim(worker, qpath) == low  # a restarted client: its held claims, higher priority first


def test_a_reservation_made_after_a_claim_leaves_the_claim(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    task_id = create(admin, qpath)["id"]
    assert claim(worker2, qpath) == task_id
    body_of(supervisor.post(f"{qpath}/tasks/{task_id}/assign", json={"to": WORKER}))
    assert claim(worker2, qpath) == task_id  # their claim stands until it ends
    body_of(worker2.post(f"{qpath}/tasks/{task_id}/release"))
    assert claim(worker2, qpath) is None
    assert claim(worker, qpath) == task_id


def test_a_reservation_in_a_consensus_queue_covers_one_answer(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    made = make_queue(admin, org_id, BLOCKS, label="Agree", consensus={"answers": 2})
    qpath = f"/orgs/{org_id}/queues/{made['id']}"
    other = create(admin, qpath, "other")["id"]
    task_id = create(admin, qpath, "reserved", reserved_for=WORKER)["id"]
    assert claim(worker2, qpath) == other  # never the task reserved for someone else
    body_of(worker2.post(f"{qpath}/tasks/{other}/release"))
    assert claim(worker, qpath) == task_id  # theirs first, though newer
    done(worker, qpath, task_id)
    assert body_of(admin.get(f"{qpath}/tasks/{task_id}"))["reserved_for"] is None
    assert claim(worker2, qpath) == task_id  # answered tasks first, and the reservation is lifted


# --- n_overdue --------------------------------------------------------------------------------------------


def test_n_overdue_is_exact_after_completion_patch_and_flush(
    admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    qpath = new_queue(admin, org_id)
    late = create(admin, qpath, due_at="2001-01-01T00:00:00Z")["id"]
    wait_for_overdue(admin, qpath, 1)  # created overdue: noticed at once by the overdue job
    queue_id = int(qpath.rsplit("/", 1)[1])
    listed = [q for q in body_of(worker.get(f"/orgs/{org_id}/queues")) if q["id"] == queue_id]
    assert [q["n_overdue"] for q in listed] == [1]
    other = create(admin, qpath)["id"]
    body_of(admin.patch(f"{qpath}/tasks/{other}", json={"due_at": "2002-01-01T00:00:00Z"}))
    assert n_overdue(admin, qpath) == 2  # exact after the PATCH
    body_of(admin.patch(f"{qpath}/tasks/{other}", json={"due_at": "2099-01-01T00:00:00Z"}))
    assert n_overdue(admin, qpath) == 1
    assert claim(worker, qpath) == late
    assert n_overdue(admin, qpath) == 1  # in progress is still pending
    done(worker, qpath, late)
    assert n_overdue(admin, qpath) == 0  # exact after the completion
    body_of(admin.patch(f"{qpath}/tasks/{other}", json={"due_at": "2003-01-01T00:00:00Z"}))
    assert n_overdue(admin, qpath) == 1
    assert admin.put(f"{qpath}/flush").status_code == 200
    assert n_overdue(admin, qpath) == 0  # exact after the flush


def test_n_overdue_counts_due_dates_as_they_pass(admin: httpx.Client, org_id: int) -> None:
    qpath = new_queue(admin, org_id)
    create(admin, qpath, due_at=soon(1.0))
    create(admin, qpath, due_at=soon(3600))
    assert n_overdue(admin, qpath) == 0
    wait_for_overdue(admin, qpath, 1, timeout=30)  # the job sleeps until the soonest due date
