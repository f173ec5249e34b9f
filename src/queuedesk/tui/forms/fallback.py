"""Any other block type (rich_text, list, sequences, annotations, types from a newer server).

Shown read-only as markdown (`rich_text`), one bullet per item (a `list` or `text_sequence` of plain
values), text (other strings) or indented JSON, whatever the value is. When creating a task it
is typed: text for `rich_text`, JSON for the others (checked with the type's rule once parsed).
"""

import json
from typing import Any

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static, TextArea

from queuedesk.api.terminal_text import shown
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.fields import text_area

TEXT_TYPES = frozenset({"rich_text"})
COMPACT_JSON = 60  # characters up to which a value is shown on one line


LIST_TYPES = frozenset({"list", "text_sequence"})


def listed(value: Any) -> str | None:
    """A list of plain values as lines of bullets (None when it holds anything else)."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(item, str | int | float | bool) for item in value):
        return None
    return "\n".join(f"• {item}" for item in value)


def shown_value(value: Any) -> str:
    """A value as people read it: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    try:
        compact = json.dumps(value, ensure_ascii=False, default=str)
        if len(compact) <= COMPACT_JSON:
            return compact
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


class FallbackEditor(BlockEditor):
    WORKER_FILLS = False

    _raw: Any = None
    _text = ""

    @property
    def is_text(self) -> bool:
        return self.block.type in TEXT_TYPES

    def compose_field(self) -> ComposeResult:
        if self.editable:
            yield text_area(self._text, self.placeholder())
        elif self._raw is None:
            yield Static("—", classes="editor-value -empty")
        elif self.is_text and isinstance(self._raw, str):
            from textual.widgets import Markdown  # only a task with rich text pays for it

            yield Markdown(shown(self._raw), open_links=False, classes="editor-value -markdown")
        elif self.block.type in LIST_TYPES and (lines := listed(self._raw)) is not None:
            yield Static(shown(lines), classes="editor-value -list", markup=False)
        else:
            yield Static(shown(shown_value(self._raw)), classes="editor-value -fallback", markup=False)

    def placeholder(self) -> str:
        return "text" if self.is_text else "JSON"

    def key_hint(self) -> str:
        return "enter new line · esc leaves field" if self.is_text else "JSON · esc leaves field"

    def field_text(self) -> str:
        """The text as the field holds it now."""
        areas = self.query(TextArea) if self.editable and self.composed else None
        return areas.first().text if areas else self._text

    def _parsed(self) -> tuple[Any, str | None]:
        text = self.field_text()
        if not text.strip():
            return None, None
        if self.is_text:
            return text, None
        try:
            return json.loads(text), None
        except json.JSONDecodeError as error:
            return text, f"not valid JSON ({error.msg}, line {error.lineno})"
        except ValueError as error:  # no `msg`: e.g. an integer of more digits than Python converts
            return text, f"not JSON that can be read ({error})"
        except RecursionError:
            return text, "not JSON that can be read (nested too deeply)"

    def text_for(self, value: Any) -> str:
        """The text the field shows for `value`."""
        return "" if value is None else shown_value(value)

    def value(self) -> Any:
        if not self.editable:
            return self._raw
        return self._parsed()[0]

    def parse_problem(self) -> str | None:
        return self._parsed()[1] if self.editable else None

    def set_value(self, value: Any) -> None:
        self._raw = value
        self._text = self.text_for(value)
        if self.composed:
            if self.editable:
                self._show_in_area()
            else:
                self.refresh(recompose=True)  # read-only content: nothing in it takes the focus
        self.value_changed()

    def _show_in_area(self) -> None:
        """The text, its placeholder and its keys in the field there now: the area is never replaced
        (the focus may be in it, or be given to it before a recompose would be done; `replace_field`)."""
        for area in self.query(TextArea):
            area.text = self._text
            area.placeholder = Content(self.placeholder())
            area.move_cursor(area.document.end)
        self.refresh_hint()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._text = event.text_area.text
        self.value_changed()
