"""Task ids are never reused, on either database: receivers and journals key tasks by id, so a task
created after a flush must not get the id of one the flush deleted."""

import sqlite3
from pathlib import Path

import httpx

from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess
from tests.support.contract import assert_empty_200, body_of, create


def _flush_then_create(admin: httpx.Client, qpath: str) -> tuple[list[int], list[int]]:
    """The ids of the newest tasks of the database, flushed, and of the tasks made after."""
    flushed = [create(admin, qpath, paragraph=f"flushed {n}")["id"] for n in range(3)]
    assert_empty_200(admin.put(f"{qpath}/flush"))
    after = [create(admin, qpath, paragraph="after the flush")["id"]]
    imported = admin.post(
        f"{qpath}/tasks/import", json={"source": "manual", "tasks": [{"data": {"paragraph": "imported"}}] * 2}
    )
    after += body_of(imported)["ids"]
    return flushed, after


def test_tasks_created_after_a_flush_never_get_the_flushed_ids(admin, qpath) -> None:
    flushed, after = _flush_then_create(admin, qpath)
    assert min(after) > max(flushed), (flushed, after)


def _as_version_8(db: Path) -> None:
    """The tasks table as version 8 made it on SQLite (rowids without AUTOINCREMENT), no drafts."""
    with sqlite3.connect(db) as conn:
        made = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'tasks'").fetchone()[0]
        assert "AUTOINCREMENT" in made
        plain = made.replace(" AUTOINCREMENT", "").replace("CREATE TABLE tasks", "CREATE TABLE tasks_v8", 1)
        conn.executescript(
            f"""PRAGMA foreign_keys = OFF; {plain}; INSERT INTO tasks_v8 SELECT * FROM tasks;
            DROP TABLE tasks; ALTER TABLE tasks_v8 RENAME TO tasks;
            CREATE INDEX ix_tasks_queue_status_id ON tasks (queue_id, status, id);
            CREATE INDEX ix_tasks_queue_completed ON tasks (queue_id, completed_at, id);
            DROP TABLE task_drafts; UPDATE schema_version SET version = 8;"""
        )


def test_a_version_8_sqlite_database_keeps_its_ids_and_stops_reusing_them(
    tmp_path: Path, backend: str
) -> None:
    sqlite_only(backend, "PostgreSQL's sequences never reused ids")
    server = ServerProcess(tmp_path / "old.db", seed=ROLES_SEED, backend=backend).start()
    with server.client("admin") as admin:
        org = body_of(admin.get("/me"))["organization_id"]
        qpath = f"/orgs/{org}/queues/{body_of(admin.get(f'/orgs/{org}/queues'))[0]['id']}"
        kept = [create(admin, qpath, paragraph=f"kept {n}")["id"] for n in range(2)]
        before = body_of(admin.get(f"{qpath}/tasks"))["tasks"]
    server.stop()
    _as_version_8(server.db_path)
    server = ServerProcess(server.db_path, backend=backend, port=server.port).start()
    try:
        with server.client("admin") as admin:
            assert body_of(admin.get(f"{qpath}/tasks"))["tasks"] == before  # ids and values kept
            flushed, after = _flush_then_create(admin, qpath)
    finally:
        server.stop()
    assert min(flushed) > max(kept)
    assert min(after) > max(flushed), (flushed, after)
