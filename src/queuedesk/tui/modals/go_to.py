"""`g`: where to go in a long list, typed as a task id or a day (YYYY-MM-DD)."""

from datetime import date
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from queuedesk.tui.base import AppModal, styles

Place = int | date  # a task id, or a day of the shown zone


def read_place(text: str) -> Place | None:
    """A task id ("123", "#123", "task 123") or a day ("2026-11-20"); None when it is neither."""
    words = text.strip().lower().removeprefix("task").strip().lstrip("#")
    if words.isdigit() and int(words) > 0:
        return int(words)
    try:
        return date.fromisoformat(words)
    except ValueError:
        return None


class GoToScreen(AppModal[Place | None]):
    """Dismisses with the place typed, or None (escape)."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="go_to.cancel")]

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(f"Go to … in {self.what}", id="confirm-title", markup=False)
            yield Input(placeholder="a task id (123) or a day (YYYY-MM-DD), enter goes", id="go-to")
            yield Static("", id="go-to-problem", markup=False)

    def on_mount(self) -> None:
        self.query_one("#go-to", Input).focus()

    @on(Input.Submitted, "#go-to")
    def _go(self, event: Input.Submitted) -> None:
        place = read_place(event.value)
        if place is None:
            event.input.add_class("-invalid")
            self.query_one("#go-to-problem", Static).update(
                f"{event.value.strip() or 'Nothing'} is neither a task id nor a day: type 123 or 2026-11-20."
            )
            return
        self.dismiss(place)

    def action_cancel(self) -> None:
        self.dismiss(None)
