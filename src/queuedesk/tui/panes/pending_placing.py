"""Where a pending task stands in line, as the Pending tab shows it (B24, B25): its priority, when it
is due (relative to the app's clock: "in 3 h", "late 2 d" in red) and who it is reserved for, and
the tab's overdue filter. Plain functions of a task and a moment: the tab composes them, the unit
tests call them."""

from datetime import datetime

from rich.text import Text

from queuedesk.api.models import AssignedTask
from queuedesk.api.priority_rules import is_overdue, priority_text, span_text
from queuedesk.api.terminal_text import shown

# The columns the tab adds on a server with B24 (priority, due) and B25 (reserved for), kept narrow
# so that at 80 columns the holder and the lease still show: (key, label, width).
PRIORITY_COLUMNS = [("priority", "Pri", 4), ("due", "Due", 11)]
RESERVED_COLUMNS = [("reserved", "Reserved", 10)]
OVERDUE_SAID = "Only overdue tasks (d: every task)"


def due_cell(due_at: datetime | None, now: datetime) -> Text:
    """ "in 3 h", "in 12 min", "now", "late 2 d" (bold red once the due date passed), "" for none."""
    if due_at is None:
        return Text("")
    seconds = (due_at - now).total_seconds()
    if is_overdue(due_at, now):
        return Text("late " + span_text(seconds) if seconds <= -60 else "now", style="bold red")
    return Text(
        "in " + span_text(seconds) if seconds >= 60 else "now", style="yellow" if seconds < 3600 else ""
    )


def priority_cell(priority: int) -> Text:
    """ "+5" in bold, "-10" dim, "" for the default 0."""
    style = "bold" if priority > 0 else "dim" if priority < 0 else ""
    return Text(priority_text(priority), style=style, justify="right")


def reserved_cell(task: AssignedTask) -> str:
    return shown(task.reserved_for or "")


def placing_cells(task: AssignedTask, now: datetime, *, priority: bool, reserved: bool) -> list[str | Text]:
    cells: list[str | Text] = []
    if priority:
        cells += [priority_cell(task.priority), due_cell(task.due_at, now)]
    if reserved:
        cells.append(reserved_cell(task))
    return cells
