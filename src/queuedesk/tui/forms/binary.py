"""`binary` blocks: yes or no (`y`/`n`, or `1`/`2`; `space` toggles), or not set yet."""

from typing import Any, ClassVar

from queuedesk.tui.forms.options import OptionsEditor

CHOICES: tuple[bool, bool] = (True, False)


class BinaryEditor(OptionsEditor):
    COLUMNS: ClassVar[int | None] = 2
    EXTRA_KEYS: ClassVar[tuple[str, ...]] = ("y", "n")

    def names(self) -> list[str]:
        return ["Yes", "No"]

    def is_chosen(self, index: int) -> bool:
        return self._value is CHOICES[index]

    def picked(self, index: int) -> Any:
        return CHOICES[index]

    def extra_key(self, key: str) -> bool:
        if key in ("y", "n"):
            self.chosen_by_key(0 if key == "y" else 1)
            return True
        return False

    def space(self) -> None:
        self.chosen_by_key(1 if self._value is True else 0)  # not set or No -> Yes, Yes -> No

    def key_hint(self) -> str:
        state = "not set · " if self._value is None else ""
        return f"{state}y/n · ⌫ clear"
