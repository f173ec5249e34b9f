"""The line under a queue's header: its pending (with those in progress), overdue (B24), completed,
and who works now."""

from textual.content import Content
from textual.widgets import Static

from queuedesk.api.models import Queue


class QueueCounts(Static):
    def show(
        self, queue: Queue, *, in_progress: int | None, completed: int | None, reserved_for_me: int = 0
    ) -> None:
        """`in_progress` and `completed` are None when not read (a basic server, a refusal);
        `reserved_for_me`: the pending tasks reserved for the person working (B25)."""
        pending = Content.assemble((f"{queue.n_tasks:,}", "bold"), " pending")
        if in_progress is not None:  # a part of the pending, not beside them
            pending += f" ({in_progress:,} in progress)"
        parts = [pending]
        if queue.n_overdue:  # B24; 0 (unsaid) from a server without it
            parts.append(Content.assemble((f"{queue.n_overdue:,} overdue", "bold red")))
        if reserved_for_me:  # B25: they reach this worker before any other work
            parts.append(Content.assemble((f"{reserved_for_me:,} reserved for you", "bold $accent")))
        if completed is not None:
            parts.append(Content.assemble((f"{completed:,}", "bold"), " completed"))
        active = ", ".join(queue.active_users) if queue.active_users else "nobody"
        parts.append(Content(f"working now: {active}"))  # names as written, never markup
        self.update(Content("  ·  ").join(parts))
