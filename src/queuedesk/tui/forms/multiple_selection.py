"""`multiple_selection` blocks: digits toggle options; the value is the list of chosen ids."""

from typing import Any

from queuedesk.api.models import Block
from queuedesk.tui.forms.options import SelectionEditor, number_range


class MultipleSelectionEditor(SelectionEditor):
    MARKS = ("■", "□")

    def __init__(self, block: Block, *args: Any, **kwargs: Any) -> None:
        self._chosen: list[Any] = []
        super().__init__(block, *args, **kwargs)

    def is_chosen(self, index: int) -> bool:
        return self.ids()[index] in self._chosen

    def pick(self, index: int) -> None:
        option_id = self.ids()[index]
        if option_id in self._chosen:
            self._chosen.remove(option_id)
        else:
            self._chosen.append(option_id)
        self.value_changed()

    def clear(self) -> None:
        self._chosen = []
        self.value_changed()

    def key_hint(self) -> str:
        if self.filtering:
            return "enter toggles · esc closes"
        if self._typed:
            return f"typed {self._typed}…"
        if self.count > 10:
            return f"type {number_range(self.count)} toggle · / filter · ⌫ clear"
        return f"{number_range(self.count)} toggle · ⌫ clear"

    def value(self) -> Any:
        if not self._chosen:
            return None
        order = {option_id: i for i, option_id in enumerate(self.ids())}
        return sorted(
            self._chosen, key=lambda v: order.get(v, len(order)) if isinstance(v, str) else len(order)
        )

    def set_value(self, value: Any) -> None:
        if value is None:
            self._chosen = []
        elif isinstance(value, list):
            self._chosen = list(value)
        else:
            self._chosen = [value]
        self.show_choices()
        self.value_changed()
