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

from queuedesk.server.jobs.signing import new_secret
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


def _frozen_tasks_v9(frozen: MetaData, name: str) -> Table:
    """The tasks table as version 9 has it (without its indexes, made once it has its name)."""
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    return Table(
        name,
        frozen,
        Column("id", Id, primary_key=True),
        Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
        Column("status", String(16), nullable=False),
        Column("data", Text, nullable=False),
        Column("source", String(255), nullable=False),
        Column("created_at", Timestamp, nullable=False),
        Column("completed_at", Timestamp),
        Column("completed_by", String(320)),
        Column("assigned_to", ForeignKey("users.id", ondelete="SET NULL")),
        Column("assigned_at", Timestamp),
        Column("lease_expires_at", Timestamp),
        Column("work_micros", BigInteger),
        sqlite_autoincrement=True,
    )


TASK_COLUMNS_AT_V9 = (
    "id, queue_id, status, data, source, created_at, completed_at, completed_by, assigned_to, "
    "assigned_at, lease_expires_at, work_micros"
)


def _sqlite_tasks_never_reuse_ids(conn: Connection) -> None:
    """SQLite reuses the highest rowid once that row is deleted (a flush of the newest tasks) unless
    the table says AUTOINCREMENT, which only a new table can: the tasks move to one, ids kept, and
    the counter starts past every id a task or a webhook event ever had."""
    made = conn.execute(
        text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tasks'")
    ).scalar()
    if made is None or "AUTOINCREMENT" in made.upper():
        return
    frozen = MetaData()
    rebuilt = _frozen_tasks_v9(frozen, "tasks_v9")
    frozen.create_all(conn, tables=[rebuilt])
    conn.execute(
        text(
            f"INSERT INTO tasks_v9 ({TASK_COLUMNS_AT_V9}) SELECT {TASK_COLUMNS_AT_V9} FROM tasks ORDER BY id"
        )
    )
    conn.execute(text("DROP TABLE tasks"))  # its indexes go with it
    conn.execute(text("ALTER TABLE tasks_v9 RENAME TO tasks"))
    conn.execute(text("CREATE INDEX ix_tasks_queue_status_id ON tasks (queue_id, status, id)"))
    conn.execute(text("CREATE INDEX ix_tasks_queue_completed ON tasks (queue_id, completed_at, id)"))
    highest = conn.execute(
        text(
            "SELECT max(coalesce((SELECT max(id) FROM tasks), 0), coalesce((SELECT max(task_id) FROM deliveries), 0))"
        )
    ).scalar_one()
    conn.execute(text("DELETE FROM sqlite_sequence WHERE name = 'tasks'"))
    if highest:
        conn.execute(text("INSERT INTO sqlite_sequence (name, seq) VALUES ('tasks', :seq)"), {"seq": highest})


def v9_drafts_apart_and_ids_never_reused(conn: Connection) -> None:
    """Drafts get a table of their own (never the task's data); on SQLite, task ids are never reused.
    Both parts check first, so the step also completes a database a partial copy of it touched."""
    if conn.dialect.name == "sqlite":
        _sqlite_tasks_never_reuse_ids(conn)
    if inspect(conn).has_table("task_drafts"):
        return
    frozen = MetaData()
    Table("queues", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    Table(
        "task_drafts",
        frozen,
        Column("task_id", Id, primary_key=True, autoincrement=False),
        Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
        Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
        Column("data", Text, nullable=False),
        Column("saved_at", Timestamp, nullable=False),
        Index("ix_task_drafts_queue", "queue_id"),
    )
    frozen.create_all(conn, tables=[frozen.tables["task_drafts"]])


def v10_audit_log(conn: Connection) -> None:
    """The audit log (B20); each delivery says what its event is (B10's `type`). Only what is still
    missing is made, so the step also completes a database a partial copy of it touched."""
    present = {column["name"] for column in inspect(conn).get_columns("deliveries")}
    if "type" not in present:
        conn.execute(
            text("ALTER TABLE deliveries ADD COLUMN type VARCHAR(32) NOT NULL DEFAULT 'task.completed'")
        )
    if inspect(conn).has_table("audit_events"):
        return
    frozen = MetaData()
    Table("organizations", frozen, Column("id", Id, primary_key=True))
    Table("users", frozen, Column("id", Id, primary_key=True))
    Table(
        "audit_events",
        frozen,
        Column("id", Id, primary_key=True),
        Column("organization_id", ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
        Column("at", Timestamp, nullable=False),
        Column("actor_id", ForeignKey("users.id", ondelete="SET NULL")),
        Column("actor_email", String(320)),
        Column("actor_name", String(200)),
        Column("action", String(40), nullable=False),
        Column("queue_id", Id),
        Column("subject", Text, nullable=False),
        Column("detail", Text, nullable=False),
        Index("ix_audit_events_org", "organization_id", "id"),
        Index("ix_audit_events_at", "at"),
        sqlite_autoincrement=True,
    )
    frozen.create_all(conn, tables=[frozen.tables["audit_events"]])


def v11_review(conn: Connection) -> None:
    """Review (B19): queues' review share and the reviews of completed tasks. Only what is still
    missing is made, as in versions 9 and 10."""
    if "review_percent" not in {column["name"] for column in inspect(conn).get_columns("queues")}:
        conn.execute(text("ALTER TABLE queues ADD COLUMN review_percent INTEGER NOT NULL DEFAULT 0"))
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
