"""`single_selection` blocks: one option, chosen with its number; the value is the option's id."""

from typing import Any

from queuedesk.tui.forms.options import SelectionEditor


class SingleSelectionEditor(SelectionEditor):
    def is_chosen(self, index: int) -> bool:
        return self.ids()[index] == self._value

    def picked(self, index: int) -> Any:
        return self.ids()[index]  # the same digit again: the same choice, kept
