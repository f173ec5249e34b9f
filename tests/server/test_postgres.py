"""PostgreSQL: several `queuedesk serve` processes on one database, and the database going away."""

import asyncio
import json
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import POSTGRES_URL, ROLES_SEED, ServerProcess, run_cli
from tests.tcp_proxy import TcpProxy

TASKS = 400  # bench/README.md has longer runs; 400 is enough for three processes to race
WORKERS = 16


@pytest.fixture(autouse=True)
def _postgres_only(backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("about several processes on one PostgreSQL database")


def _cluster(tmp_path: Path, count: int) -> list[ServerProcess]:
    db = tmp_path / "shared.db"  # the same key, so the same PostgreSQL database for all
    first = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend="postgresql").start()
    rest = [
        ServerProcess(db, ["--allow-private-webhooks"], backend="postgresql").start()
        for _ in range(count - 1)
    ]
    return [first, *rest]


def _worker_keys(server: ServerProcess, count: int) -> list[str]:
    """Workers of their own, made over the API (a `keys create` process each costs a second)."""
    keys = []
    with server.client("admin") as admin:
        for n in range(count):
            person = {"email": f"pw{n}@acme.test", "name": f"Worker {n}", "role": "worker"}
            made = admin.post("/orgs/1/users", json=person)
            assert made.status_code == 200, made.text
            key = admin.post(f"/orgs/1/users/{made.json()['id']}/keys")
            assert key.status_code == 200, key.text
            keys.append(key.json()["key"])
    return keys


def _work_until_done(
    servers: list[ServerProcess], keys: list[str], qpath: str
) -> tuple[list[int], list[str]]:
    """Each worker claims and completes through its own process, moving to another when that one dies."""
    completed: list[int] = []
    problems: list[str] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        headers = {"Authorization": f"Token {keys[n]}"}
        choice = n % len(servers)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            url = servers[choice].url
            try:
                with httpx.Client(base_url=url, headers=headers, timeout=20) as client:
                    while True:
                        claim = client.post(f"{qpath}/tasks/next")
                        if claim.status_code == 204:
                            if claim.headers["X-Tasks-Held"] == "0":
                                return
                            time.sleep(0.2)  # tasks held by others (or by a dead process's clients)
                            continue
                        claim.raise_for_status()
                        task_id = claim.json()["id"]
                        done = client.post(
                            f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}
                        )
                        if (
                            done.status_code == 409
                            and done.json()["errors"][0]["code"] == "already_completed"
                        ):
                            continue  # completed by our request to a process that died before answering
                        done.raise_for_status()
                        with lock:
                            completed.append(task_id)
            except httpx.TransportError:
                choice = (choice + 1) % len(servers)  # that process is gone: use another
            except httpx.HTTPStatusError as exc:
                with lock:
                    problems.append(f"{exc.response.status_code} {exc.response.text}")
                return

    threads = [threading.Thread(target=work, args=(n,)) for n in range(len(keys))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return completed, problems


def _prepare(servers: list[ServerProcess], receiver: Receiver) -> tuple[str, list[int]]:
    with servers[0].client("admin") as admin:
        queue = make_queue(admin, 1)
        qpath = f"/orgs/1/queues/{queue['id']}"
        admin.put(f"{qpath}/webhook", json={"target": receiver.url}).raise_for_status()
        ids: list[int] = []
        for first in range(0, TASKS, 1000):
            batch = [{"data": {"paragraph": f"t{n}"}} for n in range(first, min(first + 1000, TASKS))]
            ids += admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": batch}).json()[
                "ids"
            ]
    return qpath, ids


def _arrivals(receiver: Receiver, expected: int, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (
        len({json.loads(r.body)["id"] for r in receiver.received}) < expected and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    time.sleep(1.0)  # let any duplicate show itself
    return [json.loads(r.body)["id"] for r in receiver.received]


def test_three_processes_complete_and_deliver_each_task_exactly_once(tmp_path: Path) -> None:
    receiver = Receiver().start()
    servers = _cluster(tmp_path, 3)
    try:
        qpath, ids = _prepare(servers, receiver)
        keys = _worker_keys(servers[0], WORKERS)
        completed, problems = _work_until_done(servers, keys, qpath)
        assert problems == []
        assert sorted(completed) == sorted(ids)  # every task once, none twice
        arrived = _arrivals(receiver, TASKS, timeout=60)
        assert sorted(arrived) == sorted(ids)  # every event once, none twice
        with servers[1].client("admin") as admin:
            assert admin.get(f"{qpath}/tasks/completed", params={"limit": 1}).json()["count"] == TASKS
            log = admin.get(f"{qpath}/webhook/deliveries", params={"limit": 1}).json()
        assert log["count"] == TASKS
    finally:
        for server in servers:
            server.stop()
        receiver.stop()


def test_a_process_killed_mid_run_loses_no_task_and_no_event(tmp_path: Path) -> None:
    receiver = Receiver(answer=lambda _n: (200, 0.01)).start()
    servers = _cluster(tmp_path, 3)
    try:
        qpath, ids = _prepare(servers, receiver)
        keys = _worker_keys(servers[0], WORKERS)
        victim = servers[2]

        def kill_when_busy() -> None:
            while len(receiver.received) < TASKS // 4:
                time.sleep(0.01)
            victim.stop(signal.SIGKILL)

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        completed, problems = _work_until_done(servers, keys, qpath)
        killer.join()
        assert victim.process is not None and victim.process.returncode == -signal.SIGKILL
        assert problems == []
        assert len(completed) == len(set(completed))  # no task completed twice
        with servers[0].client("admin") as admin:
            history = admin.get(f"{qpath}/tasks/completed", params={"limit": 1}).json()
            assert history["count"] == TASKS
            assert admin.get(f"{qpath}/tasks").json()["count"] == 0
        # Events: at least once each, even those whose process died (claims of the dead come back).
        arrived = _arrivals(receiver, TASKS, timeout=90)
        assert set(arrived) == set(ids)
    finally:
        for server in servers:
            server.stop()
        receiver.stop()


def test_unreachable_database_at_start_exits_with_the_reason() -> None:
    result = run_cli(["serve", "--db", "postgresql://postgres@127.0.0.1:1/nowhere", "--port", "1"])
    assert result.returncode == 2
    assert "cannot reach the database postgresql+asyncpg://postgres@127.0.0.1:1/nowhere" in result.stderr
    assert "Traceback" not in result.stderr


def test_database_going_away_answers_503_and_recovers(tmp_path: Path) -> None:
    real = ServerProcess(tmp_path / "restart.db", backend="postgresql")
    database = real.db_url.rsplit("/", 1)[1]
    proxy = TcpProxy(int(POSTGRES_URL.rsplit(":", 1)[1].split("/")[0])).start()
    through_proxy = f"postgresql://postgres@127.0.0.1:{proxy.port}/{database}"
    server = ServerProcess(
        tmp_path / "restart.db", ["--db-pool-size", "4"], seed=ROLES_SEED, database_url=through_proxy
    )
    try:
        server.start()
        with server.client("admin") as admin:
            qpath = f"/orgs/1/queues/{make_queue(admin, 1)['id']}"
            assert (
                admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "before"}}).status_code == 200
            )
            proxy.stop()  # the database "restarts": every connection cut, new ones refused
            answers = [
                admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": f"during {n}"}})
                for n in range(3)
            ]
            health = admin.get("/healthz")
            for answer in [*answers, health]:
                assert answer.status_code == 503, answer.text
                body = answer.json()
                assert body["status_code"] == 503 and body["errors"][0]["code"] == "unavailable"
            proxy.start()  # back, on the same address
            deadline = time.monotonic() + 20
            while admin.get("/healthz").status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            after = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "after"}})
            assert after.status_code == 200
            pending = admin.get(f"{qpath}/tasks").json()
        # Nothing half-written: only the two creates that were answered 200 exist.
        assert [t["data"]["paragraph"] for t in pending["tasks"]] == ["before", "after"]
    finally:
        server.stop()
        proxy.stop()


def test_every_pooled_connection_busy_answers_503_with_retry_after(tmp_path: Path) -> None:
    """Requests that wait the pool's timeout (10 s) for a connection are told the server is busy
    and when to try again, not 500; the requests holding the connections finish as normal."""
    server = ServerProcess(
        tmp_path / "pool.db", ["--db-pool-size", "1"], seed=ROLES_SEED, backend="postgresql"
    )
    locked = threading.Event()
    release = threading.Event()

    async def hold_the_queues() -> None:
        import asyncpg

        conn = await asyncpg.connect(server.db_url.replace("+asyncpg", ""), timeout=5)
        try:
            async with conn.transaction():
                await conn.execute("LOCK TABLE queues IN ACCESS EXCLUSIVE MODE")
                locked.set()
                while not release.is_set():
                    await asyncio.sleep(0.05)
        finally:
            await conn.close()

    try:
        server.start()
        with server.client("admin") as admin:
            make_queue(admin, 1)
            assert admin.get("/orgs/1/queues").status_code == 200  # the caller known, the pool warm
            holder = threading.Thread(target=asyncio.run, args=(hold_the_queues(),))
            holder.start()
            assert locked.wait(10)
            answers: list[httpx.Response] = []

            def list_queues() -> None:
                with server.client("admin") as client:
                    client.timeout = httpx.Timeout(60)
                    answers.append(client.get("/orgs/1/queues"))

            # One pooled connection and two of overflow: three listings wait on the lock holding
            # them, the other two wait for a connection.
            listings = [threading.Thread(target=list_queues) for _ in range(5)]
            for thread in listings:
                thread.start()
            deadline = time.monotonic() + 30
            while len(answers) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            release.set()
            for thread in [*listings, holder]:
                thread.join(60)
        statuses = sorted(answer.status_code for answer in answers)
        assert statuses == [200, 200, 200, 503, 503], [a.text for a in answers]
        for busy in (a for a in answers if a.status_code == 503):
            assert busy.headers["Retry-After"] == "1"
            assert busy.json()["errors"][0]["code"] == "unavailable"
            assert "busy" in busy.json()["errors"][0]["message"]
    finally:
        release.set()
        server.stop()
