"""A guard before a change that cannot be taken back: what will happen, and Cancel with the focus."""

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from queuedesk.tui.base import AppModal, styles


class ConfirmScreen(AppModal[bool]):
    """Dismisses with True only when the action's button is pressed."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="confirm.cancel")]

    def __init__(self, title: str, explain: str, action: str) -> None:
        super().__init__()
        self.title_text = title
        self.explain = explain
        self.action = action

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.title_text, id="confirm-title", markup=False)
            yield Static(self.explain, id="confirm-explain", markup=False)
            with Horizontal(id="confirm-actions"):
                yield Button("Cancel", id="confirm-cancel")
                yield Button(self.action, variant="error", id="confirm-run")

    def on_mount(self) -> None:
        self.query_one("#confirm-cancel", Button).focus()

    @on(Button.Pressed, "#confirm-run")
    def _confirmed(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
