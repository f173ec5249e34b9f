"""`multiple_selection` blocks: digits toggle options; the value is the list of chosen ids."""

from typing import Any, ClassVar

from queuedesk.tui.forms.options import SelectionEditor


class MultipleSelectionEditor(SelectionEditor):
    MARKS = ("■", "□")
    CHOOSES: ClassVar[bool] = False
    FILTER_HINT: ClassVar[str] = "enter toggles · esc closes"
    MANY_HINT: ClassVar[str] = "type {numbers} toggle · / filter · ⌫ clear"
    FEW_HINT: ClassVar[str] = "{numbers} toggle · ⌫ clear"

    def is_chosen(self, index: int) -> bool:
        return self.ids()[index] in self._value

    def picked(self, index: int) -> Any:
        chosen = list(self._value)
        option_id = self.ids()[index]
        if option_id in chosen:
            chosen.remove(option_id)
        else:
            chosen.append(option_id)
        return chosen

    def value(self) -> Any:
        if not self._value:
            return None
        order = {option_id: i for i, option_id in enumerate(self.ids())}
        return sorted(
            self._value, key=lambda v: order.get(v, len(order)) if isinstance(v, str) else len(order)
        )

    def set_value(self, value: Any) -> None:
        """Kept as a list of ids (a copy): none for None, a lone id as a list of one."""
        super().set_value([] if value is None else list(value) if isinstance(value, list) else [value])
