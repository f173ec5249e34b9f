"""`single_selection` blocks: one option, chosen with its number; the value is the option's id."""

from typing import Any

from queuedesk.api.models import Block
from queuedesk.tui.forms.options import SelectionEditor, number_range


class SingleSelectionEditor(SelectionEditor):
    def __init__(self, block: Block, *args: Any, **kwargs: Any) -> None:
        self._choice: Any = None
        super().__init__(block, *args, **kwargs)

    def is_chosen(self, index: int) -> bool:
        return self.ids()[index] == self._choice

    def pick(self, index: int) -> None:
        self._choice = self.ids()[index]  # the same digit again: the same choice, kept
        self.value_changed()
        self.chosen()

    def clear(self) -> None:
        self._choice = None
        self.value_changed()

    def key_hint(self) -> str:
        if self.filtering:
            return "enter picks · esc closes"
        if self._typed:
            return f"typed {self._typed}…"
        if self.count > 10:
            return f"type {number_range(self.count)} · / filter · ⌫ clear"
        return f"{number_range(self.count)} choose · ⌫ clear"

    def value(self) -> Any:
        return self._choice

    def set_value(self, value: Any) -> None:
        self._choice = value
        self.show_choices()
        self.value_changed()
