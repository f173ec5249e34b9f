"""`BlockEditor`: the editor of one block — a label line, the field, a problem line.

Every editor checks its value with the block rules the server uses (`queuedesk.api.blocks`): empty
means `blocks.is_empty`, and a value must pass its block type's own check. An editor only adds what
the rules cannot know (JSON that does not parse).
"""

from typing import Any, ClassVar, TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.api import blocks
from queuedesk.api.models import Block
from queuedesk.api.terminal_text import shown

REQUIRED = "required"
W = TypeVar("W", bound=Widget)
REPLACED = "-replaced"  # a field widget `replace_field` is taking away


class EditorMessage(Message):
    """A message about one editor, which is its `control`."""

    def __init__(self, editor: "BlockEditor") -> None:
        super().__init__()
        self.editor = editor

    @property
    def control(self) -> "BlockEditor":
        return self.editor


class BlockEditor(Widget):
    """Shows one block's value and, when `editable`, lets it be changed.

    Subclasses give the field (`compose_field`), `value`, `set_value` and a short `key_hint`. They
    need no `__init__`: the first `set_value` runs in this one, so state it reads before setting is
    a class default (`_area = False`), and what comes from the block is derived from `self.block`.
    """

    WORKER_FILLS: ClassVar[bool] = True
    """In the work screen: is this block a question the worker answers (else it is task content)?"""

    _problem: str | None = None

    class Changed(EditorMessage):
        """The editor's value changed (a key, a paste or `set_value`)."""

    class Chosen(EditorMessage):
        """A choice was made with a key (a digit, `y`/`n`, `space`, `enter` in a filter).

        The work screen's "submit on choice" listens for this.
        """

    def __init__(
        self,
        block: Block,
        value: Any = None,
        *,
        editable: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.block = block
        self.editable = editable
        if not editable:
            self.can_focus = False
        self.set_class(not editable, "-read-only")
        self.set_class(editable and block.is_required, "-required")
        self._last_value: Any = None
        self.reset(value)

    @classmethod
    def filled_by_worker(cls, block: Block) -> bool:
        """Whether, in the work screen, `block` is for the worker to fill."""
        return cls.WORKER_FILLS

    # --- what subclasses provide ----------------------------------------------------------------

    def compose_field(self) -> ComposeResult:
        """The field itself, between the label line and the problem line."""
        raise NotImplementedError

    def value(self) -> Any:
        """The value as it would be sent; None when empty."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        """Show `value` (as a task's `data` holds it); any value is shown, even one that does not fit."""
        raise NotImplementedError

    def key_hint(self) -> str:
        """The keys of this field, in a few words, for the label line."""
        return ""

    def help_keys(self) -> str:
        """Every key of this field, for f1 (the label line's `key_hint` may have to be shorter)."""
        return self.key_hint()

    def forget_keys(self) -> None:
        """Drop what keys left half done (a number being typed, an open filter)."""

    def parse_problem(self) -> str | None:
        """What is wrong before the rules can even look (e.g. JSON that does not parse)."""
        return None

    # --- shared ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(classes="editor-head"):
            yield Static(shown(self.block.name), classes="editor-name", markup=False)
            if self.editable and self.block.is_required:
                yield Static("*", classes="editor-required")
            yield Static(self.key_hint() if self.editable else "", classes="editor-hint", markup=False)
        yield from self.compose_field()
        problem = Static(self._problem or "", classes="editor-problem", markup=False)
        problem.display = self._problem is not None
        yield problem

    def reset(self, value: Any) -> None:
        """Show another task's `value`: no problem shown, nothing half typed."""
        self.set_value(value)
        self.forget_keys()
        self.show_problem(None)

    def problem(self) -> str | None:
        """What keeps this value from being accepted: "required", or the block rule's message."""
        parse = self.parse_problem()
        if parse is not None:
            return parse
        value = self.value()
        if blocks.is_empty(value):
            return REQUIRED if self.block.is_required else None
        try:
            return blocks.block_type(self.block.type).check_value(value, self.block.settings)
        except (TypeError, ValueError, KeyError, AttributeError):
            # Settings the rules do not expect (a block from another server): say so, never crash.
            return "cannot be checked: this block's settings are not as expected"

    @property
    def missing(self) -> bool:
        """Required and still empty: what a completion would be refused for."""
        return self.block.is_required and blocks.is_empty(self.value())

    def show_problem(self, message: str | None) -> None:
        """Show `message` under the field (None clears it); the next change of value clears it too."""
        self._problem = message
        self.set_class(message is not None, "-problem")
        if self.composed:
            line = self.query_one(".editor-problem", Static)
            line.update(message or "")
            line.display = message is not None

    @property
    def composed(self) -> bool:
        """Whether the field's widgets exist (from `on_mount` on; `is_mounted` is set only after it)."""
        return bool(self.children)

    @property
    def shown_problem(self) -> str | None:
        """The message under the field now, if any."""
        return self._problem

    def refresh_hint(self) -> None:
        if self.composed and self.editable:
            self.query_one(".editor-hint", Static).update(self.key_hint())

    def value_changed(self) -> None:
        """Subclasses call this after their value may have changed: clears the problem, tells the form."""
        value = self.value()
        if value == self._last_value and type(value) is type(self._last_value):
            return
        self._last_value = value
        if not self.composed:
            return
        if self._problem is not None:
            self.show_problem(None)
        self.post_message(self.Changed(self))

    def chosen(self) -> None:
        """Subclasses call this when a key made a choice."""
        self.post_message(self.Chosen(self))

    def commit_keys(self) -> None:
        """Apply what keys left half done (a number being typed): a decision reads the value next."""

    def replace_field(self, old: Widget, new: Widget, *, focus: bool = False, remove: bool = True) -> None:
        """Put `new` in place of the field widget `old`, now: the one way an editor changes its field.

        Never a recompose: that removes the field later, and a focus given to it meanwhile (the next
        task's `focus_field`, a `tab`) stays on a widget that is gone, where every key, `ctrl+q` too,
        is dropped: the app looks frozen. Here `new` is in the DOM before `old` at once (so
        `focus_field` and the value queries find it first), `old` can take the focus no more, and a
        focus in `old` (or `focus`) moves to `new` as this runs: keys read after it go there. With
        `remove=False` the caller removes `old` once it has handled the keys it was handed.
        """
        had_focus = focus or self.screen.focused is old
        self.mount(new, before=old)
        old.can_focus = False
        old.add_class(REPLACED)
        if had_focus:
            self.screen.set_focus(new)
        if remove:
            old.remove()

    def live_fields(self, kind: type[W]) -> list[W]:
        """The field widgets of `kind` here, without one `replace_field` is taking away."""
        return [widget for widget in self.query(kind) if not widget.has_class(REPLACED)]

    def focus_field(self) -> bool:
        """Put the focus in this editor's field; False when nothing here can take it."""
        if not self.editable:
            return False
        # `set_focus` at once, not `focus()` (that waits its turn in the app's queue, behind the keys
        # already typed, which would go to the field before).
        if self.focusable:
            self.screen.set_focus(self)
            return True
        for widget in self.query("*"):
            if isinstance(widget, Widget) and widget.focusable:  # (not one being replaced)
                self.screen.set_focus(widget)
                return True
        return False

    @property
    def has_focus_within(self) -> bool:
        focused = self.app.focused
        return focused is not None and (focused is self or self in focused.ancestors)
