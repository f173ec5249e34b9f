"""`text` blocks: one line, or a multi-line area when the value is long or has line breaks.

In the one-line field `enter` submits, as everywhere in the work screen; `ctrl+n` (shown in the
field's label line) starts a new line, turning the field into the multi-line area with the text
kept and the cursor on the new line.

`read_only` text is the task's content: the work screen shows it, never edits it.
"""

import asyncio
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TextArea

from queuedesk.api.models import Block
from queuedesk.tui.forms.fields import FieldInput, InputEditor, put_text, shown_text, text_area

LONG_TEXT = 70  # characters from which a value gets the multi-line area


def wants_area(text: str) -> bool:
    return "\n" in text or len(text) > LONG_TEXT


class TextEditor(InputEditor):
    HINT: ClassVar[str] = "ctrl+n new line · esc leaves field"
    MULTI_LINE_HINT: ClassVar[str] = "enter new line · esc leaves field"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_line", "New line", show=False, id="field.new_line"),
    ]

    _area = False

    @classmethod
    def filled_by_worker(cls, block: Block) -> bool:
        return not block.read_only

    def compose_field(self) -> ComposeResult:
        if self.editable and self._area:
            yield text_area(self._text, self.placeholder())
        else:
            yield from super().compose_field()

    def read_only_view(self) -> Widget:
        view = super().read_only_view()
        view.add_class("-text")
        return view

    def key_hint(self) -> str:
        return self.MULTI_LINE_HINT if self._area else self.HINT

    def value(self) -> Any:
        # Text is sent as typed (line breaks and inner spaces kept); only blank text is empty.
        text = self.current_text()
        return text if text.strip() else None

    def set_value(self, value: Any) -> None:
        # Each task's own: a field made multi-line with `ctrl+n` is one line again on the next task.
        self._area = self.editable and wants_area(shown_text(value))
        super().set_value(value)

    def show_text(self) -> None:
        if not self.editable:
            super().show_text()
            return
        # The field there now shows the text at once; the area and the one-line field trade places
        # only through `replace_field` (never a recompose: the focus may be in it).
        areas, fields = self.live_fields(TextArea), self.live_fields(FieldInput)
        if self._area and not areas and fields:
            self.replace_field(fields[0], self._new_area(self._text, len(self._text)))
        elif not self._area and areas:
            self.replace_field(areas[0], next(iter(super().compose_field())))
        for area in self.live_fields(TextArea):
            area.text = self._text
            area.move_cursor(area.document.end)  # typing after a tab into it goes on from the end
        for input_field in self.live_fields(FieldInput):
            put_text(input_field, self._text)
        self.refresh_hint()

    def action_new_line(self) -> None:
        """A line break where the cursor is: in the area, or the one-line field becomes the area (the
        work screen calls `new_line` itself, once the keys typed before `ctrl+n` are in)."""
        self.new_line()

    def new_line(self) -> None:
        """A line break at the cursor (the field's own `ctrl+n`, in the order typed); the one-line
        field becomes the area."""
        if not self.editable:
            return
        areas = self.live_fields(TextArea)
        if areas:
            areas[0].insert("\n")
            return
        fields = self.live_fields(FieldInput)
        if fields:
            field = fields[0]
            self._text = field.value[: field.cursor_position] + "\n" + field.value[field.cursor_position :]
            self._area = True
            self.replace_field(field, self._new_area(self._text, field.cursor_position + 1))
            self.refresh_hint()
            self.value_changed()

    def new_line_as_read(self, field: FieldInput) -> None:
        """`ctrl+n` in the one-line `field`, as the app reads the key (the work screen's priority
        binding): the area takes its place and the focus now, so the keys read after go to it; it
        takes the text (and the line break at the cursor) once `field` has handled the keys typed
        before, and handles none of its own keys before that."""
        if not self.editable:
            return
        self._area = True
        area = self._new_area("", 0)
        typed_before = asyncio.Event()

        async def fill_in_order() -> None:
            await typed_before.wait()
            text, cursor = field.value, field.cursor_position
            area.text = text[:cursor] + "\n" + text[cursor:]
            area.move_cursor(self._location(area.text, cursor + 1))
            field.remove()
            self.refresh_hint()

        self.replace_field(field, area, focus=True, remove=False)
        area.call_later(fill_in_order)  # first in the area's queue: its keys wait for it
        if not field.call_later(typed_before.set):  # behind the keys the field was handed
            typed_before.set()

    @staticmethod
    def _location(text: str, offset: int) -> tuple[int, int]:
        """(row, column) of character `offset` of `text`."""
        before = text[:offset]
        return before.count("\n"), len(before) - (before.rfind("\n") + 1)

    def _new_area(self, text: str, cursor: int) -> TextArea:
        return text_area(text, self.placeholder(), cursor=self._location(text, cursor))

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._text = event.text_area.text
        self.value_changed()
