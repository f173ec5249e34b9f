"""Schema version 18 (B24, B25): a version 17 database gains the tasks' priority, due date, armed
due date, reservation and last release, the queues' claim order and overdue count, the staged rows'
three fields, the claim order's and the overdue job's indexes and the count's triggers — on both
databases, and a partial copy of the step is completed."""

from pathlib import Path

from queuedesk.server.store.overdue_counts import NO_DUE
from queuedesk.server.store.schema import LATEST
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value
from tests.support.contract import body_of

DROP_V18 = {
    "sqlite": [
        "DROP TRIGGER qd_overdue_delete",
        "DROP TRIGGER qd_overdue_update",
    ],
    "postgresql": [
        "DROP TRIGGER qd_overdue_delete ON tasks",
        "DROP TRIGGER qd_overdue_update ON tasks",
    ],
}
COMMON = [
    "DROP INDEX ix_tasks_claim_order",
    "DROP INDEX ix_tasks_due_armed",
    *(f"ALTER TABLE tasks DROP COLUMN {c}" for c in ("priority", "due_at", "due_armed", "reserved_for")),
    # released_by and released_until stay: a partial copy of the step made them already
    "ALTER TABLE queues DROP COLUMN claim_order",
    "ALTER TABLE queues DROP COLUMN n_overdue",
    *(f"ALTER TABLE import_rows DROP COLUMN {c}" for c in ("priority", "due_at", "reserved_for")),
    "UPDATE schema_version SET version = 17",
]


def test_the_upgrade_from_version_17_adds_priority_due_dates_and_reservations(
    tmp_path: Path, backend: str
) -> None:
    db = tmp_path / "v17.db"
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    with server.client("admin") as admin:
        qpath = "/orgs/1/queues/1"
        done = body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "older"}}))
    server.stop()
    for statement in [*DROP_V18[backend], *COMMON]:
        execute_sql(server.db_url, statement)
    # A task that was overdue before the upgrade cannot be: no due dates existed. Counted from rows.
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    try:
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST
        assert query_value(server.db_url, f"SELECT due_at FROM tasks WHERE id = {done['id']}") == NO_DUE
        assert query_value(server.db_url, "SELECT claim_order FROM queues WHERE id = 1") == "oldest"
        names = (
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'qd_overdue_%'"
            if backend == "sqlite"
            else "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'qd_overdue_%'"
        )
        assert query_value(server.db_url, names) == 2
        with server.client("admin") as admin:
            listed = body_of(admin.get(f"{qpath}/tasks"))["tasks"]
            assert {t["id"] for t in listed} >= {done["id"]}
    finally:
        server.stop()


FIRST_COPY = {  # what the first copy of version 18 made beside today's two triggers
    "sqlite": "CREATE TRIGGER qd_overdue_insert AFTER INSERT ON tasks WHEN 0 BEGIN SELECT 1; END",
    "postgresql": "CREATE TRIGGER qd_overdue_insert AFTER INSERT ON tasks FOR EACH ROW WHEN (false) "
    "EXECUTE FUNCTION qd_overdue()",
}


def test_a_database_of_the_first_version_18_gets_todays_triggers(tmp_path: Path, backend: str) -> None:
    db = tmp_path / "v18.db"
    server = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    server.stop()
    execute_sql(server.db_url, FIRST_COPY[backend])
    execute_sql(server.db_url, "UPDATE queues SET n_overdue = 5")  # drifted: recounted
    server = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    try:
        names = (
            "SELECT count(*) FROM sqlite_master WHERE name = 'qd_overdue_insert'"
            if backend == "sqlite"
            else "SELECT count(*) FROM pg_trigger WHERE tgname = 'qd_overdue_insert'"
        )
        assert query_value(server.db_url, names) == 0
        assert query_value(server.db_url, "SELECT max(n_overdue) FROM queues") == 0
    finally:
        server.stop()
