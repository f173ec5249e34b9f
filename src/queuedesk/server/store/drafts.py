"""Drafts (B6): the values a user kept when giving a task back, stored apart from the task's data.

A draft is read with the task by its author only (`store/tasks.py` joins it for the viewer), never
merged into the task, never sent in an event. A completion drops the task's drafts; a flush drops
those of the tasks it deleted.

A draft holds at most `MAX_DRAFT_BYTES` of JSON: it is the worker's own values half typed, and every
task answer to its author carries it, so a worker keeping ~1 MiB drafts on many tasks made each page
of tasks they read megabytes (issue 43).
"""

from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Connection

from queuedesk.api.blocks import Problem
from queuedesk.server.rules.refusals import InvalidTaskData
from queuedesk.server.store.sql import Sql, run
from queuedesk.server.store.types import to_micros

FORGET = Sql("DELETE FROM task_drafts WHERE task_id = :task_id AND user_id = :user_id")
KEEP = Sql(
    """INSERT INTO task_drafts (task_id, user_id, queue_id, data, saved_at)
    VALUES (:task_id, :user_id, :queue_id, :data, :now)"""
)
MAX_DRAFT_BYTES = 64 * 1024
DROP_TASK = Sql("DELETE FROM task_drafts WHERE task_id = :task_id")
# Only drafts whose task is gone: a task created while the flush ran is not the flush's to touch.
DROP_ORPHANS = Sql(
    """DELETE FROM task_drafts WHERE queue_id = :queue_id
    AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_drafts.task_id)"""
)


def save(
    conn: Connection, queue_id: int, task_id: int, user_id: int, data: dict[str, Any], now: datetime
) -> None:
    """The user's draft of the task is `data` now; an empty one removes it. A draft over
    `MAX_DRAFT_BYTES` is refused (InvalidTaskData) and the earlier one kept."""
    kept = orjson.dumps(data)
    if len(kept) > MAX_DRAFT_BYTES:
        raise InvalidTaskData([Problem("invalid_value", "data", too_large(len(kept)))])
    run(conn, FORGET, task_id=task_id, user_id=user_id)
    if data:
        run(
            conn,
            KEEP,
            task_id=task_id,
            user_id=user_id,
            queue_id=queue_id,
            data=kept.decode(),
            now=to_micros(now),
        )


def too_large(size: int) -> str:
    return (
        f"a draft holds at most {MAX_DRAFT_BYTES // 1024} KiB of JSON (this one: {size / 1024:,.0f} KiB): "
        "complete the task, or keep less"
    )


def drop_for_task(conn: Connection, task_id: int) -> None:
    run(conn, DROP_TASK, task_id=task_id)


def drop_flushed(conn: Connection, queue_id: int) -> None:
    run(conn, DROP_ORPHANS, queue_id=queue_id)
