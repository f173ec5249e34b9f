"""`queuedesk backup` and `queuedesk restore` on SQLite, against a real server doing real work.

PostgreSQL is backed up with pg_dump; these commands only print how (checked here too).
"""

import copy
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from queuedesk.server.store.schema import LATEST
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, run_cli

WORKERS = 16
TASKS = 4000


def seed_with_workers() -> dict:
    seed = copy.deepcopy(ROLES_SEED)
    acme = seed["organizations"][0]
    acme["users"] += [
        {
            "email": f"w{i}@acme.test",
            "name": f"W{i}",
            "role": "worker",
            "api_key": f"acme-w{i:02d}-0123456789abcdef",
        }
        for i in range(WORKERS)
    ]
    acme["queues"][0]["tasks"] = [{"data": {"paragraph": f"report {i}"}} for i in range(TASKS)]
    return seed


@pytest.fixture(scope="module")
def busy_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    sqlite_only(backend, "backup and restore copy SQLite files; PostgreSQL uses pg_dump")
    db_path = tmp_path_factory.mktemp("backup") / "queuedesk.db"
    process = ServerProcess(db_path, seed=seed_with_workers()).start()
    yield process
    process.stop()


def integrity(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]


def change(path: Path, *statements: str) -> None:
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()


def completed_ids(path: Path) -> set[int]:
    with closing(sqlite3.connect(path)) as conn:
        return {row[0] for row in conn.execute("SELECT id FROM tasks WHERE status = 'completed'")}


def test_a_backup_taken_while_16_workers_complete_tasks_restores_whole(
    busy_server: ServerProcess, tmp_path: Path
) -> None:
    org = busy_server.client("admin").get("/me").json()["organization_id"]
    qpath = f"/orgs/{org}/queues/1"
    acknowledged: list[tuple[float, int]] = []  # (when the 200 arrived, task id)
    failures: list[str] = []
    stop = threading.Event()

    def work(number: int) -> None:
        headers = {"Authorization": f"Token acme-w{number:02d}-0123456789abcdef"}
        with httpx.Client(base_url=busy_server.url, headers=headers, timeout=30) as client:
            while not stop.is_set():
                claimed = client.post(f"{qpath}/tasks/next")
                if claimed.status_code == 204:
                    return
                task_id = claimed.json()["id"]
                done = client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
                if done.status_code != 200:
                    failures.append(done.text)
                    return
                acknowledged.append((time.monotonic(), task_id))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    try:
        while len(acknowledged) < 200 and not failures:
            time.sleep(0.01)
        backup = tmp_path / "taken-while-working.db"
        began = time.monotonic()
        made = run_cli(["backup", str(backup), "--db", busy_server.db_url])
        ended = time.monotonic()
        time.sleep(0.2)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert made.returncode == 0, made.stdout + made.stderr
    assert not failures, failures[:3]
    before = {task_id for at, task_id in acknowledged if at < began}
    during = [task_id for at, task_id in acknowledged if began <= at <= ended]
    assert len(before) >= 200 and during, "the workers must have been completing tasks while the backup ran"
    assert "integrity ok" in made.stdout and "tasks" in made.stdout

    restored = tmp_path / "restored.db"
    done = run_cli(["restore", str(backup), "--db", f"sqlite:///{restored}"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert integrity(restored) == ["ok"]
    missing = before - completed_ids(restored)
    assert not missing, f"{len(missing)} tasks acknowledged before the backup began are not in it"
    doctor = run_cli(["doctor", "--db", f"sqlite:///{restored}"])
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr  # the counters came with their tasks


def test_backup_refuses_to_overwrite_without_force(busy_server: ServerProcess, tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    target.write_text("precious")
    refused = run_cli(["backup", str(target), "--db", busy_server.db_url])
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert target.read_text() == "precious"
    forced = run_cli(["backup", str(target), "--db", busy_server.db_url, "--force"])
    assert forced.returncode == 0, forced.stderr
    assert integrity(target) == ["ok"]


def test_restore_refuses_a_running_servers_database(busy_server: ServerProcess, tmp_path: Path) -> None:
    backup = tmp_path / "b.db"
    assert run_cli(["backup", str(backup), "--db", busy_server.db_url]).returncode == 0
    change(backup, "DELETE FROM tasks")  # so a restore that went through would show
    size_before = busy_server.db_path.stat().st_size
    with busy_server.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        n_tasks_before = admin.get(f"/orgs/{org}/queues/1").json()["n_tasks"]
    assert n_tasks_before > 0
    refused = run_cli(["restore", str(backup), "--db", busy_server.db_url])
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "in use by another process" in refused.stderr and "stop the server" in refused.stderr
    assert busy_server.db_path.stat().st_size == size_before
    assert not list(busy_server.db_path.parent.glob("*.replaced-*"))
    with busy_server.client("admin") as admin:
        # The module's other tests complete tasks in any order: what must not change is what is there.
        assert admin.get(f"/orgs/{org}/queues/1").json()["n_tasks"] == n_tasks_before


def test_restore_refuses_a_newer_schema_and_touches_nothing(
    busy_server: ServerProcess, tmp_path: Path
) -> None:
    backup = tmp_path / "future.db"
    assert run_cli(["backup", str(backup), "--db", busy_server.db_url]).returncode == 0
    change(backup, f"UPDATE schema_version SET version = {LATEST + 1}")
    target = tmp_path / "target.db"
    refused = run_cli(["restore", str(backup), "--db", f"sqlite:///{target}"])
    assert refused.returncode == 2
    assert f"schema version {LATEST + 1}, newer than this QueueDesk knows ({LATEST})" in refused.stderr
    assert not target.exists()
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    assert run_cli(["restore", str(corrupt), "--db", f"sqlite:///{target}"]).returncode == 2
    assert not target.exists()


def test_restore_upgrades_an_older_backup_and_keeps_what_it_replaced(
    busy_server: ServerProcess, tmp_path: Path
) -> None:
    backup = tmp_path / "old.db"
    assert run_cli(["backup", str(backup), "--db", busy_server.db_url]).returncode == 0
    # Back to schema 5: no pending counter yet.
    change(backup, "ALTER TABLE queues DROP COLUMN n_tasks", "UPDATE schema_version SET version = 5")
    target = tmp_path / "stopped.db"
    with closing(sqlite3.connect(busy_server.db_path)) as live, closing(sqlite3.connect(target)) as stopped:
        live.backup(stopped)  # a stopped server's database
    tasks_before = len(completed_ids(target))
    done = run_cli(["restore", str(backup), "--db", f"sqlite:///{target}"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"schema version 5, upgraded to {LATEST}" in done.stdout
    (kept,) = tmp_path.glob("stopped.db.replaced-*")
    assert f"kept as {kept}" in done.stdout
    assert integrity(kept) == ["ok"] and len(completed_ids(kept)) == tasks_before
    with closing(sqlite3.connect(target)) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == LATEST
    doctor = run_cli(["doctor", "--db", f"sqlite:///{target}"])
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr  # n_tasks recounted by the upgrade
    again = run_cli(["restore", str(backup), "--db", f"sqlite:///{target}", "--no-keep"])
    assert again.returncode == 0 and "kept" not in again.stdout
    assert len(list(tmp_path.glob("stopped.db.replaced-*"))) == 1


def test_postgresql_is_told_to_use_pg_dump(backend: str, tmp_path: Path) -> None:
    sqlite_only(backend, "no database is opened: once is enough")
    url = "postgresql://qd:secret@db.internal:5432/queuedesk"
    told = run_cli(["backup", str(tmp_path / "qd.dump"), "--db", url])
    assert told.returncode == 2
    assert (
        f"pg_dump --format=custom --file={tmp_path / 'qd.dump'} postgresql://qd@db.internal:5432/queuedesk"
        in told.stderr
    )
    assert "secret" not in told.stderr and "PGPASSWORD" in told.stderr
    restoring = run_cli(["restore", str(tmp_path / "qd.dump"), "--db", url])
    assert restoring.returncode == 2 and "pg_restore --clean --if-exists" in restoring.stderr
