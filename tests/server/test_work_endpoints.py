"""Working a queue: claim (B4), heartbeat, release and complete (B5, B6, B7).

Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.
Every test talks to a real `queuedesk serve` process (the session `server` fixture)
and works in a fresh queue, so tests never see each other's tasks.
"""

import time
from datetime import timedelta

from tests.support.contract import (
    ADA,
    ASSIGNMENT_KEYS,
    BLOCK_IDS,
    DEFAULT_LEASE,
    EMPTY_ASSIGNMENT,
    SLACK,
    TASK_KEYS,
    WES,
    WYN,
    assert_task,
    body_of,
    claim,
    create,
    moment,
    now,
)

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


def test_release_reopens_the_task_and_keeps_a_draft_apart(admin, worker, queue, qpath):
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
    assert drafted["data"] == made["data"]  # the draft is the worker's, never the task's
    assert drafted["draft"] == {"paragraph": "draft", "category": "blue"}
    assert body_of(admin.get(f"{qpath}/tasks/{made['id']}"))["data"] == made["data"]

    # An admin may give back a worker's task.
    claim(worker, qpath)
    by_admin = body_of(admin.post(f"{qpath}/tasks/{made['id']}/release"))
    assert by_admin["status"] == "open"
    assert by_admin["assignment"] == EMPTY_ASSIGNMENT
    assert by_admin["data"] == made["data"]
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
