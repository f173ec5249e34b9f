"""Webhooks round 3: supervisors never see a target's password; a refusal never says what a name
resolved to; test pings held by a tarpit never hold up deliveries."""

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import KEYS, ROLES_SEED, ServerProcess, assert_envelope

SECRET_TARGET = "http://hook-user:hunter2@127.0.0.1:9/hook"
MASKED_TARGET = "http://hook-user:***@127.0.0.1:9/hook"


def test_a_supervisor_sees_the_target_and_its_deliveries_with_the_password_masked(
    clients: dict[str, httpx.Client], org_id: int
) -> None:
    admin, supervisor, worker = clients["admin"], clients["supervisor"], clients["worker"]
    base = f"/orgs/{org_id}/queues/{make_queue(admin, org_id)['id']}"
    assert admin.put(f"{base}/webhook", json={"target": SECRET_TARGET}).status_code == 200
    admin.post(f"{base}/tasks/create", json={"data": {"paragraph": "p"}})
    worker.post(f"{base}/tasks/next")
    task = worker.get(f"{base}/tasks").json()["tasks"][0]["id"]
    assert worker.post(f"{base}/tasks/{task}/complete", json={"data": {"category": "red"}}).status_code == 200

    assert admin.get(f"{base}/webhook").json() == {"target": SECRET_TARGET}
    assert supervisor.get(f"{base}/webhook").json() == {"target": MASKED_TARGET}
    (delivery,) = supervisor.get(f"{base}/webhook/deliveries").json()["deliveries"]
    assert delivery["target"] == MASKED_TARGET
    assert supervisor.get(f"{base}/webhook/deliveries/{delivery['id']}").json()["target"] == MASKED_TARGET
    assert "hunter2" not in supervisor.get(f"{base}/webhook/deliveries").text
    assert admin.get(f"{base}/webhook/deliveries").json()["deliveries"][0]["target"] == SECRET_TARGET


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[ServerProcess]:
    server = ServerProcess(
        tmp_path_factory.mktemp("guarded") / "g.db", seed=ROLES_SEED, backend=backend
    ).start()
    yield server
    server.stop()


def test_a_refusal_does_not_say_what_the_name_resolved_to(guarded: ServerProcess) -> None:
    target = "http://localhost:8080/hook"
    with guarded.client("admin") as admin:
        body = assert_envelope(
            admin.put("/orgs/1/queues/1/webhook", json={"target": target}), 400, "invalid_value", "target"
        )
    message = body["errors"][0]["message"]
    assert "not a public address" in message and "--allow-private-webhooks" in message
    assert "127.0.0.1" not in message.replace(target, "") and "::1" not in message


@pytest.mark.parametrize(
    "target", ["http://192.0.0.8/hook", "http://192.0.0.9/", "http://192.88.99.1/", "http://[3fff::1]/"]
)
def test_iana_blocks_that_are_not_globally_reachable_are_refused(guarded: ServerProcess, target: str) -> None:
    with guarded.client("admin") as admin:
        body = assert_envelope(
            admin.put("/orgs/1/queues/1/webhook", json={"target": target}), 400, "invalid_value", "target"
        )
    assert "not a public address" in body["errors"][0]["message"]


class Tarpit:
    """Accepts connections and never answers; counts the ones still open."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def _accept(self) -> None:
        self.listener.settimeout(0.2)
        while not self._stop.is_set():
            try:
                self.held.append(self.listener.accept()[0])
            except TimeoutError:
                continue

    def closed_by_the_server(self) -> int:
        closed = 0
        for sock in list(self.held):
            try:
                closed += sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        return closed

    def stop(self) -> None:
        self._stop.set()
        self._accepting.join()  # before the listener closes under its accept
        for sock in self.held:
            sock.close()
        self.listener.close()


def _ping_many(url: str, path: str, count: int) -> None:
    async def main() -> None:
        headers = {"Authorization": f"Token {KEYS['admin']}"}
        limits = httpx.Limits(max_connections=count)
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits) as client:
            await asyncio.gather(*(client.post(path) for _ in range(count)), return_exceptions=True)

    asyncio.run(main())


def test_pings_held_by_a_tarpit_do_not_hold_up_deliveries(tmp_path, backend: str) -> None:
    """230 pings to a receiver that never answers (each held up to 15 s): a delivery to another
    queue's receiver still goes out while they are held."""
    server = ServerProcess(
        tmp_path / "p.db",
        ["--allow-private-webhooks", "--rate-limit", "off"],
        seed=ROLES_SEED,
        backend=backend,
    ).start()
    tarpit, receiver = Tarpit(), Receiver().start()
    try:
        with server.client("admin") as admin, server.client("worker") as worker:
            stuck = f"/orgs/1/queues/{make_queue(admin, 1)['id']}"
            served = f"/orgs/1/queues/{make_queue(admin, 1)['id']}"
            assert admin.put(
                f"{stuck}/webhook", json={"target": f"http://127.0.0.1:{tarpit.port}/"}
            ).is_success
            assert admin.put(f"{served}/webhook", json={"target": receiver.url}).is_success
            pings = threading.Thread(target=_ping_many, args=(server.url, f"{stuck}/webhook/test", 230))
            pings.start()
            deadline = time.monotonic() + 10
            while len(tarpit.held) < 8 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(tarpit.held) >= 8
            admin.post(f"{served}/tasks/create", json={"data": {"paragraph": "p"}})
            task = worker.post(f"{served}/tasks/next").json()["id"]
            assert worker.post(
                f"{served}/tasks/{task}/complete", json={"data": {"category": "red"}}
            ).is_success
            receiver.wait_for(1, timeout=30)
            # Every ping's connection is still held (each lasts 15 s): the delivery did not wait for them.
            assert tarpit.closed_by_the_server() == 0
            tarpit.stop()  # the pings' connections close: they end now, not after their 15 s
            pings.join(timeout=60)
            assert not pings.is_alive()
    finally:
        tarpit.stop()
        receiver.stop()
        server.stop()


@pytest.mark.parametrize(
    ("target", "shown"),
    [
        ("http://tok3n-user-only@127.0.0.1:9/hook", "http://***@127.0.0.1:9/hook"),
        (
            "http://127.0.0.1:9/hook?token=tok3n-query&channel=ops",
            "http://127.0.0.1:9/hook?token=***&channel=***",
        ),
    ],
)
def test_a_token_as_user_name_or_query_value_is_masked_for_supervisors_and_in_the_audit_log(
    clients: dict[str, httpx.Client], org_id: int, target: str, shown: str
) -> None:
    """Issue 43, finding 9: only `user:password@` was masked; a token as the user name or in the query
    was shown to supervisors (A6, B10) and written into the audit log as set."""
    admin, supervisor, worker = clients["admin"], clients["supervisor"], clients["worker"]
    queue = make_queue(admin, org_id)
    base = f"/orgs/{org_id}/queues/{queue['id']}"
    assert admin.put(f"{base}/webhook", json={"target": target}).status_code == 200
    admin.post(f"{base}/tasks/create", json={"data": {"paragraph": "p"}})
    task = worker.post(f"{base}/tasks/next").json()["id"]
    assert worker.post(f"{base}/tasks/{task}/complete", json={"data": {"category": "red"}}).status_code == 200
    assert admin.delete(f"{base}/webhook").status_code == 200

    assert (
        admin.get(f"{base}/webhook/deliveries").json()["deliveries"][0]["target"] == target
    )  # admins see it
    seen = [supervisor.get(f"{base}/webhook/deliveries").text]
    (delivery,) = supervisor.get(f"{base}/webhook/deliveries").json()["deliveries"]
    assert delivery["target"] == shown
    seen.append(supervisor.get(f"{base}/webhook/deliveries/{delivery['id']}").text)
    events = admin.get(f"/orgs/{org_id}/audit", params={"queue_id": queue["id"], "limit": 100}).json()[
        "events"
    ]
    by_action = {event["action"]: event for event in events}
    assert by_action["webhook.set"]["detail"]["target"] == shown
    assert by_action["webhook.remove"]["detail"]["previous"] == shown
    seen.append(str(events))
    assert admin.put(f"{base}/webhook", json={"target": target}).status_code == 200
    assert supervisor.get(f"{base}/webhook").json() == {"target": shown}
    seen.append(supervisor.get(f"{base}/webhook").text)
    assert not [text for text in seen if "tok3n" in text]
