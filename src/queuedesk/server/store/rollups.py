"""B15's rollups, kept by triggers on `tasks` in the transaction of every change to a completion.

A trigger, not the completing code, keeps them, so that nothing that writes a completion can leave
them behind: the completion (B7), a prune's deletes, a restore, the demo's history, a row written
or moved with a SQL shell. Each completed row counts once in each table (see tables.py); removing it
takes it off again. A claim, a heartbeat, a release, a flush of pending work and a review's verdict
do not touch `completed_at`, `completed_by` or `work_micros`, so the triggers stay quiet for them.

`rebuild` recounts every table from the tasks (the upgrade to version 13, `doctor --fix`).
"""

from sqlalchemy import Connection, text

MINUTE = 60_000_000
HOUR = 3_600_000_000
DAY = 86_400_000_000
SPANS = (3600, 86400)  # the seconds of the work tables' nodes: hours and days
BIN_SECONDS = 16
NO_TIME = -1  # the bin and second of a completion without a working time (or a negative one)
TABLES = ("completion_minutes", "worker_hours", "work_bins", "work_seconds")

# A completion's whole seconds of work as the stats read them: integer division, as both databases
# do it; null or negative is no time.
SECONDS = "CASE WHEN {r}.work_micros IS NULL OR {r}.work_micros / 1000000 < 0 THEN -1 ELSE {r}.work_micros / 1000000 END"
BIN = f"CASE WHEN {{r}}.work_micros IS NULL OR {{r}}.work_micros / 1000000 < 0 THEN -1 ELSE {{r}}.work_micros / 1000000 / {BIN_SECONDS} END"
WORKER = "coalesce({r}.completed_by, '')"


def _added(r: str) -> list[str]:
    """The statements counting row `r` (NEW) in; each guarded, so one body serves every event."""
    guard = f"WHERE {r}.completed_at IS NOT NULL"
    worker, seconds, bin_ = WORKER.format(r=r), SECONDS.format(r=r), BIN.format(r=r)
    statements = [
        f"""INSERT INTO completion_minutes (queue_id, minute, n) SELECT {r}.queue_id, {r}.completed_at / {MINUTE}, 1
        {guard} ON CONFLICT (queue_id, minute) DO UPDATE SET n = completion_minutes.n + 1""",
        f"""INSERT INTO worker_hours (queue_id, worker, hour, n, last_at)
        SELECT {r}.queue_id, {worker}, {r}.completed_at / {HOUR}, 1, {r}.completed_at {guard}
        ON CONFLICT (queue_id, worker, hour) DO UPDATE SET n = worker_hours.n + 1, last_at = CASE
        WHEN worker_hours.n <= 0 THEN excluded.last_at WHEN worker_hours.last_at IS NULL THEN NULL
        WHEN excluded.last_at > worker_hours.last_at THEN excluded.last_at ELSE worker_hours.last_at END""",
    ]
    for span in SPANS:
        node = f"{r}.completed_at / {span * 1_000_000}"
        statements += [
            f"""INSERT INTO work_bins (queue_id, span, node, worker, bin, n)
            SELECT {r}.queue_id, {span}, {node}, {worker}, {bin_}, 1 {guard}
            ON CONFLICT (queue_id, span, node, worker, bin) DO UPDATE SET n = work_bins.n + 1""",
            f"""INSERT INTO work_seconds (queue_id, span, node, worker, seconds, n)
            SELECT {r}.queue_id, {span}, {node}, {worker}, {seconds}, 1 {guard}
            ON CONFLICT (queue_id, span, node, worker, seconds) DO UPDATE SET n = work_seconds.n + 1""",
        ]
    return statements


def _removed(r: str) -> list[str]:
    """The statements taking row `r` (OLD) off again."""
    guard = f"{r}.completed_at IS NOT NULL"
    worker, seconds, bin_ = WORKER.format(r=r), SECONDS.format(r=r), BIN.format(r=r)
    statements = [
        f"""UPDATE completion_minutes SET n = n - 1
        WHERE queue_id = {r}.queue_id AND minute = {r}.completed_at / {MINUTE} AND {guard}""",
        f"""UPDATE worker_hours SET n = n - 1,
        last_at = CASE WHEN last_at = {r}.completed_at THEN NULL ELSE last_at END
        WHERE queue_id = {r}.queue_id AND worker = {worker} AND hour = {r}.completed_at / {HOUR} AND {guard}""",
    ]
    for span in SPANS:
        node = f"{r}.completed_at / {span * 1_000_000}"
        statements += [
            f"""UPDATE work_bins SET n = n - 1 WHERE queue_id = {r}.queue_id AND span = {span}
            AND node = {node} AND worker = {worker} AND bin = {bin_} AND {guard}""",
            f"""UPDATE work_seconds SET n = n - 1 WHERE queue_id = {r}.queue_id AND span = {span}
            AND node = {node} AND worker = {worker} AND seconds = {seconds} AND {guard}""",
        ]
    return statements


WATCHED = "queue_id, completed_at, completed_by, work_micros"
MOVED = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in WATCHED.split(", "))


def _body(statements: list[str]) -> str:
    return " ".join(" ".join(s.split()) + ";" for s in statements)


def _sqlite_triggers() -> list[str]:
    moved = MOVED.replace("IS DISTINCT FROM", "IS NOT")
    return [
        "CREATE TRIGGER qd_rollup_insert AFTER INSERT ON tasks WHEN NEW.completed_at IS NOT NULL "
        f"BEGIN {_body(_added('NEW'))} END",
        "CREATE TRIGGER qd_rollup_delete AFTER DELETE ON tasks WHEN OLD.completed_at IS NOT NULL "
        f"BEGIN {_body(_removed('OLD'))} END",
        f"CREATE TRIGGER qd_rollup_update AFTER UPDATE OF {WATCHED} ON tasks WHEN {moved} "
        f"BEGIN {_body(_removed('OLD') + _added('NEW'))} END",
    ]


def _postgres_triggers() -> list[str]:
    function = (
        "CREATE OR REPLACE FUNCTION qd_rollup() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP <> 'INSERT' THEN {_body(_removed('OLD'))} END IF; "
        f"IF TG_OP <> 'DELETE' THEN {_body(_added('NEW'))} END IF; "
        "RETURN NULL; END $$"
    )
    each = "FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION qd_rollup()"
    return [
        function,
        f"CREATE TRIGGER qd_rollup_insert AFTER INSERT ON tasks {each.format(when='NEW.completed_at IS NOT NULL')}",
        f"CREATE TRIGGER qd_rollup_delete AFTER DELETE ON tasks {each.format(when='OLD.completed_at IS NOT NULL')}",
        f"CREATE TRIGGER qd_rollup_update AFTER UPDATE OF {WATCHED} ON tasks {each.format(when=MOVED)}",
    ]


TRIGGER_NAMES = ("qd_rollup_insert", "qd_rollup_delete", "qd_rollup_update")


def install(conn: Connection) -> None:
    """The triggers that keep the rollups (the tables exist already)."""
    postgres = conn.dialect.name == "postgresql"
    for statement in _postgres_triggers() if postgres else _sqlite_triggers():
        conn.execute(text(statement))


def _recount() -> list[str]:
    worker, seconds, bin_ = WORKER.format(r="t"), SECONDS.format(r="t"), BIN.format(r="t")
    done = "FROM tasks t WHERE t.completed_at IS NOT NULL"
    statements = [
        f"INSERT INTO completion_minutes (queue_id, minute, n) SELECT t.queue_id, t.completed_at / {MINUTE}, "
        f"count(*) {done} GROUP BY 1, 2",
        f"INSERT INTO worker_hours (queue_id, worker, hour, n, last_at) SELECT t.queue_id, {worker}, "
        f"t.completed_at / {HOUR}, count(*), max(t.completed_at) {done} GROUP BY 1, 2, 3",
    ]
    for span in SPANS:
        node = f"t.completed_at / {span * 1_000_000}"
        statements += [
            f"INSERT INTO work_bins (queue_id, span, node, worker, bin, n) SELECT t.queue_id, {span}, {node}, "
            f"{worker}, {bin_}, count(*) {done} GROUP BY 1, 2, 3, 4, 5",
            f"INSERT INTO work_seconds (queue_id, span, node, worker, seconds, n) SELECT t.queue_id, {span}, "
            f"{node}, {worker}, {seconds}, count(*) {done} GROUP BY 1, 2, 3, 4, 5",
        ]
    return statements


def rebuild(conn: Connection) -> None:
    """Every rollup recounted from the tasks, in the caller's transaction."""
    for table in TABLES:
        conn.execute(text(f"DELETE FROM {table}"))
    for statement in _recount():
        conn.execute(text(statement))


def drop_triggers(conn: Connection) -> None:
    on_tasks = " ON tasks" if conn.dialect.name == "postgresql" else ""
    for name in TRIGGER_NAMES:
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name}{on_tasks}"))
