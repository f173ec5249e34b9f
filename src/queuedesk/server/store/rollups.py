"""B15's rollups, kept by triggers on `tasks` in the transaction of every change to a completion.

A trigger, not the completing code, keeps them, so that nothing that writes a completion can leave
them behind: the completion (B7), a prune's deletes, a restore, the demo's history, a row written
or moved with a SQL shell. Each completed row counts once in each table (see tables.py); removing it
takes it off again. A claim, a heartbeat, a release, a flush of pending work and a review's verdict
do not touch `completed_at`, `completed_by` or `work_micros`, so the triggers stay quiet for them.

`rebuild` recounts every table from the tasks (the upgrade to version 13, `doctor --fix`).
"""

from sqlalchemy import Connection, inspect, text

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


# A consensus queue's task (B21) counts for its workers by their answers (`task_answers`, below), so
# its completion counts in the buckets only: the worker tables skip a task that has a row in
# `consensus_tasks` (version 15; before it, `apart` is off).
APART = "NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = {r}.id)"


class _Row:
    """How a counted row names its queue, moment, worker and working time."""

    def __init__(self, r: str, at: str, who: str, micros: str) -> None:
        self.r, self.queue, self.at = r, f"{r}.queue_id", f"{r}.{at}"
        self.worker = f"coalesce({r}.{who}, '')"
        self.seconds = SECONDS.format(r=r).replace(f"{r}.work_micros", f"{r}.{micros}")
        self.bin = BIN.format(r=r).replace(f"{r}.work_micros", f"{r}.{micros}")


def _completion(r: str) -> _Row:
    return _Row(r, "completed_at", "completed_by", "work_micros")


def _answer(r: str) -> _Row:
    return _Row(r, "answered_at", "worker_email", "work_micros")


def _worker_added(row: _Row, guard: str) -> list[str]:
    statements = [
        f"""INSERT INTO worker_hours (queue_id, worker, hour, n, last_at)
        SELECT {row.queue}, {row.worker}, {row.at} / {HOUR}, 1, {row.at} {guard}
        ON CONFLICT (queue_id, worker, hour) DO UPDATE SET n = worker_hours.n + 1, last_at = CASE
        WHEN worker_hours.n <= 0 THEN excluded.last_at WHEN worker_hours.last_at IS NULL THEN NULL
        WHEN excluded.last_at > worker_hours.last_at THEN excluded.last_at ELSE worker_hours.last_at END""",
    ]
    for span in SPANS:
        node = f"{row.at} / {span * 1_000_000}"
        statements += [
            f"""INSERT INTO work_bins (queue_id, span, node, worker, bin, n)
            SELECT {row.queue}, {span}, {node}, {row.worker}, {row.bin}, 1 {guard}
            ON CONFLICT (queue_id, span, node, worker, bin) DO UPDATE SET n = work_bins.n + 1""",
            f"""INSERT INTO work_seconds (queue_id, span, node, worker, seconds, n)
            SELECT {row.queue}, {span}, {node}, {row.worker}, {row.seconds}, 1 {guard}
            ON CONFLICT (queue_id, span, node, worker, seconds) DO UPDATE SET n = work_seconds.n + 1""",
        ]
    return statements


def _worker_removed(row: _Row, guard: str) -> list[str]:
    statements = [
        f"""UPDATE worker_hours SET n = n - 1,
        last_at = CASE WHEN last_at = {row.at} THEN NULL ELSE last_at END
        WHERE queue_id = {row.queue} AND worker = {row.worker} AND hour = {row.at} / {HOUR} AND {guard}""",
    ]
    for span in SPANS:
        node = f"{row.at} / {span * 1_000_000}"
        statements += [
            f"""UPDATE work_bins SET n = n - 1 WHERE queue_id = {row.queue} AND span = {span}
            AND node = {node} AND worker = {row.worker} AND bin = {row.bin} AND {guard}""",
            f"""UPDATE work_seconds SET n = n - 1 WHERE queue_id = {row.queue} AND span = {span}
            AND node = {node} AND worker = {row.worker} AND seconds = {row.seconds} AND {guard}""",
        ]
    return statements


def _added(r: str, apart: bool = True) -> list[str]:
    """The statements counting row `r` (NEW) in; each guarded, so one body serves every event."""
    guard = f"WHERE {r}.completed_at IS NOT NULL"
    worker_guard = f"{guard} AND {APART.format(r=r)}" if apart else guard
    return [
        f"""INSERT INTO completion_minutes (queue_id, minute, n) SELECT {r}.queue_id, {r}.completed_at / {MINUTE}, 1
        {guard} ON CONFLICT (queue_id, minute) DO UPDATE SET n = completion_minutes.n + 1""",
        *_worker_added(_completion(r), worker_guard),
    ]


def _removed(r: str, apart: bool = True) -> list[str]:
    """The statements taking row `r` (OLD) off again."""
    guard = f"{r}.completed_at IS NOT NULL"
    worker_guard = f"{guard} AND {APART.format(r=r)}" if apart else guard
    return [
        f"""UPDATE completion_minutes SET n = n - 1
        WHERE queue_id = {r}.queue_id AND minute = {r}.completed_at / {MINUTE} AND {guard}""",
        *_worker_removed(_completion(r), worker_guard),
    ]


def _agreed(r: str, delta: int) -> str:
    """An answer that held every final value, counted in (1) or taken off (-1) its hour."""
    return f"""INSERT INTO answer_hours (queue_id, worker, hour, agreed)
    SELECT {r}.queue_id, {r}.worker_email, {r}.answered_at / {HOUR}, {delta} WHERE {r}.agreed
    ON CONFLICT (queue_id, worker, hour) DO UPDATE SET agreed = answer_hours.agreed + {delta}"""


WATCHED = "queue_id, completed_at, completed_by, work_micros"
MOVED = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in WATCHED.split(", "))


def _body(statements: list[str]) -> str:
    return " ".join(" ".join(s.split()) + ";" for s in statements)


def _sqlite_triggers(apart: bool) -> list[str]:
    moved = MOVED.replace("IS DISTINCT FROM", "IS NOT")
    made = [
        "CREATE TRIGGER qd_rollup_insert AFTER INSERT ON tasks WHEN NEW.completed_at IS NOT NULL "
        f"BEGIN {_body(_added('NEW', apart))} END",
        "CREATE TRIGGER qd_rollup_delete AFTER DELETE ON tasks WHEN OLD.completed_at IS NOT NULL "
        f"BEGIN {_body(_removed('OLD', apart))} END",
        f"CREATE TRIGGER qd_rollup_update AFTER UPDATE OF {WATCHED} ON tasks WHEN {moved} "
        f"BEGIN {_body(_removed('OLD', apart) + _added('NEW', apart))} END",
    ]
    if apart:
        new, old = _answer("NEW"), _answer("OLD")
        made += [
            "CREATE TRIGGER qd_answers_insert AFTER INSERT ON task_answers "
            f"BEGIN {_body([*_worker_added(new, 'WHERE NEW.answered_at IS NOT NULL'), _agreed('NEW', 1)])} END",
            "CREATE TRIGGER qd_answers_delete AFTER DELETE ON task_answers "
            f"BEGIN {_body([*_worker_removed(old, 'OLD.answered_at IS NOT NULL'), _agreed('OLD', -1)])} END",
            "CREATE TRIGGER qd_answers_update AFTER UPDATE OF agreed ON task_answers "
            f"WHEN OLD.agreed IS NOT NEW.agreed BEGIN {_body([_agreed('OLD', -1), _agreed('NEW', 1)])} END",
        ]
    return made


def _postgres_triggers(apart: bool) -> list[str]:
    function = (
        "CREATE OR REPLACE FUNCTION qd_rollup() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP <> 'INSERT' THEN {_body(_removed('OLD', apart))} END IF; "
        f"IF TG_OP <> 'DELETE' THEN {_body(_added('NEW', apart))} END IF; "
        "RETURN NULL; END $$"
    )
    each = "FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION qd_rollup()"
    made = [
        function,
        f"CREATE TRIGGER qd_rollup_insert AFTER INSERT ON tasks {each.format(when='NEW.completed_at IS NOT NULL')}",
        f"CREATE TRIGGER qd_rollup_delete AFTER DELETE ON tasks {each.format(when='OLD.completed_at IS NOT NULL')}",
        f"CREATE TRIGGER qd_rollup_update AFTER UPDATE OF {WATCHED} ON tasks {each.format(when=MOVED)}",
    ]
    if apart:
        new, old = _answer("NEW"), _answer("OLD")
        made += [
            "CREATE OR REPLACE FUNCTION qd_answer_rollup() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF TG_OP = 'INSERT' THEN "
            f"{_body([*_worker_added(new, 'WHERE NEW.answered_at IS NOT NULL'), _agreed('NEW', 1)])} "
            "ELSIF TG_OP = 'DELETE' THEN "
            f"{_body([*_worker_removed(old, 'OLD.answered_at IS NOT NULL'), _agreed('OLD', -1)])} "
            f"ELSE {_body([_agreed('OLD', -1), _agreed('NEW', 1)])} END IF; RETURN NULL; END $$",
            "CREATE TRIGGER qd_answers_insert AFTER INSERT ON task_answers FOR EACH ROW "
            "EXECUTE FUNCTION qd_answer_rollup()",
            "CREATE TRIGGER qd_answers_delete AFTER DELETE ON task_answers FOR EACH ROW "
            "EXECUTE FUNCTION qd_answer_rollup()",
            "CREATE TRIGGER qd_answers_update AFTER UPDATE OF agreed ON task_answers FOR EACH ROW "
            "WHEN (OLD.agreed IS DISTINCT FROM NEW.agreed) EXECUTE FUNCTION qd_answer_rollup()",
        ]
    return made


TASK_TRIGGER_NAMES = ("qd_rollup_insert", "qd_rollup_delete", "qd_rollup_update")
ANSWER_TRIGGER_NAMES = ("qd_answers_insert", "qd_answers_delete", "qd_answers_update")
TRIGGER_NAMES = TASK_TRIGGER_NAMES + ANSWER_TRIGGER_NAMES


def trigger_statements(dialect: str, apart: bool = True) -> list[str]:
    """The statements `install` runs on `dialect` (a test rebuilds an older schema with them)."""
    return _postgres_triggers(apart) if dialect == "postgresql" else _sqlite_triggers(apart)


def install(conn: Connection, apart: bool = True) -> None:
    """The triggers that keep the rollups (the tables exist already). `apart` (version 15 on): a
    consensus queue's tasks count for their workers by their answers."""
    postgres = conn.dialect.name == "postgresql"
    for statement in _postgres_triggers(apart) if postgres else _sqlite_triggers(apart):
        conn.execute(text(statement))


def _recount(apart: bool) -> list[str]:
    done = "FROM tasks t WHERE t.completed_at IS NOT NULL"
    statements = [
        f"INSERT INTO completion_minutes (queue_id, minute, n) SELECT t.queue_id, t.completed_at / {MINUTE}, "
        f"count(*) {done} GROUP BY 1, 2",
    ]
    # What each worker did: their completions (in a consensus queue, their answers instead).
    source = "SELECT t.queue_id, t.completed_at AS at, t.completed_by AS who, t.work_micros " + done
    if apart:
        source += f" AND {APART.format(r='t')} UNION ALL SELECT a.queue_id, a.answered_at, a.worker_email, "
        source += "a.work_micros FROM task_answers a"
    s = f"({source}) s"
    row = _Row("s", "at", "who", "work_micros")
    statements.append(
        f"INSERT INTO worker_hours (queue_id, worker, hour, n, last_at) SELECT s.queue_id, {row.worker}, "
        f"s.at / {HOUR}, count(*), max(s.at) FROM {s} GROUP BY 1, 2, 3"
    )
    for span in SPANS:
        node = f"s.at / {span * 1_000_000}"
        statements += [
            f"INSERT INTO work_bins (queue_id, span, node, worker, bin, n) SELECT s.queue_id, {span}, {node}, "
            f"{row.worker}, {row.bin}, count(*) FROM {s} GROUP BY 1, 2, 3, 4, 5",
            f"INSERT INTO work_seconds (queue_id, span, node, worker, seconds, n) SELECT s.queue_id, {span}, "
            f"{node}, {row.worker}, {row.seconds}, count(*) FROM {s} GROUP BY 1, 2, 3, 4, 5",
        ]
    if apart:
        statements.append(
            f"INSERT INTO answer_hours (queue_id, worker, hour, agreed) SELECT a.queue_id, a.worker_email, "
            f"a.answered_at / {HOUR}, count(*) FROM task_answers a WHERE a.agreed GROUP BY 1, 2, 3"
        )
    return statements


def rebuild(conn: Connection, apart: bool = True) -> None:
    """Every rollup recounted from the tasks (and, `apart`, the answers), in the caller's transaction."""
    for table in (*TABLES, "answer_hours") if apart else TABLES:
        conn.execute(text(f"DELETE FROM {table}"))
    for statement in _recount(apart):
        conn.execute(text(statement))


def drop_triggers(conn: Connection) -> None:
    postgres = conn.dialect.name == "postgresql"
    for name in TASK_TRIGGER_NAMES:
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name}{' ON tasks' if postgres else ''}"))
    if not postgres or _has_table(conn, "task_answers"):
        for name in ANSWER_TRIGGER_NAMES:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}{' ON task_answers' if postgres else ''}"))


def _has_table(conn: Connection, name: str) -> bool:
    return inspect(conn).has_table(name)
