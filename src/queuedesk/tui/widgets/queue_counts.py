"""The line under a queue's header: its pending (with those in progress), completed, and who works now."""

from textual.content import Content
from textual.widgets import Static

from queuedesk.api.models import Queue


class QueueCounts(Static):
    def show(self, queue: Queue, *, in_progress: int | None, completed: int | None) -> None:
        """`in_progress` and `completed` are None when not read (a basic server, a refusal)."""
        pending = Content.assemble((f"{queue.n_tasks:,}", "bold"), " pending")
        if in_progress is not None:  # a part of the pending, not beside them
            pending += f" ({in_progress:,} in progress)"
        parts = [pending]
        if completed is not None:
            parts.append(Content.assemble((f"{completed:,}", "bold"), " completed"))
        active = ", ".join(queue.active_users) if queue.active_users else "nobody"
        parts.append(Content(f"working now: {active}"))  # names as written, never markup
        self.update(Content("  ·  ").join(parts))
