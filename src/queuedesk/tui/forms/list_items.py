"""`list` and `text_sequence` blocks: one item per line, and `form_sequence` as JSON to fill.

A list of text items is edited one item per line (`enter` starts the next item; blank lines are
left out, and each item is taken without the spaces around it). A list that holds anything else
(numbers, objects, text with line breaks) is edited as JSON, so nothing in it turns into text
without a word.
"""

from typing import Any, ClassVar

from queuedesk.tui.forms.fallback import FallbackEditor


def is_plain_list(value: Any) -> bool:
    """A value one item per line can show and give back unchanged."""
    return value is None or (
        isinstance(value, list)
        and all(
            isinstance(item, str) and item == item.strip() and item and "\n" not in item for item in value
        )
    )


class ListEditor(FallbackEditor):
    WORKER_FILLS: ClassVar[bool] = True

    _as_json = False

    def text_for(self, value: Any) -> str:
        self._as_json = not is_plain_list(value)
        if self._as_json:
            return super().text_for(value)
        return "\n".join(value or [])

    def placeholder(self) -> str:
        return "JSON (a list)" if self._as_json else "one item per line"

    def key_hint(self) -> str:
        return "JSON · esc leaves field" if self._as_json else "enter next item · esc leaves field"

    def _parsed(self) -> tuple[Any, str | None]:
        if self._as_json:
            return super()._parsed()
        items = [line.strip() for line in self.field_text().splitlines() if line.strip()]
        if not items and not isinstance(self._raw, list):
            return None, None  # no value given, none made; an empty list stays one
        return items, None


class SequenceEditor(FallbackEditor):
    """`form_sequence`: filled by the worker, as JSON (its shape is the integration's)."""

    WORKER_FILLS: ClassVar[bool] = True
