"""Schema version 19: suggestions (B23) stored with each task, their lowest score in the index of
B24's `least_confident` claim order, and the agents' counts per minute."""

from sqlalchemy import BigInteger, Column, Connection, MetaData, String, Table, inspect, text

from queuedesk.server.store.types import Id

# The lowest score of a task's suggestions, NO_SCORE (2.0) when none is scored: after every score.
COLUMNS_AT_V19 = (
    ("suggestions", "TEXT"),
    ("suggestion_score", "FLOAT NOT NULL DEFAULT 2.0"),
    ("suggestion_outcome", "TEXT"),
)
INDEX_AT_V19 = (
    "CREATE INDEX IF NOT EXISTS ix_tasks_claim_confident ON tasks "
    "(queue_id, reserved_for, priority DESC, suggestion_score, due_at, status, id) WHERE status IN ('new', 'open')"
)


def v19_suggestions(conn: Connection) -> None:
    """The task's suggestions, their lowest score and their outcome; `suggestion_minutes`. Only what
    is still missing is made, as in versions 9 to 17."""
    present = {column["name"] for column in inspect(conn).get_columns("tasks")}
    for name, kind in (
        ("suggestions", "TEXT"),
        ("suggestion_score", "FLOAT"),
        ("suggestion_outcome", "TEXT"),
    ):
        if name not in present:
            conn.execute(text(f"ALTER TABLE tasks ADD COLUMN {name} {kind}"))
    if inspect(conn).has_table("suggestion_minutes"):
        return
    frozen = MetaData()
    Table(
        "suggestion_minutes",
        frozen,
        Column("queue_id", Id, primary_key=True, autoincrement=False),
        Column("agent", String(100), primary_key=True),
        Column("minute", BigInteger, primary_key=True, autoincrement=False),
        Column("offered", BigInteger, nullable=False),
        Column("accepted", BigInteger, nullable=False),
        sqlite_with_rowid=False,
    ).create(conn)
