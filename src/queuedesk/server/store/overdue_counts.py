"""Each queue's `n_overdue` (B24, version 18): its pending tasks whose due date has passed and been
noticed, counted in the transaction of every change — by triggers on `tasks` for a PATCH of the due
date, the overdue job's notice, a flush, a prune; by the completion itself (`tasks.mark_completed`,
which every completion goes through: B7, a settled consensus, a review's decision) — so that
listing queues reads a column instead of counting. No trigger watches `status`: one on the claims'
and completions' updates cost the worker's cycle about a third more on SQLite, though it found
nothing to do for tasks without a due date. A new task never counts (its due date is armed).

A task counts while it is pending, has a due date (`due_at` below NO_DUE) and that date is no longer
armed (`due_armed` null: the overdue job, or the write that set a date already passed, noticed it).
`rebuild` recounts from the rows (the upgrade, `doctor --fix`).
"""

from sqlalchemy import Connection, text

NO_DUE = 2**62  # `tasks.due_at` of a task without a due date: after every real one
COUNTED = (
    "{r}.status IN ('new', 'open', 'in_progress') AND {r}.due_at < "
    + str(NO_DUE)
    + " AND {r}.due_armed IS NULL"
)
WATCHED = "due_at, due_armed"
TRIGGER_NAMES = ("qd_overdue_delete", "qd_overdue_update")
# Made by the first copy of version 18 (an insert trigger, and the update trigger on `status` too):
# a database that has it gets the triggers of now (`repair`).
FIRST_V18_TRIGGER = "qd_overdue_insert"


def _add(r: str) -> str:
    return f"UPDATE queues SET n_overdue = n_overdue + 1 WHERE id = {r}.queue_id AND {COUNTED.format(r=r)};"


def _take(r: str) -> str:
    return f"UPDATE queues SET n_overdue = n_overdue - 1 WHERE id = {r}.queue_id AND {COUNTED.format(r=r)};"


def _moved(distinct: str) -> str:
    """Only a change that can move the count: nothing runs for the claims and completions of tasks
    that never had a due date (both sides uncounted)."""
    return f"({COUNTED.format(r='OLD')}) {distinct} ({COUNTED.format(r='NEW')}) OR (({COUNTED.format(r='OLD')}) AND OLD.queue_id <> NEW.queue_id)"


def _sqlite_triggers() -> list[str]:
    return [
        f"CREATE TRIGGER qd_overdue_delete AFTER DELETE ON tasks WHEN {COUNTED.format(r='OLD')} "
        f"BEGIN {_take('OLD')} END",
        f"CREATE TRIGGER qd_overdue_update AFTER UPDATE OF {WATCHED} ON tasks WHEN {_moved('IS NOT')} "
        f"BEGIN {_take('OLD')} {_add('NEW')} END",
    ]


def _postgres_triggers() -> list[str]:
    each = "FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION qd_overdue()"
    return [
        "CREATE OR REPLACE FUNCTION qd_overdue() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP <> 'INSERT' THEN {_take('OLD')} END IF; "
        f"IF TG_OP <> 'DELETE' THEN {_add('NEW')} END IF; "
        "RETURN NULL; END $$",
        f"CREATE TRIGGER qd_overdue_delete AFTER DELETE ON tasks {each.format(when=COUNTED.format(r='OLD'))}",
        f"CREATE TRIGGER qd_overdue_update AFTER UPDATE OF {WATCHED} ON tasks "
        f"{each.format(when=_moved('IS DISTINCT FROM'))}",
    ]


def install(conn: Connection) -> None:
    """The triggers that keep the counts (the columns exist already)."""
    postgres = conn.dialect.name == "postgresql"
    for statement in _postgres_triggers() if postgres else _sqlite_triggers():
        conn.execute(text(statement))


def drop_triggers(conn: Connection) -> None:
    postgres = conn.dialect.name == "postgresql"
    for name in (*TRIGGER_NAMES, FIRST_V18_TRIGGER):
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name}" + (" ON tasks" if postgres else "")))


RECOUNT = f"""UPDATE queues SET n_overdue = (SELECT count(*) FROM tasks t
    WHERE t.queue_id = queues.id AND {COUNTED.format(r="t")})"""
DRIFTS = f"""SELECT q.id, q.n_overdue, (SELECT count(*) FROM tasks t WHERE t.queue_id = q.id
    AND {COUNTED.format(r="t")}) FROM queues q ORDER BY q.id"""


def rebuild(conn: Connection) -> None:
    """Every queue's count recounted from its tasks, in the caller's transaction."""
    conn.execute(text(RECOUNT))


def drifts(conn: Connection) -> list[tuple[int, int, int]]:
    """(queue id, counted, recounted) for each queue whose count is not what its tasks say."""
    return [(row[0], row[1], row[2]) for row in conn.execute(text(DRIFTS)) if row[1] != row[2]]


def repair(conn: Connection) -> None:
    """A database made by the first copy of version 18 gets the triggers of now, and a recount."""
    found = (
        "SELECT count(*) FROM pg_trigger WHERE tgname = :name"
        if conn.dialect.name == "postgresql"
        else "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = :name"
    )
    if conn.execute(text(found), {"name": FIRST_V18_TRIGGER}).scalar_one():
        drop_triggers(conn)
        install(conn)
        rebuild(conn)
