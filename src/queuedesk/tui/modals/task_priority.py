"""Changing a pending task's priority and due date (B24, admins): two fields checked as typed
(`priority_rules`: a whole number from -1000 to 1000; a time, a date, `+2h`, or `none`) against the
app's clock; `ctrl+s` or `enter` saves once both fit, `escape` leaves them as they were. A value
the server refuses is said in a notification by the pane that sends it."""

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from queuedesk.api.models import AssignedTask
from queuedesk.api.priority_rules import due_text, parse_due, parse_priority
from queuedesk.api.timestamps import format_timestamp
from queuedesk.tui.base import AppModal
from queuedesk.tui.keys.ordered_keys import OrderedInput

DUE_HINT = "a time (2026-12-24T17:00Z), a date, +30m / +2h / +1d from now, or none"


@dataclass(frozen=True)
class PriorityDue:
    """What the dialog chose: the task's new priority and due date (None: no due date)."""

    priority: int
    due_at: datetime | None


def read_priority_due(priority: str, due: str, now: datetime) -> tuple[PriorityDue | None, list[str]]:
    """The values the fields say, or what is wrong with them (nothing sent while anything is)."""
    problems = []
    chosen_priority = chosen_due = None
    try:
        chosen_priority = parse_priority(priority or "0")
    except ValueError as exc:
        problems.append(f"Priority: {exc}")
    try:
        chosen_due = parse_due(due, now)
    except ValueError as exc:
        problems.append(f"Due: {exc}")
    if problems or chosen_priority is None:
        return None, problems
    return PriorityDue(chosen_priority, chosen_due), []


class PriorityDueScreen(AppModal[PriorityDue | None]):
    """Dismisses with the new `PriorityDue`, or None when cancelled."""

    DEFAULT_CSS = """
    PriorityDueScreen { align: center middle; }
    #priority-box { width: 72; max-width: 100%; height: auto; border: thick $primary; padding: 0 2; }
    #priority-title { text-style: bold; padding-bottom: 1; }
    .priority-field-name { margin-top: 1; }
    #priority-said { color: $text-muted; height: auto; }
    #priority-problems { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="priority.cancel"),
        Binding("ctrl+s", "save", "Save", priority=True, id="priority.save"),
    ]

    def __init__(self, task: AssignedTask) -> None:
        super().__init__()
        self.for_task = task

    def compose(self) -> ComposeResult:
        due = self.for_task.due_at
        with Vertical(id="priority-box"):
            yield Label(
                f"Priority and due date of task {self.for_task.id}", id="priority-title", markup=False
            )
            yield Static("Claims take the higher priority first, then the earliest due date.", markup=False)
            yield Label("Priority (-1000 to 1000; 0 is the default)", classes="priority-field-name")
            yield OrderedInput(str(self.for_task.priority), id="priority-value", compact=True)
            yield Label(f"Due ({DUE_HINT})", classes="priority-field-name", markup=False)
            yield OrderedInput(
                "none" if due is None else format_timestamp(due), id="priority-due", compact=True
            )
            yield Static("", id="priority-said", markup=False)
            yield Static("", id="priority-problems", markup=False)
            yield Static("enter or ctrl+s saves · escape leaves both as they are", markup=False)

    def on_mount(self) -> None:
        self.query_one("#priority-value", Input).focus()
        self._check()

    @on(Input.Changed)
    def _check(self) -> None:
        chosen, problems = self._read()
        said = ""
        if chosen is not None:
            due = due_text(chosen.due_at, self.clock.now()) or "no due date"
            said = f"Priority {chosen.priority}, {due}."
        self.query_one("#priority-said", Static).update(said)
        self.query_one("#priority-problems", Static).update("\n".join(problems))

    def _read(self) -> tuple[PriorityDue | None, list[str]]:
        return read_priority_due(
            self.query_one("#priority-value", Input).value,
            self.query_one("#priority-due", Input).value,
            self.clock.now(),
        )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        self.after_keys(self._save)

    def _save(self) -> None:
        chosen, problems = self._read()
        if chosen is None:
            self.query_one("#priority-problems", Static).update("\n".join(problems))
            self.notify("\n".join(problems), title="Not saved", severity="warning", timeout=6)
            return
        self.dismiss(chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
