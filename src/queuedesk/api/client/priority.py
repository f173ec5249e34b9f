"""Priority and due dates (B24): a task's PATCH, a queue's claim `order`, the overdue tasks.

Every call here first checks that the server lists B24 in `GET /me`'s `features`: on an older
server (or the original service) it raises `NoPriority`, with nothing sent. Creating and importing
tasks with a priority or due date are `create_task(..., priority=, due_at=)` and
`import_tasks(..., placed=)`; a queue's overdue count is `Queue.n_overdue` (0 from an older server).
"""

from datetime import datetime
from typing import Any, Final

from queuedesk.api import models
from queuedesk.api.client.tasks import TasksMixin
from queuedesk.api.client.transport import body_of
from queuedesk.api.priority_rules import order_problem, priority_problem
from queuedesk.api.timestamps import format_timestamp


class Keep:
    """The default of `patch_task(due_at=)`: leave the due date as it is (None clears it)."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = Keep()


class PriorityMixin(TasksMixin):
    """B24 through its PATCH, B12/B13's `order` and B2's `overdue`."""

    async def supports_priority(self) -> bool:
        """True when the server has priority and due dates (B24 among `/me`'s `features`)."""
        return await self.supports("B24")

    async def patch_task(
        self,
        queue_id: int,
        task_id: int,
        *,
        priority: int | None = None,
        due_at: datetime | Keep | None = KEEP,
    ) -> models.AssignedTask:
        """B24's PATCH: a new `priority` (-1000..1000) and/or `due_at` (None: no due date) of a task
        not completed (`Conflict` `already_completed` otherwise). (admins; `NoPriority` on a server
        without B24; a priority out of range is a `ValueError` with nothing sent)"""
        if priority is None and isinstance(due_at, Keep):
            raise ValueError("give a new priority or due_at (None clears the due date)")
        if priority is not None and (problem := priority_problem(priority)):
            raise ValueError(problem)
        what = f"Changing the priority or due date of task {task_id}"
        await self._require_feature("B24", what)
        body: dict[str, Any] = {}
        if priority is not None:
            body["priority"] = priority
        if not isinstance(due_at, Keep):
            body["due_at"] = None if due_at is None else format_timestamp(due_at)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}"
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.AssignedTask, body_of(response, what), what)

    async def set_queue_order(self, queue_id: int, order: str) -> models.QueueDetail:
        """B13 with `order`: "oldest" (priority, due date, age) or "least_confident" (priority, the
        lowest suggestion score, due date, age). (admins; `NoPriority` on a server without B24)"""
        if problem := order_problem(order):
            raise ValueError(problem)
        return await self.update_queue(queue_id, order=order)

    async def queue_with_order(self, queue_id: int) -> models.QueueDetail:
        """A4 for the queue's `order`; `NoPriority` on a server without B24, where "oldest" says nothing."""
        await self._require_feature("B24", f"Reading the claim order of queue {queue_id}")
        return await self.queue(queue_id)

    async def overdue_tasks(self, queue_id: int, *, page_size: int = 1000) -> list[models.AssignedTask]:
        """Every pending task of the queue whose due date has passed (B2 with `overdue=true`)."""
        found: list[models.AssignedTask] = []
        offset = 0
        while True:
            page = await self.pending_tasks(queue_id, overdue=True, offset=offset, limit=page_size)
            found += page.tasks
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return found
