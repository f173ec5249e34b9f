"""The tables. Every list the service serves has an index in the order it is served."""

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

from queuedesk.server.store.types import Id, JsonText, Timestamp

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, nullable=False),
)

# Moved by triggers whenever keys, users, organizations or queue definitions change (see
# access_version.py); one row.
access_version = Table(
    "access_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", BigInteger, nullable=False),
)

organizations = Table(
    "organizations",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("created_at", Timestamp, nullable=False),
)

users = Table(
    "users",
    metadata,
    Column("id", Id, primary_key=True),
    Column("organization_id", ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("email", String(320), nullable=False),
    Column("name", String(200), nullable=False),
    Column("role", String(20), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    # A disabled user's keys stop working; the user stays, with their history.
    Column("disabled", Boolean, nullable=False, default=False, server_default=false()),
    # When any of the user's keys was last used (at most a minute behind: see server/usage.py).
    Column("last_seen_at", Timestamp),
    UniqueConstraint("organization_id", "email", name="uq_users_org_email"),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", Id, primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("prefix", String(16), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("revoked_at", Timestamp),
    Column("last_used_at", Timestamp),  # at most a minute behind, as users.last_seen_at
)

queues = Table(
    "queues",
    metadata,
    Column("id", Id, primary_key=True),
    Column("organization_id", ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("description", Text, nullable=False, default=""),
    Column("blocks", JsonText, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("webhook_target", String(2048)),
    Column("webhook_secret", String(100)),
    # After a rotation the old secret keeps signing (beside the new one) until it expires.
    Column("webhook_previous_secret", String(100)),
    Column("webhook_previous_expires_at", Timestamp),
    # How many of the queue's tasks are completed, kept in the completing transaction, so the
    # history's `count` does not have to count a million rows on every page.
    Column("completed_count", BigInteger, nullable=False, default=0, server_default="0"),
    # How many of its tasks are pending (new, open or in_progress), kept in the same transaction as
    # every change of a task's state (create, import, complete, flush), so listing queues reads a
    # column instead of counting every backlog.
    Column("n_tasks", BigInteger, nullable=False, default=0, server_default="0"),
    UniqueConstraint("organization_id", "name", name="uq_queues_org_name"),
)

tasks = Table(
    "tasks",
    metadata,
    Column("id", Id, primary_key=True),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("data", JsonText, nullable=False),
    Column("source", String(255), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("completed_at", Timestamp),
    Column("completed_by", String(320)),
    Column("assigned_to", ForeignKey("users.id", ondelete="SET NULL")),
    Column("assigned_at", Timestamp),
    Column("lease_expires_at", Timestamp),
    # At completion: how long the completing claim held the task (completed_at - assigned_at), for stats.
    Column("work_micros", BigInteger),
    # Pending work, claims and counts: by queue and status, oldest first.
    Index("ix_tasks_queue_status_id", "queue_id", "status", "id"),
    # History (A2): newest completion first, stable by id.
    Index("ix_tasks_queue_completed", "queue_id", "completed_at", "id"),
)

# The webhook outbox: one row per completion event, written in the completing transaction.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Id, primary_key=True),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("task_id", Id, nullable=False),
    Column("event_id", String(64), nullable=False, unique=True),
    Column("target", String(2048), nullable=False),
    Column("payload", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("retry_step", Integer, nullable=False, default=0),
    Column("last_status_code", Integer),
    Column("last_error", Text),
    Column("next_attempt_at", Timestamp),
    Column("created_at", Timestamp, nullable=False),
    Column("delivered_at", Timestamp),
    # A dispatcher that takes a row holds it until `claimed_until`; a dead one's rows come back then.
    Column("claimed_by", String(200)),
    Column("claimed_until", Timestamp),
    Index("ix_deliveries_due", "status", "next_attempt_at"),
    Index("ix_deliveries_queue", "queue_id", "id"),
)

delivery_attempts = Table(
    "delivery_attempts",
    metadata,
    Column("id", Id, primary_key=True),
    Column("delivery_id", ForeignKey("deliveries.id", ondelete="CASCADE"), nullable=False),
    Column("attempted_at", Timestamp, nullable=False),
    Column("status_code", Integer),
    Column("error", Text),
    Column("duration_ms", Integer, nullable=False),
    Index("ix_delivery_attempts_delivery", "delivery_id", "id"),
)

# Imports in several requests (QueueDesk's import sessions): rows are staged here, invisible to every
# list and claim, until one transaction moves them all into `tasks`. The client names its session
# with a key of its own, so running the same import again finds the same session.
import_sessions = Table(
    "import_sessions",
    metadata,
    Column("id", Id, primary_key=True),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("key", String(128), nullable=False),
    Column("source", String(255), nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),  # staged | committed
    Column("created_at", Timestamp, nullable=False),
    # A staged session is dropped (with its rows) after this; a committed one keeps its answer until then.
    Column("expires_at", Timestamp, nullable=False),
    Column("committed_at", Timestamp),
    Column("created", BigInteger),
    Column("ids", Text),  # the created tasks' ids, a JSON list in row order
    # Kept as rows are staged (version 12), so that progress is never counted from the rows.
    Column("staged_rows", BigInteger, nullable=False, server_default="0"),
    Column("first_missing", BigInteger, nullable=False, server_default="0"),
    UniqueConstraint("queue_id", "key", name="uq_import_sessions_queue_key"),
    Index("ix_import_sessions_expires", "expires_at"),
)

import_rows = Table(
    "import_rows",
    metadata,
    Column("session_id", ForeignKey("import_sessions.id", ondelete="CASCADE"), primary_key=True),
    Column("position", BigInteger, primary_key=True, autoincrement=False),
    Column("data", Text, nullable=False),  # every block of the queue, as the task will hold it
)
