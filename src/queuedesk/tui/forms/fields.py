"""A one-line typed field: the base of the number, date, email and address editors (and short text).

`enter` in such a field is not taken by the field: it goes on to the screen, whose `enter` submits.
"""

from typing import Any, ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from queuedesk.api.terminal_text import shown
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.keys.ordered_keys import KeysOwnBindings, OrderedInput

InputType = Literal["integer", "number", "text"]


class FieldInput(OrderedInput):
    """An `Input` that leaves `enter` to the screen instead of posting `Input.Submitted`; its editing
    keys act in the order typed (`OrderedInput`)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit":
            return False
        return super().check_action(action, parameters)


class FieldArea(KeysOwnBindings, TextArea):
    """A multi-line field whose editing keys act in the order typed (`KeysOwnBindings`), `ctrl+n`
    (a text field's new line, as in its one-line form) too."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+n", "new_line", "New line", show=False)]

    def action_new_line(self) -> None:
        self.insert("\n")

    start_at: tuple[int, int] | None = None
    """Where the cursor starts (a one-line field made multi-line: after the line break), else the end."""

    def on_mount(self) -> None:
        # A worker tabbing in goes on typing after what the field holds (as `put_text`).
        self.move_cursor(self.start_at if self.start_at is not None else self.document.end)


def put_text(field: Input, text: str) -> None:
    """Show `text` in a one-line field with the cursor after it, where a worker tabbing in goes on
    typing. Textual leaves the cursor where it was once a field's value has been set before: after
    a draft came back, a digit typed into "50" made "350"."""
    field.value = text
    field.cursor_position = len(text)


def live_text(field: Widget) -> str | None:
    """The text a field holds now, ahead of the `Changed` message it posted (None: not a text field).

    A decision made right after a burst reads this: the message may still be on its way."""
    if isinstance(field, TextArea):
        return field.text
    if isinstance(field, Input):
        return field.value
    return None


def shown_text(value: Any) -> str:
    """A value as a field shows it: None is empty, anything else its text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def text_area(text: str, placeholder: str, *, cursor: tuple[int, int] | None = None) -> TextArea:
    """A multi-line field: it wraps, `enter` is a new line, `tab` goes on to the next editor; its
    cursor starts at `cursor` (row, column), else at the end."""
    area = FieldArea(
        text,
        soft_wrap=True,
        tab_behavior="focus",
        compact=True,
        placeholder=Content(placeholder),  # a str would be read as markup
        classes="editor-area",
    )
    area.start_at = cursor
    return area


class InputEditor(BlockEditor):
    """One line of typed text; subclasses say how the text becomes a value (`parse`)."""

    INPUT_TYPE: ClassVar[InputType] = "text"
    DEFAULT_PLACEHOLDER: ClassVar[str] = ""
    HINT: ClassVar[str] = "esc leaves the field"

    _text = ""

    def placeholder(self) -> str:
        placeholder = self.block.settings.get("placeholder")
        return shown_text(placeholder) if placeholder not in (None, "") else self.DEFAULT_PLACEHOLDER

    def compose_field(self) -> ComposeResult:
        if self.editable:
            yield FieldInput(
                self._text,
                placeholder=self.placeholder(),
                type=self.INPUT_TYPE,
                compact=True,
                select_on_focus=False,
                classes="editor-input",
            )
        else:
            yield self.read_only_view()

    def read_only_view(self) -> Widget:
        if not self._text:
            return Static("—", classes="editor-value -empty")
        return Static(shown(self._text), classes="editor-value", markup=False)

    def key_hint(self) -> str:
        return self.HINT

    def parse(self, text: str) -> Any:
        """The value typed as `text` (already stripped, never empty)."""
        return text

    def value(self) -> Any:
        text = self.current_text().strip()
        return self.parse(text) if text else None

    def current_text(self) -> str:
        """The text typed, as the field holds it now."""
        if self.editable and self.composed:
            for field in self.query(".editor-input, .editor-area"):
                text = live_text(field)
                if text is not None:
                    return text
        return self._text

    def set_value(self, value: Any) -> None:
        self._text = shown_text(value)
        if self.composed:
            self.show_text()
        self.value_changed()

    def show_text(self) -> None:
        """Put `self._text` in the mounted field."""
        if self.editable:
            put_text(self.query_one(FieldInput), self._text)
        else:
            self.query_one(".editor-value").remove()
            self.mount(self.read_only_view(), before=self.query_one(".editor-problem"))

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FieldInput):
            event.stop()
            self._text = event.value
            self.value_changed()
