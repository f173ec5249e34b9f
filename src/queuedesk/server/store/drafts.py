"""Drafts (B6): the values a user kept when giving a task back, stored apart from the task's data.

A draft is read with the task by its author only (`store/tasks.py` joins it for the viewer), never
merged into the task, never sent in an event. A completion drops the task's drafts; a flush drops
those of the tasks it deleted.
"""

from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Connection

from queuedesk.server.store.sql import Sql, run
from queuedesk.server.store.types import to_micros

FORGET = Sql("DELETE FROM task_drafts WHERE task_id = :task_id AND user_id = :user_id")
KEEP = Sql(
    """INSERT INTO task_drafts (task_id, user_id, queue_id, data, saved_at)
    VALUES (:task_id, :user_id, :queue_id, :data, :now)"""
)
DROP_TASK = Sql("DELETE FROM task_drafts WHERE task_id = :task_id")
# Only drafts whose task is gone: a task created while the flush ran is not the flush's to touch.
DROP_ORPHANS = Sql(
    """DELETE FROM task_drafts WHERE queue_id = :queue_id
    AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_drafts.task_id)"""
)


def save(
    conn: Connection, queue_id: int, task_id: int, user_id: int, data: dict[str, Any], now: datetime
) -> None:
    """The user's draft of the task is `data` now; an empty one removes it."""
    run(conn, FORGET, task_id=task_id, user_id=user_id)
    if data:
        run(
            conn,
            KEEP,
            task_id=task_id,
            user_id=user_id,
            queue_id=queue_id,
            data=orjson.dumps(data).decode(),
            now=to_micros(now),
        )


def drop_for_task(conn: Connection, task_id: int) -> None:
    run(conn, DROP_TASK, task_id=task_id)


def drop_flushed(conn: Connection, queue_id: int) -> None:
    run(conn, DROP_ORPHANS, queue_id=queue_id)
