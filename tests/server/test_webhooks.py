"""Webhook delivery over real HTTP: signed events, retries, crashes, slow receivers, the SSRF guard."""

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from standardwebhooks import Webhook

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess


def complete_one(admin: httpx.Client, worker: httpx.Client, qpath: str, paragraph: str = "p") -> dict:
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": paragraph}}).raise_for_status()
    task = worker.post(f"{qpath}/tasks/next").json()
    done = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
    assert done.status_code == 200, done.text
    return done.json()


def hooked_queue(admin: httpx.Client, org: int, target: str) -> str:
    queue = make_queue(admin, org)
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    assert admin.put(f"{qpath}/webhook", json={"target": target}).status_code == 200
    return qpath


def wait_log(
    admin: httpx.Client, qpath: str, ready: Callable[[list[dict]], bool], timeout: float = 30
) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        log = admin.get(f"{qpath}/webhook/deliveries").json()["deliveries"]
        if ready(log) or time.monotonic() > deadline:
            return log
        time.sleep(0.05)


def test_completion_reaches_the_receiver_signed(admin, worker, org_id, receiver) -> None:
    qpath = hooked_queue(admin, org_id, receiver.url)
    task = complete_one(admin, worker, qpath)
    (request,) = receiver.wait_for(1)
    assert json.loads(request.body) == task
    assert list(json.loads(request.body)) == list(task)  # the Task's own key order
    assert request.path == "/hook"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("QueueDesk/")
    assert request.headers["webhook-id"].startswith("msg_")
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 30
    secret = admin.get(f"{qpath}/webhook/secret").json()["secret"]
    assert secret.startswith("whsec_")
    Webhook(secret).verify(request.body, request.headers)  # raises when the signature is wrong
    with pytest.raises(Exception):  # noqa: B017 - any verification failure will do
        Webhook("whsec_" + "A" * 32).verify(request.body, request.headers)
    log = wait_log(admin, qpath, lambda log: log and log[0]["status"] == "delivered")
    assert log[0]["status"] == "delivered" and log[0]["attempts"] == 1
    assert log[0]["event_id"] == request.headers["webhook-id"]
    assert log[0]["task_id"] == task["id"] and log[0]["last_status_code"] == 200
    assert log[0]["delivered_at"] is not None and log[0]["next_attempt_at"] is None


def test_500_then_200_retries_with_the_same_event_id(admin, worker, org_id) -> None:
    receiver = Receiver(answer=lambda n: (500 if n == 0 else 200, 0.0)).start()
    try:
        qpath = hooked_queue(admin, org_id, receiver.url)
        complete_one(admin, worker, qpath)
        first, second = receiver.wait_for(2, timeout=20)
        assert first.headers["webhook-id"] == second.headers["webhook-id"]
        assert first.body == second.body
        assert 4.4 <= second.at - first.at <= 8  # the contract's first retry, 5 s (with jitter)
        log = wait_log(admin, qpath, lambda log: log[0]["status"] == "delivered")
        assert (log[0]["status"], log[0]["attempts"], log[0]["last_status_code"]) == ("delivered", 2, 200)
        detail = admin.get(f"{qpath}/webhook/deliveries/{log[0]['id']}").json()
        assert [a["status_code"] for a in detail["attempt_log"]] == [500, 200]
        assert detail["attempt_log"][0]["error"] == "the receiver answered 500"
        assert all(a["duration_ms"] >= 0 for a in detail["attempt_log"])
    finally:
        receiver.stop()


def test_410_stops_at_once_and_redeliver_sends_again(admin, worker, org_id) -> None:
    receiver = Receiver(answer=lambda n: (410 if n == 0 else 204, 0.0)).start()
    try:
        qpath = hooked_queue(admin, org_id, receiver.url)
        complete_one(admin, worker, qpath)
        receiver.wait_for(1)
        log = wait_log(admin, qpath, lambda log: log[0]["status"] == "failed")
        assert (log[0]["status"], log[0]["attempts"], log[0]["next_attempt_at"]) == ("failed", 1, None)
        time.sleep(6)  # past the first retry time: nothing more was sent
        assert len(receiver.received) == 1
        again = admin.post(f"{qpath}/webhook/deliveries/{log[0]['id']}/redeliver")
        assert again.status_code == 200 and again.json()["status"] == "pending"
        second = receiver.wait_for(2)[1]
        assert second.headers["webhook-id"] == log[0]["event_id"]
        log = wait_log(admin, qpath, lambda log: log[0]["status"] == "delivered")
        assert (log[0]["status"], log[0]["attempts"], log[0]["last_status_code"]) == ("delivered", 2, 204)
    finally:
        receiver.stop()


def test_a_changed_webhook_does_not_redirect_queued_deliveries(admin, worker, org_id) -> None:
    first = Receiver()  # not started yet: the first attempt fails
    qpath = hooked_queue(admin, org_id, first.url)
    complete_one(admin, worker, qpath)
    wait_log(admin, qpath, lambda log: log and log[0]["attempts"] == 1)
    second = Receiver().start()
    first.start()
    try:
        admin.put(f"{qpath}/webhook", json={"target": second.url})
        first.wait_for(1, timeout=15)
        log = wait_log(admin, qpath, lambda log: log[0]["status"] == "delivered")
        assert log[0]["target"] == first.url and log[0]["status"] == "delivered"
        assert second.received == []
    finally:
        first.stop()
        second.stop()


def test_rotation_signs_with_both_secrets(admin, worker, org_id, receiver) -> None:
    qpath = hooked_queue(admin, org_id, receiver.url)
    old = admin.get(f"{qpath}/webhook/secret").json()["secret"]
    new = admin.post(f"{qpath}/webhook/secret/rotate").json()["secret"]
    assert new != old and new.startswith("whsec_")
    assert admin.get(f"{qpath}/webhook/secret").json()["secret"] == new
    complete_one(admin, worker, qpath)
    (request,) = receiver.wait_for(1)
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    Webhook(new).verify(request.body, request.headers)
    Webhook(old).verify(request.body, request.headers)


def test_never_answering_receiver_does_not_stall_other_queues(admin, worker, org_id, backend) -> None:
    sqlite_only(backend, "the attempt's timeout is the dispatcher's HTTP side, the same on both")
    stuck = Receiver(answer=lambda _n: (200, 25.0)).start()
    healthy = Receiver().start()
    try:
        stuck_path = hooked_queue(admin, org_id, stuck.url)
        healthy_path = hooked_queue(admin, org_id, healthy.url)
        complete_one(admin, worker, stuck_path)
        stuck.wait_for(1)
        started = time.monotonic()
        for i in range(5):
            complete_one(admin, worker, healthy_path, f"meanwhile {i}")
        healthy.wait_for(5, timeout=5)
        assert time.monotonic() - started < 5
        log = wait_log(admin, stuck_path, lambda log: log[0]["attempts"] == 1, timeout=20)
        elapsed = time.monotonic() - started
        assert log[0]["status"] == "pending" and log[0]["last_error"] == "no answer within 15 s"
        assert elapsed < 20
        detail = admin.get(f"{stuck_path}/webhook/deliveries/{log[0]['id']}").json()
        assert 14_500 <= detail["attempt_log"][0]["duration_ms"] <= 17_000
    finally:
        stuck.stop()
        healthy.stop()


# --- crashes: a server of our own, killed with SIGKILL ----------------------------------------------


def _own_server(tmp_path: Path, backend: str, port: int | None = None) -> ServerProcess:
    server = ServerProcess(
        tmp_path / "crash.db", ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend
    )
    if port is not None:
        server.port = port
    return server.start()


def test_receiver_down_then_server_killed_the_event_still_arrives(tmp_path: Path, backend: str) -> None:
    receiver = Receiver()  # down
    server = _own_server(tmp_path, backend)
    admin, worker = server.client("admin"), server.client("worker")
    qpath = hooked_queue(admin, 1, receiver.url)
    task = complete_one(admin, worker, qpath)
    wait_log(admin, qpath, lambda log: log and log[0]["attempts"] == 1)
    server.stop(signal.SIGKILL)
    receiver.start()
    restarted = _own_server(tmp_path, backend)
    try:
        (request,) = receiver.wait_for(1, timeout=20)
        assert json.loads(request.body) == task
        with restarted.client("admin") as again:
            log = wait_log(again, qpath, lambda log: log[0]["status"] == "delivered")
        assert log[0]["status"] == "delivered" and log[0]["attempts"] == 2
    finally:
        restarted.stop()
        receiver.stop()


def test_kill_during_an_attempt_delivers_at_least_once_never_falsely(tmp_path: Path, backend: str) -> None:
    receiver = Receiver(answer=lambda n: (200, 3.0 if n == 0 else 0.0)).start()
    server = _own_server(tmp_path, backend)
    admin, worker = server.client("admin"), server.client("worker")
    qpath = hooked_queue(admin, 1, receiver.url)
    complete_one(admin, worker, qpath)
    receiver.wait_for(1)  # the attempt is in flight now
    server.stop(signal.SIGKILL)
    restarted = _own_server(tmp_path, backend)
    try:
        with restarted.client("admin") as again:
            received = receiver.wait_for(2, timeout=20)
            assert received[0].headers["webhook-id"] == received[1].headers["webhook-id"]
            log = wait_log(again, qpath, lambda log: log[0]["status"] == "delivered")
            detail = again.get(f"{qpath}/webhook/deliveries/{log[0]['id']}").json()
        assert log[0]["status"] == "delivered"
        # The killed attempt left no record; only the answered one counts, so "delivered" means a 2xx.
        assert [a["status_code"] for a in detail["attempt_log"]] == [200]
        assert detail["attempts"] == 1 and detail["last_status_code"] == 200
    finally:
        restarted.stop()
        receiver.stop()


def test_graceful_stop_lets_the_attempt_in_flight_finish(tmp_path: Path, backend: str) -> None:
    receiver = Receiver(answer=lambda _n: (200, 2.0)).start()
    server = _own_server(tmp_path, backend)
    admin, worker = server.client("admin"), server.client("worker")
    qpath = hooked_queue(admin, 1, receiver.url)
    complete_one(admin, worker, qpath)
    receiver.wait_for(1)
    server.stop(signal.SIGTERM)
    restarted = _own_server(tmp_path, backend)
    try:
        with restarted.client("admin") as again:
            log = again.get(f"{qpath}/webhook/deliveries").json()["deliveries"]
        assert (log[0]["status"], log[0]["attempts"]) == ("delivered", 1)
        time.sleep(1)
        assert len(receiver.received) == 1
    finally:
        restarted.stop()
        receiver.stop()


# --- the SSRF guard -----------------------------------------------------------------------------------

BLOCKED_TARGETS = [
    "http://127.0.0.1:9000/hook",
    "http://localhost:9000/hook",
    "http://10.1.2.3/hook",
    "http://172.16.0.1/hook",
    "http://192.168.1.10/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:10.0.0.1]/hook",
    "http://[fc00::1]/hook",
    "http://[fd12:3456::1]/hook",
    "http://[fe80::1]/hook",
    "http://224.0.0.1/hook",
]


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory, backend):
    """A server without --allow-private-webhooks. Seed files are trusted, so its seed can give
    queues loopback and private targets: the send-time check is all that stands in their way."""
    receiver = Receiver().start()
    seed = json.loads(json.dumps(ROLES_SEED))
    queues = seed["organizations"][0]["queues"]
    queues[0]["webhook"] = f"http://localhost:{receiver.port}/hook"
    template = queues[0]
    for index, target in enumerate(BLOCKED_TARGETS):
        queues.append({**template, "name": f"blocked {index}", "webhook": target})
    server = ServerProcess(tmp_path_factory.mktemp("guard") / "guard.db", seed=seed, backend=backend).start()
    yield server, receiver
    server.stop()
    receiver.stop()


@pytest.mark.parametrize("target", BLOCKED_TARGETS)
def test_non_public_targets_are_refused_when_set(guarded_server, target: str) -> None:
    server, _receiver = guarded_server
    with server.client("admin") as admin:
        response = admin.put("/orgs/1/queues/1/webhook", json={"target": target})
        assert response.status_code == 400, response.text
        error = response.json()["errors"][0]
        assert (error["code"], error["field"]) == ("invalid_value", "target")
        assert "not a public address" in error["message"] and "--allow-private-webhooks" in error["message"]
        assert admin.get("/orgs/1/queues/1/webhook").json()["target"].startswith("http://localhost:")


def test_a_public_target_is_accepted(guarded_server) -> None:
    server, _receiver = guarded_server
    with server.client("admin") as admin:
        queue = make_queue(admin, 1)
        path = f"/orgs/1/queues/{queue['id']}/webhook"
        assert admin.put(path, json={"target": "https://93.184.215.14/hook"}).status_code == 200
        assert admin.get(path).json() == {"target": "https://93.184.215.14/hook"}


def test_a_name_resolving_to_loopback_is_blocked_at_send_time(guarded_server) -> None:
    server, receiver = guarded_server
    with server.client("admin") as admin, server.client("worker") as worker:
        qpath = "/orgs/1/queues/1"
        task = worker.post(f"{qpath}/tasks/next").json()
        worker.post(
            f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "blue"}}
        ).raise_for_status()
        log = wait_log(admin, qpath, lambda log: log and log[0]["attempts"] == 1)
    assert log[0]["status"] == "pending"
    assert log[0]["last_status_code"] is None
    assert log[0]["last_error"].startswith("blocked:") and "not a public address" in log[0]["last_error"]
    assert "127.0.0.1" not in log[0]["last_error"]  # what the name resolved to is not told
    time.sleep(0.5)
    assert receiver.received == []


@pytest.mark.parametrize("index", range(len(BLOCKED_TARGETS)), ids=BLOCKED_TARGETS)
def test_non_public_targets_are_blocked_at_send_time(guarded_server, index: int) -> None:
    server, _receiver = guarded_server
    qpath = f"/orgs/1/queues/{index + 2}"  # after the seed's first queue
    with server.client("admin") as admin, server.client("worker") as worker:
        assert admin.get(qpath).json()["name"] == f"blocked {index}"
        task = worker.post(f"{qpath}/tasks/next").json()
        worker.post(
            f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
        ).raise_for_status()
        log = wait_log(admin, qpath, lambda log: log and log[0]["attempts"] == 1)
    assert (log[0]["status"], log[0]["target"], log[0]["last_status_code"]) == (
        "pending",
        BLOCKED_TARGETS[index],
        None,
    )
    assert log[0]["last_error"].startswith("blocked:")


def test_redirects_are_not_followed(admin, worker, org_id) -> None:
    elsewhere = Receiver().start()
    redirecting = Receiver(answer=lambda _n: (307, 0.0), location=elsewhere.url).start()
    try:
        qpath = hooked_queue(admin, org_id, redirecting.url)
        complete_one(admin, worker, qpath)
        log = wait_log(admin, qpath, lambda log: log and log[0]["attempts"] == 1)
        assert (log[0]["status"], log[0]["last_status_code"]) == ("pending", 307)
        assert log[0]["last_error"] == "the receiver answered 307"
        time.sleep(0.3)
        assert elsewhere.received == []
    finally:
        redirecting.stop()
        elsewhere.stop()


def test_delivery_log_pages_newest_first(admin, worker, org_id, receiver) -> None:
    qpath = hooked_queue(admin, org_id, receiver.url)
    tasks = [complete_one(admin, worker, qpath, f"p{i}")["id"] for i in range(3)]
    receiver.wait_for(3)
    first = admin.get(f"{qpath}/webhook/deliveries", params={"limit": 2}).json()
    assert list(first) == ["next", "previous", "count", "deliveries"]
    assert first["count"] == 3 and first["previous"] is None
    assert [d["task_id"] for d in first["deliveries"]] == tasks[::-1][:2]
    assert list(first["deliveries"][0]) == [
        "id", "event_id", "type", "task_id", "target", "status", "attempts", "last_status_code",
        "last_error", "next_attempt_at", "created_at", "delivered_at",
    ]  # fmt: skip
    assert {d["type"] for d in first["deliveries"]} == {"task.completed"}
    second = httpx.get(first["next"], headers=admin.headers).json()
    assert [d["task_id"] for d in second["deliveries"]] == [tasks[0]] and second["next"] is None


def test_three_hundred_completions_across_ten_queues_arrive_exactly_once(backend: str) -> None:
    """bench/webhook_delivery.py's run, shorter (its 1,000 and 10,000 are in bench/README.md)."""
    sqlite_only(
        backend, "the benchmark starts its own SQLite server; test_postgres delivers across processes"
    )
    from bench.webhook_delivery import run

    figures = run(completions=300, queue_count=10, workers=6)  # asserts every id arrives once
    assert figures["duplicates"] == 0
    assert figures["completions"] == 300
