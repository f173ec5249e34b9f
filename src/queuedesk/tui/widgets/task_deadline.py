"""One line above the task being worked on: when it is due ("due in 12 min"; "overdue 2 h" in red),
a high priority, and "reserved for you" (B24, B25). Hidden when the task has none of them, so a
queue without deadlines looks as it always did. Time is the app's clock (`now` is given)."""

from datetime import datetime

from textual.content import Content
from textual.widgets import Static

from queuedesk.api.models import AssignedTask
from queuedesk.api.priority_rules import due_text, is_overdue, priority_text


def deadline_line(task: AssignedTask | None, now: datetime, me: str | None) -> Content | None:
    """What the line says of `task` for the person `me` (an email), or None: nothing to say."""
    if task is None or task.status == "completed":
        return None
    parts: list[Content] = []
    if task.due_at is not None:
        late = is_overdue(task.due_at, now)
        parts.append(Content.styled(due_text(task.due_at, now), "bold reverse $error" if late else "bold"))
    if task.priority > 0:
        parts.append(Content.styled(f"priority {priority_text(task.priority)}", "bold $warning"))
    elif task.priority < 0:
        parts.append(Content(f"priority {priority_text(task.priority)}"))
    if task.reserved_for:
        mine = me is not None and task.reserved_for.casefold() == me.casefold()
        parts.append(
            Content.styled("reserved for you", "bold $accent")
            if mine
            else Content(f"reserved for {task.reserved_for}")
        )
    return Content(" · ").join(parts) if parts else None


class TaskDeadline(Static):
    DEFAULT_CSS = """
    TaskDeadline { height: 1; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.display = False

    def show(self, task: AssignedTask | None, now: datetime, me: str | None) -> None:
        line = deadline_line(task, now, me)
        self.display = line is not None
        if line is not None:
            self.update(line)
