"""Schema version 16: gold tasks (B22). A queue's `gold_percent`; staged import rows' `gold`; the
gold tasks' expected values,
their scored answers, each worker's count of claims and the answers per minute, frozen here as
version 16 made them."""

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Index,
    MetaData,
    String,
    Table,
    Text,
    false,
    inspect,
    text,
)

from queuedesk.server.store.types import Id


def _frozen(frozen: MetaData) -> list[Table]:
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    return [
        Table(
            "gold_tasks",
            frozen,
            Column("task_id", Id, primary_key=True, autoincrement=False),
            Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
            Column("expected", Text, nullable=False),
            Column("retired", Boolean, nullable=False, server_default=false()),
            Column("answered", BigInteger, nullable=False, server_default="0"),
            Column("correct", BigInteger, nullable=False, server_default="0"),
            Index("ix_gold_tasks_queue", "queue_id", "task_id"),
        ),
        Table(
            "gold_answers",
            frozen,
            Column("task_id", Id, primary_key=True, autoincrement=False),
            Column(
                "worker_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
            ),
            Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
            Column("worker_email", String(320), nullable=False),
            Column("answered_at", BigInteger, nullable=False),
            Column("data", Text, nullable=False),
            Column("expected", Text, nullable=False),
            Column("correct", Boolean, nullable=False),
            Column("wrong", Text, nullable=False),
            Index("ix_gold_answers_queue", "queue_id", "answered_at", "task_id"),
            Index("ix_gold_answers_worker", "queue_id", "worker_email", "answered_at", "task_id"),
        ),
        Table(
            "gold_claims",
            frozen,
            Column("queue_id", Id, primary_key=True, autoincrement=False),
            Column("worker_id", Id, primary_key=True, autoincrement=False),
            Column("claims", BigInteger, nullable=False, server_default="0"),
        ),
        Table(
            "gold_minutes",
            frozen,
            Column("queue_id", Id, primary_key=True, autoincrement=False),
            Column("worker", String(320), primary_key=True),
            Column("minute", BigInteger, primary_key=True, autoincrement=False),
            Column("answered", BigInteger, nullable=False),
            Column("correct", BigInteger, nullable=False),
            sqlite_with_rowid=False,
        ),
    ]


def v16_gold(conn: Connection) -> None:
    """Only what is still missing is made, as in versions 9 to 15."""
    present = {column["name"] for column in inspect(conn).get_columns("queues")}
    if "gold_percent" not in present:
        conn.execute(text("ALTER TABLE queues ADD COLUMN gold_percent INTEGER NOT NULL DEFAULT 0"))
    staged = {column["name"] for column in inspect(conn).get_columns("import_rows")}
    if "gold" not in staged:
        conn.execute(text("ALTER TABLE import_rows ADD COLUMN gold TEXT"))
    frozen = MetaData()
    made = [table for table in _frozen(frozen) if not inspect(conn).has_table(table.name)]
    frozen.create_all(conn, tables=made)
