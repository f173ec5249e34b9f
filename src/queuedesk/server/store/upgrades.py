"""The steps that bring an existing database from one schema version to the next.

Each step is written against the schema as it was at that version, frozen here, never against the
current table definitions (which keep moving).
"""

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    text,
)

from queuedesk.server.signing import new_secret
from queuedesk.server.store import access_version
from queuedesk.server.store.types import Id, Timestamp

# The tables and events the access-version triggers watched when version 4 made them.
WATCHED_AT_V4: access_version.Watched = {
    "organizations": ("UPDATE", "DELETE"),
    "users": ("UPDATE", "DELETE"),
    "api_keys": ("UPDATE", "DELETE"),
    "queues": ("UPDATE OF organization_id, name, description, blocks, webhook_target", "DELETE"),
}


def v2_webhook_outbox(conn: Connection) -> None:
    """Webhook secrets on queues; the deliveries outbox and its attempts."""
    for column in (
        "webhook_secret VARCHAR(100)",
        "webhook_previous_secret VARCHAR(100)",
        "webhook_previous_expires_at BIGINT",
    ):
        conn.execute(text(f"ALTER TABLE queues ADD COLUMN {column}"))
    frozen = MetaData()
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table(
        "deliveries",
        frozen,
        Column("id", Id, primary_key=True),
        Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
        Column("task_id", Id, nullable=False),
        Column("event_id", String(64), nullable=False, unique=True),
        Column("target", String(2048), nullable=False),
        Column("payload", Text, nullable=False),
        Column("status", String(16), nullable=False),
        Column("attempts", Integer, nullable=False),
        Column("retry_step", Integer, nullable=False),
        Column("last_status_code", Integer),
        Column("last_error", Text),
        Column("next_attempt_at", Timestamp),
        Column("created_at", Timestamp, nullable=False),
        Column("delivered_at", Timestamp),
        Column("claimed_by", String(200)),
        Column("claimed_until", Timestamp),
        Index("ix_deliveries_due", "status", "next_attempt_at"),
        Index("ix_deliveries_queue", "queue_id", "id"),
    )
    Table(
        "delivery_attempts",
        frozen,
        Column("id", Id, primary_key=True),
        Column("delivery_id", ForeignKey("deliveries.id", ondelete="CASCADE"), nullable=False),
        Column("attempted_at", Timestamp, nullable=False),
        Column("status_code", Integer),
        Column("error", Text),
        Column("duration_ms", Integer, nullable=False),
        Index("ix_delivery_attempts_delivery", "delivery_id", "id"),
    )
    frozen.create_all(conn, tables=[frozen.tables["deliveries"], frozen.tables["delivery_attempts"]])
    # Queues that already had a webhook get their signing secret now.
    hooked = conn.execute(text("SELECT id FROM queues WHERE webhook_target IS NOT NULL")).scalars()
    for queue_id in list(hooked):
        conn.execute(
            text("UPDATE queues SET webhook_secret = :secret WHERE id = :id"),
            {"secret": new_secret(), "id": queue_id},
        )


def v3_completed_count(conn: Connection) -> None:
    """A per-queue count of completed tasks, for the history's `count`."""
    conn.execute(text("ALTER TABLE queues ADD COLUMN completed_count BIGINT NOT NULL DEFAULT 0"))
    conn.execute(
        text(
            "UPDATE queues SET completed_count = (SELECT count(*) FROM tasks "
            "WHERE tasks.queue_id = queues.id AND tasks.completed_at IS NOT NULL)"
        )
    )


def v4_access_version(conn: Connection) -> None:
    """The counter that tells a process its remembered keys and queues are still current."""
    frozen = MetaData()
    Table(
        "access_version",
        frozen,
        Column("id", Integer, primary_key=True, autoincrement=False),
        Column("version", BigInteger, nullable=False),
    )
    frozen.create_all(conn)
    access_version.install(conn, WATCHED_AT_V4)


def v5_work_time(conn: Connection) -> None:
    """Each completed task's working time, for stats; completions kept their claim's time until now."""
    conn.execute(text("ALTER TABLE tasks ADD COLUMN work_micros BIGINT"))
    conn.execute(
        text(
            "UPDATE tasks SET work_micros = completed_at - assigned_at "
            "WHERE completed_at IS NOT NULL AND assigned_at IS NOT NULL"
        )
    )


def v6_pending_count(conn: Connection) -> None:
    """A per-queue count of pending tasks (new, open, in_progress), for listing queues."""
    conn.execute(text("ALTER TABLE queues ADD COLUMN n_tasks BIGINT NOT NULL DEFAULT 0"))
    conn.execute(
        text(
            "UPDATE queues SET n_tasks = (SELECT count(*) FROM tasks WHERE tasks.queue_id = queues.id "
            "AND tasks.status IN ('new', 'open', 'in_progress'))"
        )
    )


def v7_import_sessions(conn: Connection) -> None:
    """Import sessions and their staged rows, for imports in several requests."""
    frozen = MetaData()
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table(
        "import_sessions",
        frozen,
        Column("id", Id, primary_key=True),
        Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
        Column("key", String(128), nullable=False),
        Column("source", String(255), nullable=False),
        Column("total", BigInteger, nullable=False),
        Column("status", String(16), nullable=False),
        Column("created_at", Timestamp, nullable=False),
        Column("expires_at", Timestamp, nullable=False),
        Column("committed_at", Timestamp),
        Column("created", BigInteger),
        Column("ids", Text),
        UniqueConstraint("queue_id", "key", name="uq_import_sessions_queue_key"),
        Index("ix_import_sessions_expires", "expires_at"),
    )
    Table(
        "import_rows",
        frozen,
        Column("session_id", ForeignKey("import_sessions.id", ondelete="CASCADE"), primary_key=True),
        Column("position", BigInteger, primary_key=True, autoincrement=False),
        Column("data", Text, nullable=False),
    )
    frozen.create_all(conn, tables=[frozen.tables["import_sessions"], frozen.tables["import_rows"]])


# From version 8 the triggers on users and keys ignore the columns requests record their use in.
PEOPLE_WATCHED_AT_V8: access_version.Watched = {
    "users": ("UPDATE OF organization_id, email, name, role, disabled", "DELETE"),
    "api_keys": ("UPDATE OF user_id, key_hash, revoked_at", "DELETE"),
}
PEOPLE_COLUMNS_AT_V8 = {
    "users": ("disabled BOOLEAN NOT NULL DEFAULT FALSE", "last_seen_at BIGINT"),
    "api_keys": ("last_used_at BIGINT",),
}


def v8_people(conn: Connection) -> None:
    """Users can be disabled; users and keys remember when they were last used. Only the columns
    still missing are added, so the step also completes a database a partial copy of it touched."""
    for table, columns in PEOPLE_COLUMNS_AT_V8.items():
        present = {column["name"] for column in inspect(conn).get_columns(table)}
        for column in columns:
            if column.split()[0] not in present:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column}"))
    access_version.drop_triggers(conn, PEOPLE_WATCHED_AT_V8)  # the same names as version 4's
    access_version.create_triggers(conn, PEOPLE_WATCHED_AT_V8)


REVIEW_COLUMNS_AT_V11 = {
    "queues": "review_percent INTEGER NOT NULL DEFAULT 0",
    "deliveries": "type VARCHAR(32) NOT NULL DEFAULT 'task.completed'",
}


def v11_review(conn: Connection) -> None:
    """Review (B19): queues' review share, the reviews of completed tasks, and each delivery's event
    type. Numbered 11 ahead of 9 and 10 (drafts, the audit log), which arrive from other branches.
    As version 8's, only what is missing is added: a database put back to an earlier version with
    its later parts left in place (as the upgrade tests do) completes too."""
    for table, column in REVIEW_COLUMNS_AT_V11.items():
        if column.split()[0] not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column}"))
    if inspect(conn).has_table("reviews"):
        return
    frozen = MetaData()
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    Table("tasks", frozen, Column("id", Id, primary_key=True))
    Table(
        "reviews",
        frozen,
        Column("task_id", ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
        Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
        Column("state", String(16), nullable=False),
        Column("reviewer_id", ForeignKey("users.id", ondelete="SET NULL")),
        Column("claimed_at", Timestamp),
        Column("lease_expires_at", Timestamp),
        Column("reviewed_at", Timestamp),
        Column("note", Text),
        Column("original", Text),
        Column("redo_task_id", Id),
        Index("ix_reviews_queue_state_task", "queue_id", "state", "task_id"),
        Index("ix_reviews_queue_reviewed", "queue_id", "reviewed_at", "task_id"),
    )
    frozen.create_all(conn, tables=[frozen.tables["reviews"]])
