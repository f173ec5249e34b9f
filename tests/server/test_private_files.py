"""The database, its WAL and backups are readable by their owner alone whatever the umask; a killed
backup's partial copy does not outlive the next run; a restore takes only a whole QueueDesk schema."""

import os
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from queuedesk.server.store.schema import LATEST
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, run_cli


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The loosest usual umask, inherited by the server and the commands the test starts."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.fixture
def served(backend: str, tmp_path: Path, open_umask: None) -> Iterator[ServerProcess]:
    sqlite_only(backend, "file permissions of the SQLite database")
    database = tmp_path / "data" / "queuedesk.db"  # a directory the server makes
    server = ServerProcess(tmp_path / "qd.db", seed=ROLES_SEED, database_url=f"sqlite:///{database}").start()
    yield server
    server.stop()


def test_the_data_directory_database_and_wal_are_private(served: ServerProcess, tmp_path: Path) -> None:
    with served.client("admin") as admin:  # a write, so that the WAL holds something
        org = admin.get("/me").json()["organization_id"]
        assert admin.post(f"/orgs/{org}/queues/1/tasks/create", json={"data": {"paragraph": "x"}}).is_success
    database = tmp_path / "data" / "queuedesk.db"
    assert mode(database.parent) == 0o700
    assert mode(database) == 0o600
    for companion in ("-wal", "-shm"):
        assert mode(Path(f"{database}{companion}")) == 0o600, companion


def test_a_backup_is_private(served: ServerProcess, tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    done = run_cli(["backup", str(target), "--db", served.db_url])
    assert done.returncode == 0, done.stderr
    assert mode(target) == 0o600


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_killed_backups_partial_copy_is_removed_by_the_next_run(
    served: ServerProcess, tmp_path: Path
) -> None:
    target = tmp_path / "copy.db"
    leftover = tmp_path / f".copy.db.partial-{_dead_pid()}"  # what a backup killed mid-copy leaves
    leftover.write_bytes(b"SQLite format 3\x00" + b"\x00" * 4096)
    Path(f"{leftover}-journal").write_bytes(b"\x00" * 512)
    done = run_cli(["backup", str(target), "--db", served.db_url])
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".copy")) == []


def _backup_of(served: ServerProcess, tmp_path: Path, *statements: str) -> Path:
    backup = tmp_path / "b.db"
    assert run_cli(["backup", str(backup), "--db", served.db_url]).returncode == 0
    with closing(sqlite3.connect(backup)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    return backup


@pytest.mark.parametrize(
    "damage",
    [
        "DROP TABLE delivery_attempts",
        "ALTER TABLE tasks DROP COLUMN source",
        "DROP INDEX ix_tasks_queue_completed",
        "DROP TRIGGER qd_rollup_update",
        "DROP TRIGGER qd_access_users_update",
    ],
)
def test_restore_refuses_a_backup_without_the_whole_schema(
    served: ServerProcess, tmp_path: Path, damage: str
) -> None:
    backup = _backup_of(served, tmp_path, "PRAGMA foreign_keys=OFF", damage)
    target = tmp_path / "target.db"
    refused = run_cli(["restore", str(backup), "--db", f"sqlite:///{target}"])
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "does not hold QueueDesk's schema" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert not target.exists()


def test_restore_refuses_a_file_with_only_a_version(served: ServerProcess, tmp_path: Path) -> None:
    backup = tmp_path / "bare.db"
    with closing(sqlite3.connect(backup)) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER)")
        conn.execute(f"INSERT INTO schema_version VALUES ({LATEST})")
        conn.execute("CREATE TABLE tasks (id INTEGER)")
        conn.commit()
    target = tmp_path / "target.db"
    refused = run_cli(["restore", str(backup), "--db", f"sqlite:///{target}"])
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "does not hold QueueDesk's schema" in refused.stderr
    assert not target.exists()
