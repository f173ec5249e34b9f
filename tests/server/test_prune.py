"""`queuedesk prune` and `serve --retain-deliveries` against a real server, on both databases.

The rows to prune are made old behind the server's back (their timestamps moved into the past),
as another program with a connection would; everything else goes over HTTP.
"""

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value, queuedesk_command, run_cli

DAY = 86_400 * 1_000_000  # microseconds
NOW = int(time.time() * 1_000_000)


@pytest.fixture(scope="module")
def prune_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own, so the counts it prunes are only this module's rows."""
    db_path = tmp_path_factory.mktemp(f"prune-{backend}") / "queuedesk.db"
    process = ServerProcess(db_path, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def admin_of(prune_server: ServerProcess) -> Iterator[httpx.Client]:
    client = prune_server.client("admin")
    yield client
    client.close()


@pytest.fixture(scope="module")
def org(admin_of: httpx.Client) -> int:
    return admin_of.get("/me").json()["organization_id"]


def insert_deliveries(
    db_url: str, queue_id: int, prefix: str, count: int, *, status: str, age_days: float, attempts: int = 1
) -> None:
    """`count` deliveries created `age_days` ago, each with `attempts` attempts made then. They are
    written pending (which no prune touches) and finished only once their attempts are in, so a
    running server's prune never sees one half-made. Pending ones are next due in ten days, so the
    dispatcher leaves them alone during the test."""
    created = NOW - int(age_days * DAY)
    execute_sql(
        db_url,
        "INSERT INTO deliveries (queue_id, task_id, event_id, target, payload, status, attempts, retry_step, "
        "next_attempt_at, created_at) "
        f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count}) "
        f"SELECT {queue_id}, 0, '{prefix}-' || i, 'http://127.0.0.1:9/hook', '{{}}', 'pending', {attempts}, 0, "
        f"{NOW + 10 * DAY}, {created} FROM n",
    )
    for attempt in range(attempts):
        execute_sql(
            db_url,
            "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms) "
            f"SELECT id, created_at + {attempt}, 500, 'the receiver answered 500', 3 FROM deliveries "
            f"WHERE event_id LIKE '{prefix}-%'",
        )
    if status != "pending":
        execute_sql(
            db_url,
            f"UPDATE deliveries SET status = '{status}', next_attempt_at = NULL WHERE event_id LIKE '{prefix}-%'",
        )


def count_rows(db_url: str, sql: str) -> int:
    return int(query_value(db_url, sql))


def prune(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = run_cli(["prune", "--db", db_url, *args], timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_dry_run_counts_then_finished_deliveries_go_with_their_attempts_and_pending_stay(
    prune_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    db = prune_server.db_url
    receiver = Receiver().start()
    try:
        queue = make_queue(admin_of, org)
        qpath = f"/orgs/{org}/queues/{queue['id']}"
        assert admin_of.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
        for i in range(2):  # two real deliveries, sent and logged by the server
            admin_of.post(f"{qpath}/tasks/create", json={"data": {"paragraph": f"p{i}"}}).raise_for_status()
            task = admin_of.post(f"{qpath}/tasks/next").json()
            done = admin_of.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
            assert done.status_code == 200, done.text
        receiver.wait_for(2)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            log = admin_of.get(f"{qpath}/webhook/deliveries").json()["deliveries"]
            if len(log) == 2 and all(d["status"] == "delivered" for d in log):
                break
            time.sleep(0.05)
    finally:
        receiver.stop()
    real = {d["id"] for d in admin_of.get(f"{qpath}/webhook/deliveries").json()["deliveries"]}
    assert len(real) == 2
    in_queue = f"SELECT id FROM deliveries WHERE queue_id = {queue['id']}"
    execute_sql(
        db,
        f"UPDATE delivery_attempts SET attempted_at = attempted_at - {40 * DAY} WHERE delivery_id IN ({in_queue})",
    )
    execute_sql(
        db, f"UPDATE deliveries SET created_at = created_at - {40 * DAY} WHERE queue_id = {queue['id']}"
    )
    insert_deliveries(db, queue["id"], "failed-old", 3, status="failed", age_days=45, attempts=2)
    insert_deliveries(db, queue["id"], "pending-old", 4, status="pending", age_days=60)
    insert_deliveries(db, queue["id"], "recent", 5, status="delivered", age_days=2)
    # Created long ago, but redelivered yesterday: its log is recent, so it stays.
    insert_deliveries(db, queue["id"], "redelivered", 1, status="delivered", age_days=50)
    execute_sql(
        db,
        "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms) "
        f"SELECT id, {NOW - DAY}, 200, NULL, 3 FROM deliveries WHERE event_id = 'redelivered-1'",
    )
    before_attempts = count_rows(db, "SELECT count(*) FROM delivery_attempts")

    dry = prune(db, "--deliveries-older-than", "30d", "--dry-run")
    assert re.search(r"created before \S+ \S+ UTC: 5 \(with 8 attempts\)", dry.stdout), dry.stdout
    assert "never pruned): 4" in dry.stdout and "dry run: nothing was removed" in dry.stdout
    assert count_rows(db, f"SELECT count(*) FROM deliveries WHERE queue_id = {queue['id']}") == 15
    assert count_rows(db, "SELECT count(*) FROM delivery_attempts") == before_attempts

    done = prune(db, "--deliveries-older-than", "30d")
    assert "removed 5 deliveries and 8 attempts in 1 batches" in done.stdout, done.stdout
    left = admin_of.get(f"{qpath}/webhook/deliveries", params={"limit": 100}).json()["deliveries"]
    assert not real & {d["id"] for d in left}
    assert sorted(d["event_id"].rsplit("-", 1)[0] for d in left) == ["pending-old"] * 4 + ["recent"] * 5 + [
        "redelivered"
    ]
    assert count_rows(db, "SELECT count(*) FROM delivery_attempts") == before_attempts - 8
    orphans = "SELECT count(*) FROM delivery_attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)"
    assert count_rows(db, orphans) == 0
    for gone in real:
        assert admin_of.get(f"{qpath}/webhook/deliveries/{gone}").status_code == 404
    execute_sql(db, f"DELETE FROM delivery_attempts WHERE delivery_id IN ({in_queue})")
    execute_sql(db, f"DELETE FROM deliveries WHERE queue_id = {queue['id']}")  # leave no old pending rows


def test_prune_goes_in_batches_while_the_server_answers(
    prune_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    db = prune_server.db_url
    queue = make_queue(admin_of, org)
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    insert_deliveries(db, queue["id"], "bulk", 3000, status="delivered", age_days=90, attempts=2)
    prune_run = subprocess.Popen(
        [*queuedesk_command(), "prune", "--db", db, "--deliveries-older-than", "30d", "--batch-size", "250"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    answered: list[int] = []
    worker = prune_server.client("worker")
    try:
        while prune_run.poll() is None:
            created = admin_of.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "during"}})
            claimed = worker.post(f"{qpath}/tasks/next")
            completed = worker.post(
                f"{qpath}/tasks/{claimed.json()['id']}/complete", json={"data": {"category": "blue"}}
            )
            listed = admin_of.get(f"/orgs/{org}/queues")
            answered += [r.status_code for r in (created, claimed, completed, listed)]
        out, err = prune_run.communicate(timeout=60)
    finally:
        worker.close()
        if prune_run.poll() is None:
            prune_run.kill()
    assert prune_run.returncode == 0, out + err
    assert "removed 3,000 deliveries and 6,000 attempts in 12 batches" in out, out
    assert answered and set(answered) == {200}, answered
    assert count_rows(db, f"SELECT count(*) FROM deliveries WHERE queue_id = {queue['id']}") == 0
    assert (
        count_rows(
            db, "SELECT count(*) FROM delivery_attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)"
        )
        == 0
    )
    assert admin_of.get(qpath).json()["n_tasks"] == 0
    assert run_cli(["doctor", "--db", db]).returncode == 0


def test_old_completed_tasks_go_and_the_counters_stay_right(
    prune_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    db = prune_server.db_url
    queue = make_queue(admin_of, org)
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"t{i}"}} for i in range(7)]}
    assert admin_of.post(f"{qpath}/tasks/import", json=body).status_code == 200
    completed = []
    for _ in range(5):
        task = admin_of.post(f"{qpath}/tasks/next").json()
        done = admin_of.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "green"}})
        assert done.status_code == 200, done.text
        completed.append(task["id"])
    old, kept = completed[:3], completed[3:]
    execute_sql(
        db,
        f"UPDATE tasks SET completed_at = completed_at - {400 * DAY}, created_at = created_at - {400 * DAY} "
        f"WHERE id IN ({', '.join(map(str, old))})",
    )
    assert admin_of.get(f"{qpath}/tasks/completed").json()["count"] == 5

    dry = prune(db, "--completed-older-than", "365d", "--dry-run")
    assert re.search(r"tasks completed before \S+ \S+ UTC: 3\n", dry.stdout), dry.stdout
    assert f"queue {queue['id']} {queue['name']!r}: 3" in dry.stdout
    assert admin_of.get(f"{qpath}/tasks/completed").json()["count"] == 5

    done = prune(db, "--completed-older-than", "365d", "--batch-size", "2")
    assert "removed 3 completed tasks in 2 batches" in done.stdout, done.stdout
    history = admin_of.get(f"{qpath}/tasks/completed").json()
    assert history["count"] == 2 and sorted(t["id"] for t in history["tasks"]) == sorted(kept)
    for gone in old:
        assert admin_of.get(f"{qpath}/tasks/{gone}").status_code == 404
    assert admin_of.get(qpath).json()["n_tasks"] == 2  # the pending tasks were never candidates
    doctor = run_cli(["doctor", "--db", db])
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr


def test_serve_retain_deliveries_prunes_inside_the_running_server(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUEUEDESK_RETENTION_EVERY", "0.3")
    server = ServerProcess(
        tmp_path / "retain.db", ["--retain-deliveries", "30d"], seed=ROLES_SEED, backend=backend
    ).start()
    try:
        with server.client("admin") as admin:
            org = admin.get("/me").json()["organization_id"]
            queue = make_queue(admin, org)
            insert_deliveries(server.db_url, queue["id"], "aged", 30, status="failed", age_days=31)
            insert_deliveries(server.db_url, queue["id"], "waiting", 2, status="pending", age_days=31)
            insert_deliveries(server.db_url, queue["id"], "young", 3, status="delivered", age_days=29)
            in_queue = f"SELECT count(*) FROM deliveries WHERE queue_id = {queue['id']}"
            deadline = time.monotonic() + 20
            while count_rows(server.db_url, in_queue) > 5 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert count_rows(server.db_url, in_queue) == 5, server.log()
            left = admin.get(f"/orgs/{org}/queues/{queue['id']}/webhook/deliveries").json()["deliveries"]
            assert sorted(d["event_id"].rsplit("-", 1)[0] for d in left) == ["waiting"] * 2 + ["young"] * 3
            assert count_rows(server.db_url, "SELECT count(*) FROM delivery_attempts") == 5
            time.sleep(0.5)  # later runs find nothing more to remove, and the server keeps answering
            assert count_rows(server.db_url, in_queue) == 5
            assert admin.get("/me").status_code == 200
    finally:
        server.stop()
    assert "retention: removed 30 deliveries (30 attempts)" in server.log()
