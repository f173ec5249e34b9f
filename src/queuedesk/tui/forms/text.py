"""`text` blocks: one line, or a multi-line area when the value is long or has line breaks.

In the one-line field `enter` submits, as everywhere in the work screen; `ctrl+n` (shown in the
field's label line) starts a new line, turning the field into the multi-line area with the text
kept and the cursor on the new line.

`read_only` text is the task's content: the work screen shows it, never edits it.
"""

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
        self._area = self.editable and (self._area or wants_area(shown_text(value)))
        super().set_value(value)

    def show_text(self) -> None:
        if not self.editable:
            super().show_text()
            return
        # The field there now shows the text at once (its value is read before a recompose is done).
        for area in self.query(TextArea):
            area.text = self._text
            area.move_cursor(area.document.end)  # typing after a tab into it goes on from the end
        for field in self.query(FieldInput):
            put_text(field, self._text)
        if self._area != bool(self.query(TextArea)):
            self.refresh(recompose=True)  # the one-line field becomes the area

    def action_new_line(self) -> None:
        """A line break where the cursor is: in the area, or the one-line field becomes the area."""
        if not self.editable:
            return
        areas = self.query(TextArea)
        if areas:
            areas.first().insert("\n")
            return
        self._text = self.current_text() + "\n"
        self._area = True
        self.refresh(recompose=True)
        self.call_after_refresh(self._into_area)

    def _into_area(self) -> None:
        for area in self.query(TextArea):
            area.focus()
            area.move_cursor(area.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._text = event.text_area.text
        self.value_changed()
