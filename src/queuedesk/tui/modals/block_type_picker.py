"""Which type of block to add: the core types first, each with what a worker does with it."""

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from queuedesk.api.blocks import BLOCK_TYPES
from queuedesk.tui.base import AppModal, styles

WHAT = {
    "text": "text to read, or to type",
    "single_selection": "one choice among options",
    "multiple_selection": "several choices among options",
    "image": "a picture shown to the worker",
    "binary": "yes or no",
    "number": "a number",
    "date": "a date",
    "email": "an email address",
    "link": "a link to open",
}


class BlockTypePicker(AppModal[str | None]):
    """Dismisses with the chosen type, or None."""

    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="block_type.cancel")]

    def compose(self) -> ComposeResult:
        first = [name for name in WHAT if name in BLOCK_TYPES]
        rest = [name for name in BLOCK_TYPES if name not in WHAT]
        options = [Option(f"{name:<20} {WHAT[name]}", id=name) for name in first]
        options += [Option(name, id=name) for name in rest]
        with Vertical(id="block-type-box"):
            yield Label("Add a block of which type?", id="block-type-title")
            yield OptionList(*options, id="block-type-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
