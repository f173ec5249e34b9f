"""`number` blocks: typed as people type numbers (`api/numbers.typed_number`): an int when the text is
a whole number, else a float; a decimal comma is read as a decimal point, and a mix of marks is
refused under the field, never guessed.

A text field, not Textual's "number" input: that one drops every key its pattern refuses without a
word, so `12,5` became 125."""

from typing import Any, ClassVar

from queuedesk.api.numbers import NotANumber, typed_number
from queuedesk.tui.forms.fields import InputEditor


class NumberEditor(InputEditor):
    DEFAULT_PLACEHOLDER: ClassVar[str] = "a number (12.5 or 12,5)"
    HINT: ClassVar[str] = "number · esc leaves field"

    def parse(self, text: str) -> Any:
        try:
            return typed_number(text)
        except NotANumber:
            return text  # kept as typed; `parse_problem` says what is wrong with it

    def parse_problem(self) -> str | None:
        text = self.current_text().strip()
        if not text:
            return None
        try:
            typed_number(text)
        except NotANumber as exc:
            return str(exc)
        return None
