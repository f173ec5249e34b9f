"""B24's `task.overdue` event over real HTTP on both databases, with the overdue job's interval
shortened (QUEUEDESK_OVERDUE_EVERY): queued once when a pending task's due date passes, sent like the
completion callback (signed, logged with B10's `type`), none without a webhook or for a task completed
in time, one at once for a task created overdue, again after the due date moves into the future —
and once across two servers sharing a PostgreSQL database."""

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import ROLES_SEED, ServerProcess, query_value
from tests.support.contract import body_of

BLOCKS = [{"id": "paragraph", "name": "Paragraph", "type": "text", "text": {}}]
EVERY = "0.2"  # seconds between the overdue job's passes


def soon(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture
def quick(tmp_path: Path, backend: str) -> Iterator[ServerProcess]:
    server = ServerProcess(
        tmp_path / "overdue.db",
        ["--allow-private-webhooks"],
        seed=ROLES_SEED,
        backend=backend,
        environment={"QUEUEDESK_OVERDUE_EVERY": EVERY},
    ).start()
    try:
        yield server
    finally:
        server.stop()


def hooked_queue(admin: httpx.Client, receiver: Receiver | None) -> str:
    made = make_queue(admin, 1, BLOCKS, label="Late")
    qpath = f"/orgs/1/queues/{made['id']}"
    if receiver is not None:
        assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
    return qpath


def create(admin: httpx.Client, qpath: str, **fields: Any) -> int:
    made = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}, **fields})
    return int(body_of(made)["id"])


def overdue_log(admin: httpx.Client, qpath: str) -> list[dict[str, Any]]:
    log = body_of(admin.get(f"{qpath}/webhook/deliveries", params={"limit": 1000}))["deliveries"]
    return [d for d in log if d["type"] == "task.overdue"]


def test_a_passed_due_date_sends_one_signed_event(quick: ServerProcess) -> None:
    receiver = Receiver().start()
    try:
        with quick.client("admin") as admin, quick.client("worker") as worker:
            qpath = hooked_queue(admin, receiver)
            due = soon(0.8)
            late = create(admin, qpath, due_at=due, priority=4)
            in_time = create(admin, qpath, due_at=soon(1.5))
            assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == late  # held: still pending
            claimed = body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [late]}))["id"]
            assert claimed == in_time
            body_of(worker.post(f"{qpath}/tasks/{in_time}/complete", json={"data": {}}))  # in time: none
            (request,) = [r for r in receiver.wait_for(2) if json.loads(r.body).get("type") == "task.overdue"]
            event = json.loads(request.body)
            assert list(event) == ["type", "task", "due_at"]
            assert event["due_at"] == due
            assert event["task"]["id"] == late and event["task"]["status"] == "in_progress"
            assert "priority" not in event["task"]  # the Part A shape
            secret = body_of(admin.get(f"{qpath}/webhook/secret"))["secret"]
            Webhook(secret).verify(request.body, request.headers)
            time.sleep(2 * float(EVERY) + 1.0)  # several passes later, and past the other due date
            assert [r for r in receiver.received if b"task.overdue" in r.body] == [request]
            (logged,) = overdue_log(admin, qpath)
            assert (logged["task_id"], logged["event_id"]) == (late, request.headers["webhook-id"])
            assert body_of(admin.get(qpath))["n_overdue"] == 1
    finally:
        receiver.stop()


def test_created_overdue_is_due_at_once_and_a_future_date_arms_it_again(quick: ServerProcess) -> None:
    receiver = Receiver().start()
    try:
        with quick.client("admin") as admin:
            qpath = hooked_queue(admin, receiver)
            task_id = create(admin, qpath, due_at="2001-02-03T04:05:06Z")
            receiver.wait_for(1)
            assert body_of(admin.get(qpath))["n_overdue"] == 1
            body_of(admin.patch(f"{qpath}/tasks/{task_id}", json={"due_at": soon(0.5)}))
            assert body_of(admin.get(qpath))["n_overdue"] == 0  # moved into the future: not overdue
            second = receiver.wait_for(2)[1]
            assert json.loads(second.body)["task"]["id"] == task_id
            assert second.headers["webhook-id"] != receiver.received[0].headers["webhook-id"]
            body_of(admin.patch(f"{qpath}/tasks/{task_id}", json={"due_at": "2001-01-01T00:00:00Z"}))
            third = receiver.wait_for(3)[2]  # moved into the past again: at once, by the PATCH
            assert json.loads(third.body)["due_at"] == "2001-01-01T00:00:00.000000Z"
            assert len(overdue_log(admin, qpath)) == 3
    finally:
        receiver.stop()


def test_nothing_is_queued_for_a_queue_without_a_webhook(quick: ServerProcess) -> None:
    with quick.client("admin") as admin:
        qpath = hooked_queue(admin, None)
        create(admin, qpath, due_at="2001-02-03T04:05:06Z")
        deadline = time.monotonic() + 30
        while body_of(admin.get(qpath))["n_overdue"] != 1:  # noticed: counted
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert query_value(quick.db_url, "SELECT count(*) FROM deliveries WHERE type = 'task.overdue'") == 0
        receiver = Receiver().start()
        try:  # a webhook set afterwards gets nothing for what was noticed before it
            assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
            time.sleep(3 * float(EVERY))
            assert overdue_log(admin, qpath) == []
        finally:
            receiver.stop()


def test_two_servers_queue_each_overdue_event_once(tmp_path: Path, backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("PostgreSQL only: several servers share a PostgreSQL database")
    environment = {"QUEUEDESK_OVERDUE_EVERY": "0.05"}
    args = ["--allow-private-webhooks"]
    first = ServerProcess(tmp_path / "shared.db", args, ROLES_SEED, backend, environment=environment).start()
    second = ServerProcess(tmp_path / "shared.db", args, backend=backend, environment=environment).start()
    receiver = Receiver().start()
    try:
        with first.client("admin") as admin:
            qpath = hooked_queue(admin, receiver)
            due = soon(2.0)  # both servers' jobs are running when the 600 fall due together
            rows = [{"data": {"paragraph": str(n)}, "due_at": due} for n in range(600)]
            ids = body_of(admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": rows}))[
                "ids"
            ]
            deadline = time.monotonic() + 60
            while query_value(first.db_url, "SELECT count(*) FROM tasks WHERE due_armed IS NOT NULL") > 0:
                assert time.monotonic() < deadline, "the due dates were not all noticed"
                time.sleep(0.1)
            time.sleep(0.5)
            queued = (
                query_value(first.db_url, "SELECT count(*) FROM deliveries WHERE type = 'task.overdue'"),
                query_value(
                    first.db_url, "SELECT count(DISTINCT task_id) FROM deliveries WHERE type = 'task.overdue'"
                ),
            )
            assert queued == (600, 600)
            assert sorted(ids) == sorted(json.loads(r.body)["task"]["id"] for r in receiver.wait_for(600, 60))
            assert body_of(admin.get(qpath))["n_overdue"] == 600
        logs = first.log() + second.log()
        assert "Traceback" not in logs
    finally:
        receiver.stop()
        first.stop()
        second.stop()
