"""Each queue's backlogs that the metrics report (version 14): reviews waiting for a verdict and
webhook deliveries not yet done, counted by triggers in the transaction of every change to a review's
state or a delivery's status, so that a scrape reads one row per queue instead of counting backlogs.

A trigger, not the code that writes reviews and deliveries, keeps them, so that nothing can leave
them behind (a draw, a verdict, a flush's cascade, a prune, a row moved by hand). `rebuild` recounts
them from the rows (the upgrade, `doctor --fix`).
"""

from sqlalchemy import Connection, text

REVIEW_WAITING = "{r}.state IN ('pending', 'in_review')"
DELIVERY_WAITING = "{r}.status = 'pending'"
WATCHED = {
    "reviews": ("reviews_pending", REVIEW_WAITING, "state, queue_id"),
    "deliveries": ("webhook_pending", DELIVERY_WAITING, "status, queue_id"),
}
INDEX = "ix_deliveries_queue_status_id"  # each queue's oldest pending delivery, found at once
TRIGGER_NAMES = tuple(
    f"qd_backlog_{table}_{event}" for table in WATCHED for event in ("insert", "delete", "update")
)


def _add(column: str, r: str, waiting: str) -> str:
    other = "webhook_pending" if column == "reviews_pending" else "reviews_pending"
    return (
        f"INSERT INTO queue_backlogs (queue_id, {column}, {other}) SELECT {r}.queue_id, 1, 0 WHERE {waiting.format(r=r)} "
        f"ON CONFLICT (queue_id) DO UPDATE SET {column} = queue_backlogs.{column} + 1;"
    )


def _take(column: str, r: str, waiting: str) -> str:
    return (
        f"UPDATE queue_backlogs SET {column} = {column} - 1 "
        f"WHERE queue_id = {r}.queue_id AND {waiting.format(r=r)};"
    )


def _moved(watched: str, distinct: str) -> str:
    return " OR ".join(f"OLD.{c} {distinct} NEW.{c}" for c in watched.split(", "))


def _sqlite_triggers() -> list[str]:
    made = []
    for table, (column, waiting, watched) in WATCHED.items():
        made += [
            f"CREATE TRIGGER qd_backlog_{table}_insert AFTER INSERT ON {table} WHEN {waiting.format(r='NEW')} "
            f"BEGIN {_add(column, 'NEW', waiting)} END",
            f"CREATE TRIGGER qd_backlog_{table}_delete AFTER DELETE ON {table} WHEN {waiting.format(r='OLD')} "
            f"BEGIN {_take(column, 'OLD', waiting)} END",
            f"CREATE TRIGGER qd_backlog_{table}_update AFTER UPDATE OF {watched} ON {table} "
            f"WHEN {_moved(watched, 'IS NOT')} "
            f"BEGIN {_take(column, 'OLD', waiting)} {_add(column, 'NEW', waiting)} END",
        ]
    return made


def _postgres_triggers() -> list[str]:
    made = []
    for table, (column, waiting, watched) in WATCHED.items():
        function = f"qd_backlog_{table}"
        each = f"FOR EACH ROW WHEN ({{when}}) EXECUTE FUNCTION {function}()"
        made += [
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF TG_OP <> 'INSERT' THEN {_take(column, 'OLD', waiting)} END IF; "
            f"IF TG_OP <> 'DELETE' THEN {_add(column, 'NEW', waiting)} END IF; "
            "RETURN NULL; END $$",
            f"CREATE TRIGGER {function}_insert AFTER INSERT ON {table} {each.format(when=waiting.format(r='NEW'))}",
            f"CREATE TRIGGER {function}_delete AFTER DELETE ON {table} {each.format(when=waiting.format(r='OLD'))}",
            f"CREATE TRIGGER {function}_update AFTER UPDATE OF {watched} ON {table} "
            f"{each.format(when=_moved(watched, 'IS DISTINCT FROM'))}",
        ]
    return made


def install(conn: Connection) -> None:
    """The triggers that keep the counts (the table exists already)."""
    postgres = conn.dialect.name == "postgresql"
    for statement in _postgres_triggers() if postgres else _sqlite_triggers():
        conn.execute(text(statement))


def drop_triggers(conn: Connection) -> None:
    postgres = conn.dialect.name == "postgresql"
    for name in TRIGGER_NAMES:
        table = name.split("_")[2]
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name}" + (f" ON {table}" if postgres else "")))


RECOUNT = f"""INSERT INTO queue_backlogs (queue_id, reviews_pending, webhook_pending)
SELECT q.id,
  (SELECT count(*) FROM reviews r WHERE r.queue_id = q.id AND {REVIEW_WAITING.format(r="r")}),
  (SELECT count(*) FROM deliveries d WHERE d.queue_id = q.id AND {DELIVERY_WAITING.format(r="d")})
FROM queues q"""

DRIFTS = f"""SELECT q.id, coalesce(b.reviews_pending, 0), coalesce(b.webhook_pending, 0),
  (SELECT count(*) FROM reviews r WHERE r.queue_id = q.id AND {REVIEW_WAITING.format(r="r")}),
  (SELECT count(*) FROM deliveries d WHERE d.queue_id = q.id AND {DELIVERY_WAITING.format(r="d")})
FROM queues q LEFT JOIN queue_backlogs b ON b.queue_id = q.id ORDER BY q.id"""


def rebuild(conn: Connection) -> None:
    """Every queue's counts recounted from the rows, in the caller's transaction."""
    conn.execute(text("DELETE FROM queue_backlogs"))
    conn.execute(text(RECOUNT))


def drifts(conn: Connection) -> list[tuple[int, int, int, int, int]]:
    """(queue id, reviews counted, webhooks counted, reviews recounted, webhooks recounted) for each
    queue whose counts are not what its rows say."""
    return [
        (row[0], row[1], row[2], row[3], row[4])
        for row in conn.execute(text(DRIFTS))
        if (row[1], row[2]) != (row[3], row[4])
    ]


def v14_queue_backlogs(conn: Connection) -> None:
    """The table (as version 14 made it), the deliveries' index by queue and status, the triggers,
    and the counts of what is stored."""
    from sqlalchemy import BigInteger, Column, MetaData, Table, inspect

    from queuedesk.server.store.types import Id

    frozen = MetaData()
    backlogs = Table(
        "queue_backlogs",
        frozen,
        Column("queue_id", Id, primary_key=True, autoincrement=False),
        Column("reviews_pending", BigInteger, nullable=False, server_default="0"),
        Column("webhook_pending", BigInteger, nullable=False, server_default="0"),
    )
    if not inspect(conn).has_table("queue_backlogs"):
        backlogs.create(conn)
    conn.execute(text(f"CREATE INDEX IF NOT EXISTS {INDEX} ON deliveries (queue_id, status, id)"))
    drop_triggers(conn)  # a partial copy of this step may have made them
    install(conn)
    rebuild(conn)
