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
    # When any of the user's keys was last used (at most a minute behind: see server/jobs/usage.py).
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
    # The share (0-100) of completions drawn for review (B19). Read in the completing transaction,
    # not from the access cache, so no access-version trigger watches it.
    Column("review_percent", Integer, nullable=False, default=0, server_default="0"),
    # B21 (version 15): the consensus settings (null: one answer completes a task), and whether the
    # queue ever had them: such a queue keeps claiming through the consensus order (its disputed
    # tasks stay disputed, its tasks with answers stay first) after the settings are set to null.
    Column("consensus", JsonText),
    Column("consensus_used", Boolean, nullable=False, default=False, server_default=false()),
    # B22 (version 16): the share (0-50) of a worker's claims that serve a gold task. Read in the
    # claiming transaction, like `review_percent`.
    Column("gold_percent", Integer, nullable=False, default=0, server_default="0"),
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
    # SQLite: ids are never reused, even after a flush deleted the newest tasks (receivers and
    # journals key tasks by id). PostgreSQL's sequence never reuses them anyway.
    sqlite_autoincrement=True,
)

# Drafts (B6): values a worker kept when giving a task back, apart from the task's data and shown
# to them alone. One per task and user; dropped when the task is completed or flushed. No foreign
# key to `tasks`: on PostgreSQL it would run a trigger for each of the many rows a flush deletes,
# so the flush and the completion delete drafts themselves.
task_drafts = Table(
    "task_drafts",
    metadata,
    Column("task_id", Id, primary_key=True, autoincrement=False),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("data", JsonText, nullable=False),
    Column("saved_at", Timestamp, nullable=False),
    Index("ix_task_drafts_queue", "queue_id"),
)

# The webhook outbox: one row per completion event, written in the completing transaction.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Id, primary_key=True),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("task_id", Id, nullable=False),
    Column("event_id", String(64), nullable=False, unique=True),
    # What the event says (B10): task.completed, or the review's task.corrected and task.redo.
    Column("type", String(32), nullable=False, default="task.completed", server_default="task.completed"),
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
    # The metrics' oldest pending delivery of each queue (version 14).
    Index("ix_deliveries_queue_status_id", "queue_id", "status", "id"),
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
    Column("gold", Text),  # B22 (version 16): a gold task's expected values, as JSON; null for others
)

# The audit log (B20): what people did, one row per action, written in the action's transaction.
# `actor_email` and `actor_name` are kept as they were then (a user's later rename does not rewrite
# history); all three are null for commands run on the server's host. Never a secret, a key, task
# values or a note: `subject` names what was acted on by ids, `detail` says what changed.
audit_events = Table(
    "audit_events",
    metadata,
    Column("id", Id, primary_key=True),
    Column("organization_id", ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("at", Timestamp, nullable=False),
    Column("actor_id", ForeignKey("users.id", ondelete="SET NULL")),
    Column("actor_email", String(320)),
    Column("actor_name", String(200)),
    Column("action", String(40), nullable=False),
    Column("queue_id", Id),
    Column("subject", JsonText, nullable=False),
    Column("detail", JsonText, nullable=False),
    # The log newest first (the order written), per organization; and retention by age.
    Index("ix_audit_events_org", "organization_id", "id"),
    Index("ix_audit_events_at", "at"),
    sqlite_autoincrement=True,
)

# B19: one row per completed task drawn for review (or spot-checked), from the draw to the verdict.
# `state`: pending | in_review (claimed, held by `reviewer_id` until `lease_expires_at`) | accepted |
# corrected | redone. Claims use the same statements as tasks' (store/claims.py).
reviews = Table(
    "reviews",
    metadata,
    Column("task_id", ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("state", String(16), nullable=False),
    Column("reviewer_id", ForeignKey("users.id", ondelete="SET NULL")),
    Column("claimed_at", Timestamp),
    Column("lease_expires_at", Timestamp),
    Column("reviewed_at", Timestamp),
    Column("note", Text),
    Column("original", Text),  # the worker's values, as JSON, when corrected
    Column("redo_task_id", Id),
    # Review claims: by queue and state, oldest task first.
    Index("ix_reviews_queue_state_task", "queue_id", "state", "task_id"),
    # GET .../reviews: newest verdict first; stats over a period.
    Index("ix_reviews_queue_reviewed", "queue_id", "reviewed_at", "task_id"),
)

# B15's rollups (version 13): what stats read instead of every completion of a long period. Triggers
# on `tasks` keep them in the transaction of every change to a completion (the completion itself, a
# prune, a row written or moved by hand): see store/rollups.py. No foreign keys: on PostgreSQL each
# would run a check for every row a completion touches here; nothing deletes a queue.
# Completions per queue and minute (`completed_at` // 60 s): B15's buckets.
completion_minutes = Table(
    "completion_minutes",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("minute", BigInteger, primary_key=True, autoincrement=False),
    Column("n", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)
# Completions per queue, worker ('' when `completed_by` is null) and hour, with the latest one
# (null while unknown: its row was removed; stats then read it from the tasks).
worker_hours = Table(
    "worker_hours",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("worker", String(320), primary_key=True),
    Column("hour", BigInteger, primary_key=True, autoincrement=False),
    Column("n", BigInteger, nullable=False),
    Column("last_at", BigInteger),
    sqlite_with_rowid=False,
)
# Each worker's completions by working time, per hour and per day (`span`: 3600 or 86400 seconds;
# `node`: `completed_at` // span): by whole seconds, and by bins of 16 seconds (-1: no working
# time), so that a median is found in the bins first and then in the seconds of one or two bins.
work_bins = Table(
    "work_bins",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("span", Integer, primary_key=True, autoincrement=False),
    Column("node", BigInteger, primary_key=True, autoincrement=False),
    Column("worker", String(320), primary_key=True),
    Column("bin", BigInteger, primary_key=True, autoincrement=False),
    Column("n", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)
work_seconds = Table(
    "work_seconds",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("span", Integer, primary_key=True, autoincrement=False),
    Column("node", BigInteger, primary_key=True, autoincrement=False),
    Column("worker", String(320), primary_key=True),
    Column("seconds", BigInteger, primary_key=True, autoincrement=False),
    Column("n", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)

# Version 14: each queue's reviews waiting for a verdict and webhook deliveries not yet done, kept by
# triggers (store/backlogs.py) for the metrics. No foreign key, as for the rollups.
queue_backlogs = Table(
    "queue_backlogs",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("reviews_pending", BigInteger, nullable=False, server_default="0"),
    Column("webhook_pending", BigInteger, nullable=False, server_default="0"),
)

# B21 (version 15): the answers of a consensus queue's tasks, apart from the tasks' data; one per task
# and worker. `seconds` is the answer's time minus the claim's, in microseconds (null: unknown).
# `agreed` is set when the task settles or is decided: whether the answer held every final value.
# The worker's email is kept as it was (the stats' rollups key workers by email, as completions).
# No foreign key to `tasks`, as for drafts: the flush and the prune delete answers themselves.
task_answers = Table(
    "task_answers",
    metadata,
    Column("task_id", Id, primary_key=True, autoincrement=False),
    Column("worker_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("worker_email", String(320), nullable=False),
    Column("data", JsonText, nullable=False),
    Column("answered_at", Timestamp, nullable=False),
    Column("work_micros", BigInteger),
    Column("agreed", Boolean),
    # Stats over a period (the edges the rollups do not cover) and the prune.
    Index("ix_task_answers_queue_answered", "queue_id", "answered_at"),
)

# B21: where each task of a consensus queue stands, from its first claim on. `state`: collecting |
# disputed | settled | decided. `answer_set` names the workers who answered (",12,57,": their ids,
# sorted, between commas; "" for none), so that a claim walks the distinct sets of answerers and
# skips a whole set the caller belongs to in one step (see store/consensus_claims.py).
consensus_tasks = Table(
    "consensus_tasks",
    metadata,
    Column("task_id", Id, primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("state", String(16), nullable=False),
    Column("answer_set", String(4000), nullable=False, server_default=""),
    Column("n_answers", Integer, nullable=False, server_default="0"),
    Column("decided_by", ForeignKey("users.id", ondelete="SET NULL")),
    Column("state_at", Timestamp),
    Index("ix_consensus_tasks_claims", "queue_id", "state", "answer_set", "task_id"),
    Index("ix_consensus_tasks_state", "queue_id", "state", "task_id"),
)

# B21: per queue and worker, the answers given to tasks not completed yet (B4's X-Tasks-Answered),
# kept in the transaction of every answer, completion and flush.
answer_counts = Table(
    "answer_counts",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("worker_id", Id, primary_key=True, autoincrement=False),
    Column("waiting", BigInteger, nullable=False, server_default="0"),
)

# B21: answers that held every final value of their task (B15's `agreed`), per queue, worker and hour
# of the answer; kept by a trigger on `task_answers` (see store/rollups.py), like the rollups above.
answer_hours = Table(
    "answer_hours",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("worker", String(320), primary_key=True),
    Column("hour", BigInteger, primary_key=True, autoincrement=False),
    Column("agreed", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)

# B22 (version 16): gold tasks. A gold task is a row of `tasks` whose `status` is 'gold' for its whole
# life (so no list, count, claim or flush of ordinary work meets it); its holder is `assigned_to`
# with a lease, as any claim. Its expected values, whether it is retired, and how many answers it
# got (and how many matched) are here.
gold_tasks = Table(
    "gold_tasks",
    metadata,
    Column("task_id", Id, primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("expected", JsonText, nullable=False),
    Column("retired", Boolean, nullable=False, default=False, server_default=false()),
    Column("answered", BigInteger, nullable=False, default=0, server_default="0"),
    Column("correct", BigInteger, nullable=False, default=0, server_default="0"),
    Index("ix_gold_tasks_queue", "queue_id", "task_id"),
)

# B22: each worker's answer to a gold task, scored against the values expected then (kept as they
# were: a later PATCH of the expected values does not rescore it). One per task and worker.
gold_answers = Table(
    "gold_answers",
    metadata,
    Column("task_id", Id, primary_key=True, autoincrement=False),
    Column("worker_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
    Column("queue_id", ForeignKey("queues.id", ondelete="CASCADE"), nullable=False),
    Column("worker_email", String(320), nullable=False),
    Column("answered_at", Timestamp, nullable=False),
    Column("data", JsonText, nullable=False),
    Column("expected", JsonText, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("wrong", JsonText, nullable=False),
    # GET .../gold/answers: newest first, for the queue and for one worker.
    Index("ix_gold_answers_queue", "queue_id", "answered_at", "task_id"),
    Index("ix_gold_answers_worker", "queue_id", "worker_email", "answered_at", "task_id"),
)

# B22: per queue and worker, the claims that gave them a task not already theirs (the k of the share),
# and where their walk of the gold tasks starts.
gold_claims = Table(
    "gold_claims",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("worker_id", Id, primary_key=True, autoincrement=False),
    Column("claims", BigInteger, nullable=False, server_default="0"),
    # Version 17: every gold task of the queue below this id was answered by the worker (or is
    # retired), so their gold claims walk from here, never over all the answers they gave.
    Column("gold_from", BigInteger, nullable=False, server_default="0"),
)

# B22: gold answers and correct ones per queue, worker (email) and minute of the answer, kept in the
# answering transaction: B15's `gold_answered` and `gold_correct` read these, never the answers.
gold_minutes = Table(
    "gold_minutes",
    metadata,
    Column("queue_id", Id, primary_key=True, autoincrement=False),
    Column("worker", String(320), primary_key=True),
    Column("minute", BigInteger, primary_key=True, autoincrement=False),
    Column("answered", BigInteger, nullable=False),
    Column("correct", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)
