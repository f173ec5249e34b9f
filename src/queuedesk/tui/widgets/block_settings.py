"""The settings of one block being edited: id, name, type and what that type takes.

Each field has a problem line under it (`show_problems`); every change is posted as `Changed`
after the draft was updated, so the screen can check the blocks and redraw the preview.
"""

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static, TextArea

from queuedesk.api.blocks import BLOCK_TYPES
from queuedesk.tui.admin.queue_draft import BOOL_SETTINGS, BlockDraft, options_text, parse_options

LABELS = {
    "is_required": "Required (the worker must fill it)",
    "read_only": "Read only (shown, not edited)",
    "placeholder": "Placeholder",
    "format": "Format",
    "subtype": "Subtype",
    "options": "Options, one a line as id: Name (a name alone makes its id)",
}


class BlockSettings(Vertical):
    class Changed(Message):
        def __init__(self, settings: "BlockSettings", field: str) -> None:
            super().__init__()
            self.settings = settings
            self.field = field

    def __init__(self, draft: BlockDraft, index: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.draft = draft
        self.index = index

    def compose(self) -> ComposeResult:
        draft = self.draft
        yield Label(f"Block {self.index + 1}", id="block-heading", classes="qe-heading")
        yield row(
            "Id", Input(draft.id, placeholder="the key in the tasks' data", id="block-id", compact=True)
        )
        yield _problem("id")
        yield row("Name", Input(draft.name, id="block-name", compact=True))
        yield _problem("name")
        types = [(name, name) for name in BLOCK_TYPES]
        yield row("Type", Select(types, value=draft.type, allow_blank=False, id="block-type", compact=True))
        yield _problem("type")
        keys = draft.setting_keys()
        if not keys and BLOCK_TYPES[draft.type].free_settings:
            yield Static(
                "This type's settings are kept as they are (edit them in a file: queuedesk queue edit).",
                classes="qe-note",
            )
        for key in keys:
            value = draft.settings.get(key)
            if key in BOOL_SETTINGS:
                yield Checkbox(
                    LABELS[key], bool(value), id=f"setting-{key}", classes="qe-check", compact=True
                )
            elif key == "options":
                yield Static(LABELS[key], classes="qe-label")
                yield TextArea(options_text(value), id="setting-options", compact=True)
            else:
                text = "" if value is None else str(value)
                field = Input(text, id=f"setting-{key}", classes="qe-setting", compact=True)
                yield row(LABELS.get(key, key), field)
            yield _problem(key)

    def renumber(self, index: int) -> None:
        """The block moved to `index` (its draft is the same)."""
        self.index = index
        self.query_one("#block-heading", Label).update(f"Block {index + 1}")

    def show_problems(self, problems: dict[str, str]) -> None:
        """Each message under its field; the others cleared."""
        for line in self.query(".qe-problem").results(Static):
            key = (line.id or "").removeprefix("problem-")
            message = problems.get(key)
            line.update(message or "")
            line.display = message is not None

    def focus_field(self, key: str) -> None:
        target = {"id": "#block-id", "name": "#block-name", "type": "#block-type"}.get(key, f"#setting-{key}")
        found = self.query(target)
        if found:
            found.first().focus()

    # --- changes ------------------------------------------------------------------------------

    def _changed(self, key: str) -> None:
        self.post_message(self.Changed(self, key))

    @on(Input.Changed, "#block-id")
    def _id_changed(self, event: Input.Changed) -> None:
        self.draft.id = event.value.strip()
        self._changed("id")

    @on(Input.Changed, "#block-name")
    def _name_changed(self, event: Input.Changed) -> None:
        self.draft.name = event.value
        self._changed("name")

    @on(Select.Changed, "#block-type")
    def _type_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.draft.type:
            self.draft.retype(event.value)
            self._changed("type")

    @on(Checkbox.Changed)
    def _flag(self, event: Checkbox.Changed) -> None:
        key = (event.checkbox.id or "").removeprefix("setting-")
        self.draft.settings[key] = event.value
        self._changed(key)

    @on(Input.Changed, ".qe-setting")
    def _text_setting(self, event: Input.Changed) -> None:
        key = (event.input.id or "").removeprefix("setting-")
        self.draft.settings[key] = _setting_value(key, event.value, self.draft.type)
        self._changed(key)

    @on(TextArea.Changed, "#setting-options")
    def _options(self, event: TextArea.Changed) -> None:
        self.draft.settings["options"] = parse_options(event.text_area.text)
        self._changed("options")


def row(label: str, field: Widget) -> Horizontal:
    """A field with its label before it, on one line."""
    return Horizontal(Label(label, classes="qe-row-label"), field, classes="qe-row")


def _problem(key: str) -> Static:
    line = Static("", id=f"problem-{key}", classes="qe-problem", markup=False)
    line.display = False
    return line


def _setting_value(key: str, text: str, type_name: str) -> Any:
    """A number block's placeholder may be a number; everything else is text."""
    if key == "placeholder" and type_name == "number":
        try:
            return int(text) if text.strip().lstrip("-").isdigit() else float(text)
        except ValueError:
            return text
    return text
