"""Schema version 15: consensus (B21). Queues' settings; the answers, each consensus task's state and
the counts of answers waiting, frozen here as version 15 made them; the access triggers watch the
new queue columns; the rollups' triggers count a consensus queue's answers for its workers (the
current ones, as version 13 made its own)."""

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    text,
)

from queuedesk.server.store import access_version, rollups
from queuedesk.server.store.types import Id

QUEUES_WATCHED_AT_V15: access_version.Watched = {
    "queues": (
        "UPDATE OF organization_id, name, description, blocks, webhook_target, consensus, consensus_used",
        "DELETE",
    ),
}


def _frozen(frozen: MetaData) -> list[Table]:
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    return [
        Table(
            "task_answers",
            frozen,
            Column("task_id", Id, primary_key=True, autoincrement=False),
            Column(
                "worker_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
            ),
            Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
            Column("worker_email", String(320), nullable=False),
            Column("data", Text, nullable=False),
            Column("answered_at", BigInteger, nullable=False),
            Column("work_micros", BigInteger),
            Column("agreed", Boolean),
            Index("ix_task_answers_queue_answered", "queue_id", "answered_at"),
        ),
        Table(
            "consensus_tasks",
            frozen,
            Column("task_id", Id, primary_key=True, autoincrement=False),
            Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
            Column("state", String(16), nullable=False),
            Column("answer_set", String(4000), nullable=False, server_default=""),
            Column("n_answers", Integer, nullable=False, server_default="0"),
            Column("decided_by", ForeignKey("users.id", ondelete="SET NULL")),
            Column("state_at", BigInteger),
            Index("ix_consensus_tasks_claims", "queue_id", "state", "answer_set", "task_id"),
            Index("ix_consensus_tasks_state", "queue_id", "state", "task_id"),
        ),
        Table(
            "answer_counts",
            frozen,
            Column("queue_id", Id, primary_key=True, autoincrement=False),
            Column("worker_id", Id, primary_key=True, autoincrement=False),
            Column("waiting", BigInteger, nullable=False, server_default="0"),
        ),
        Table(
            "answer_hours",
            frozen,
            Column("queue_id", Id, primary_key=True, autoincrement=False),
            Column("worker", String(320), primary_key=True),
            Column("hour", BigInteger, primary_key=True, autoincrement=False),
            Column("agreed", BigInteger, nullable=False),
            sqlite_with_rowid=False,
        ),
    ]


def v15_consensus(conn: Connection) -> None:
    """Only what is still missing is made, as in versions 9 to 13."""
    present = {column["name"] for column in inspect(conn).get_columns("queues")}
    if "consensus" not in present:
        conn.execute(text("ALTER TABLE queues ADD COLUMN consensus TEXT"))
    if "consensus_used" not in present:
        conn.execute(text("ALTER TABLE queues ADD COLUMN consensus_used BOOLEAN NOT NULL DEFAULT FALSE"))
    frozen = MetaData()
    made = [table for table in _frozen(frozen) if not inspect(conn).has_table(table.name)]
    frozen.create_all(conn, tables=made)
    access_version.drop_triggers(conn, QUEUES_WATCHED_AT_V15)
    access_version.create_triggers(conn, QUEUES_WATCHED_AT_V15)
    rollups.drop_triggers(conn)
    rollups.install(conn)
