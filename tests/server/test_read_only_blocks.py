"""`read_only` blocks keep what the worker was given (issue 43, finding 6): neither a completion
(B7) nor a reviewer's correction (B19 `correct`) changes them. Each way of changing one is tried on
each path; each is a 400 naming the block and leaves the task as it was, while repeating a value as
stored, or leaving it out, is accepted."""

from typing import Any

import httpx
import pytest

from tests.conftest import make_queue
from tests.support import assert_envelope
from tests.support.contract import body_of

BLOCKS = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {
        "id": "body",
        "name": "Body",
        "type": "rich_text",
        "rich_text": {"format": "markdown", "read_only": True},
    },
    {"id": "answer", "name": "Answer", "type": "text", "text": {}},
]
GIVEN = {"message": "Please refund order 7", "body": "**order 7**"}
# What a worker or reviewer sends, and the read-only block it would change (None: nothing changed).
SENDS: list[tuple[dict[str, Any], str | None]] = [
    ({"message": "Refund everything", "answer": "ok"}, "message"),
    ({"message": None, "answer": "ok"}, "message"),
    ({"message": "", "answer": "ok"}, "message"),
    ({"body": "<script>x</script>", "answer": "ok"}, "body"),
    ({"message": GIVEN["message"] + " ", "answer": "ok"}, "message"),
    ({**GIVEN, "answer": "ok"}, None),  # repeated as stored
    ({"answer": "ok"}, None),  # left out
]


@pytest.fixture
def qpath(admin: httpx.Client, org_id: int) -> str:
    return f"/orgs/{org_id}/queues/{make_queue(admin, org_id, BLOCKS)['id']}"


def _task(admin: httpx.Client, qpath: str) -> int:
    created = body_of(admin.post(f"{qpath}/tasks/create", json={"data": GIVEN}))
    return int(created["id"])


def _claimed(worker: httpx.Client, qpath: str, task_id: int) -> None:
    claimed = body_of(worker.post(f"{qpath}/tasks/next"))
    assert claimed["id"] == task_id, claimed


@pytest.mark.parametrize(("sent", "changes"), SENDS)
def test_a_completion_never_changes_a_read_only_block(
    admin: httpx.Client, worker: httpx.Client, qpath: str, sent: dict[str, Any], changes: str | None
) -> None:
    task_id = _task(admin, qpath)
    _claimed(worker, qpath, task_id)
    answer = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": sent})
    stored = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
    if changes is not None:
        assert_envelope(answer, 400, "invalid_value", field=f"data.{changes}")
        assert stored["status"] != "completed" and stored["data"]["message"] == GIVEN["message"]
        return
    assert body_of(answer)["status"] == "completed"
    assert {key: stored["data"][key] for key in GIVEN} == GIVEN and stored["data"]["answer"] == "ok"


@pytest.mark.parametrize(("sent", "changes"), SENDS)
def test_a_reviewers_correction_never_changes_a_read_only_block(
    admin: httpx.Client, worker: httpx.Client, qpath: str, sent: dict[str, Any], changes: str | None
) -> None:
    task_id = _task(admin, qpath)
    _claimed(worker, qpath, task_id)
    body_of(worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"answer": "first"}}))
    correction = {**sent, "answer": "corrected"}
    answer = admin.post(f"{qpath}/tasks/{task_id}/review", json={"verdict": "correct", "data": correction})
    stored = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
    assert {key: stored["data"][key] for key in GIVEN} == GIVEN
    if changes is not None:
        assert_envelope(answer, 400, "invalid_value", field=f"data.{changes}")
        assert stored["data"]["answer"] == "first"
        return
    assert body_of(answer)["review"]["state"] == "corrected"
    assert stored["data"]["answer"] == "corrected"
