"""`number` blocks: typed digits; the value is an int when the text is a whole number, else a float."""

from typing import Any, ClassVar

from queuedesk.tui.forms.fields import InputEditor, InputType


class NumberEditor(InputEditor):
    INPUT_TYPE: ClassVar[InputType] = "number"
    DEFAULT_PLACEHOLDER: ClassVar[str] = "a number"
    HINT: ClassVar[str] = "number · esc leaves field"

    def parse(self, text: str) -> Any:
        cleaned = text.replace("_", "")
        try:
            return int(cleaned)
        except ValueError:
            pass
        try:
            return float(cleaned)
        except ValueError:
            return text  # sent as typed, so the block rule names the problem
