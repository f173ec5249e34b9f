"""`single_selection` blocks: one option, chosen with its number; the value is the option's id."""

from typing import Any

from queuedesk.tui.forms.options import OptionsEditor, number_range


class SingleSelectionEditor(OptionsEditor):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._choice: Any = None
        super().__init__(*args, **kwargs)

    def names(self) -> list[str]:
        return [option.name for option in self.block.options]

    def ids(self) -> list[str]:
        return [option.id for option in self.block.options]

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
