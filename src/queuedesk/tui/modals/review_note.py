"""The reviewer's note on a verdict: one line the worker reads with it (B19 keeps up to 2,000
characters). `enter` keeps it, `escape` leaves it as it was."""

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.keys.ordered_keys import OrderedInput

MAX_NOTE = 2000


class ReviewNoteScreen(AppModal[str | None]):
    """Dismisses with the note (possibly empty), or None when cancelled."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="review_note.cancel"),
        Binding("enter", "keep", "Keep the note", priority=True, id="review_note.keep"),
    ]

    def __init__(self, title: str, explain: str, note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.explain = explain
        self.note = note
        self.closing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="review-note-box"):
            yield Label(self.title_text, id="confirm-title", markup=False)
            yield Static(self.explain, id="confirm-explain", markup=False)
            yield OrderedInput(
                self.note, placeholder="what the worker should know", max_length=MAX_NOTE, id="review-note"
            )

    def on_mount(self) -> None:
        self.query_one("#review-note", OrderedInput).focus()

    def action_keep(self) -> None:
        # After the letters typed before `enter` reach the field (the screen's key order).
        note = self.query_one("#review-note", OrderedInput)
        self.after_keys(lambda: self._close(note.value.strip()))

    def action_cancel(self) -> None:
        self._close(None)

    def _close(self, note: str | None) -> None:
        # Once: a second `enter` read before the dialog is gone would dismiss the screen below it.
        if not self.closing:
            self.closing = True
            self.dismiss(note)
