"""`TaskForm`: a task's blocks, as read-only content and as editors.

Modes:
- "work": blocks the worker fills (text that is not `read_only`, selections, binary, number, date,
  email) are editors in the form pane; the task's content (read-only text, image, link, embed,
  audio, video, pdf, rich_text, any other type) is shown read-only in the task pane.
- "create": every block is an editor (an image or a link is an address to type).

Layout: the form composes both panes itself, inside `#task-form-panes`: the task pane
(`#task-pane`) left of the form pane (`#form-pane`), stacked (task above) when the form is narrower
than `NARROW_BELOW` (70) columns (the form then has the class `-narrow` and pictures are at most
`NARROW_IMAGE_ROWS` high). Side by side still reads well at 80 columns (each pane ~38 wide: the
core blocks fit without scrolling at 80x24), where stacking would push the task's text below the
picture, out of sight; hence 70 rather than 100. `task_pane()` and
`form_pane()` return them, e.g. to scroll one. In "create" mode (or when a work task has no content
blocks) only the form pane is there.

Keys: `tab`/`shift+tab` move between editors. `escape` in a text field leaves it: the focus goes
to the form itself (so the screen's one-letter keys act), and `tab`/`shift+tab` from there go to the
field after / before the one left. `enter` is never taken by a one-line field or a selection: it
reaches the screen (submit); a multi-line field takes `enter` as a new line.
"""

from typing import Any, ClassVar, Literal

from textual import events
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from queuedesk.api.models import Block
from queuedesk.tui.forms.base import REQUIRED, BlockEditor
from queuedesk.tui.forms.image import ImageEditor
from queuedesk.tui.forms.registry import editor_for, filled_by_worker
from queuedesk.tui.widgets.image_view import PANE_ROWS, ImageView

FormMode = Literal["work", "create"]
NARROW_IMAGE_ROWS = 8


class TaskForm(Widget):
    """The blocks of one task: editors for what is to be filled, the rest shown read-only."""

    NARROW_BELOW: ClassVar[int] = 70

    class Changed(Message):
        """An editor of the form changed its value."""

        def __init__(self, form: "TaskForm", editor: BlockEditor) -> None:
            super().__init__()
            self.form = form
            self.editor = editor

        @property
        def control(self) -> "TaskForm":
            return self.form

    def __init__(
        self,
        blocks: list[Block],
        data: dict[str, Any],
        *,
        mode: FormMode,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.blocks = list(blocks)
        self.data = dict(data)
        self.mode: FormMode = mode
        self._editors: list[BlockEditor] = []
        self._content: list[BlockEditor] = []
        for block in self.blocks:
            editable = mode == "create" or filled_by_worker(block)
            editor = editor_for(block, self.data.get(block.id), editable=editable, creating=mode == "create")
            (self._editors if editable else self._content).append(editor)
        self._left: BlockEditor | None = None
        self.set_class(mode == "create", "-create")

    # --- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        problem = Static("", id="form-problem", markup=False)
        problem.display = False
        yield problem
        with Container(id="task-form-panes"):
            if self._content:
                task_pane = VerticalScroll(*self._content, id="task-pane")
                task_pane.can_focus = False
                yield task_pane
            form_pane = VerticalScroll(*self._editors, id="form-pane")
            form_pane.can_focus = False
            if not self._editors:
                form_pane.compose_add_child(Static("Nothing to fill in for this task.", classes="form-empty"))
            yield form_pane

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < self.NARROW_BELOW
        self.set_class(narrow, "-narrow")
        for view in self.query(ImageView):  # stacked: a smaller picture leaves room for the rest
            view.set_max_rows(NARROW_IMAGE_ROWS if narrow else PANE_ROWS)

    def task_pane(self) -> VerticalScroll | None:
        """The pane of the task's content (None when the task has no content blocks)."""
        found = self.query("#task-pane")
        return found.first(VerticalScroll) if found else None

    def form_pane(self) -> VerticalScroll:
        """The pane of the editors."""
        return self.query_one("#form-pane", VerticalScroll)

    # --- values ---------------------------------------------------------------------------------

    def editors(self) -> list[BlockEditor]:
        """The editable editors, in the order of the blocks."""
        return list(self._editors)

    def editor(self, block_id: str) -> BlockEditor | None:
        """The editor (editable or not) of a block."""
        return next((e for e in [*self._editors, *self._content] if e.block.id == block_id), None)

    def values(self) -> dict[str, Any]:
        """The editable blocks' values, by block id; None where empty."""
        return {editor.block.id: editor.value() for editor in self._editors}

    def commit_keys(self) -> None:
        """Apply what keys left half done in every editor (a number being typed), before `values`."""
        for editor in self._editors:
            editor.commit_keys()

    def problems(self) -> dict[str, str]:
        """What keeps the values from being accepted, by block id (empty when all is well).

        In "create" mode an empty required block is no problem: `is_required` is the worker's duty
        at completion (the server does not enforce it on create either).
        """
        found = {editor.block.id: editor.problem() for editor in self._editors}
        if self.mode == "create":
            found = {block_id: m for block_id, m in found.items() if m != REQUIRED}
        return {block_id: message for block_id, message in found.items() if message is not None}

    def missing_required(self) -> list[str]:
        """The names of the required blocks still empty (what a completion would be refused for)."""
        return [editor.block.name for editor in self._editors if editor.missing]

    def show_problems(self, problems: dict[str, str]) -> None:
        """Show each message under its block (and clear the others); the focus goes to the first.

        Also for a server's rejection: map its `field` (`data.category`) to the block id. A message
        for no block of this form (or for "" / "data") is shown above the form.
        """
        everyone = [*self._editors, *self._content]
        for editor in everyone:
            editor.show_problem(problems.get(editor.block.id))
        known = {editor.block.id for editor in everyone}
        others = [
            f"{key}: {message}" if key not in ("", "data") else message
            for key, message in problems.items()
            if key not in known
        ]
        if bool(self.children):
            line = self.query_one("#form-problem", Static)
            line.update("\n".join(others))
            line.display = bool(others)
        first = next((e for e in self._editors if e.block.id in problems), None) if problems else None
        # (`first.is_attached`: a form brought back in place of another may still be mounting.)
        if first is not None and first.is_attached and not first.has_focus_within:
            first.focus_field()

    def set_data(self, data: dict[str, Any]) -> None:
        """Show another task of the same queue in place: much cheaper than a new form.

        Every block takes its value from `data` (None where absent), problems are cleared and keys
        half typed are forgotten; the focus is left where it is (call `focus_first_editable`).
        """
        self.data = dict(data)
        for editor in [*self._content, *self._editors]:
            editor.reset(self.data.get(editor.block.id))
        self.show_problems({})

    def image_urls(self) -> list[str]:
        """The addresses of the task's images, in block order (for `z` and `o`)."""
        return [e.url for e in [*self._content, *self._editors] if isinstance(e, ImageEditor) and e.url]

    # --- focus ----------------------------------------------------------------------------------

    def focus_first_editable(self) -> None:
        """Focus the first required editor still empty, else the first editor.

        So with one required selection block the number keys work at once, even below an optional
        comment field. In "create" mode: the first editor. With nothing editable the form itself
        takes the focus.
        """
        waiting = [e for e in self._editors if e.missing] if self.mode == "work" else []
        for editor in [*waiting, *self._editors]:
            if editor.focus_field():
                return
        self._park(None)

    def _park(self, left: BlockEditor | None) -> None:
        """Hold the focus on the form itself, remembering the editor just left."""
        if self._left is not None:
            self._left.remove_class("-left")
        self._left = left
        if left is not None:
            left.add_class("-left")
        self.can_focus = True
        self.screen.set_focus(self)

    def on_blur(self) -> None:
        self.can_focus = False
        if self._left is not None:
            self._left.remove_class("-left")

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.leave_field():
            event.stop()
        elif event.key in ("tab", "shift+tab") and self.focus_step(1 if event.key == "tab" else -1):
            event.stop()  # on a screen without `KeysInOrder` (whose priority `tab` asks `focus_step`)

    def leave_field(self) -> bool:
        """`escape` in a text field of the form: the focus goes to the form itself; False elsewhere."""
        focused = self.app.focused
        if isinstance(focused, Input | TextArea) and self in focused.ancestors:
            self._park(next((e for e in self._editors if e in focused.ancestors), None))
            return True
        return False

    def focus_step(self, step: int) -> bool:
        """`tab` (1) or `shift+tab` (-1) while the form itself has the focus: the field after (before)
        the one left. The screen asks this first (`KeysInOrder.move_focus`)."""
        if self.app.focused is not self:
            return False
        self._focus_from_left(step)
        return True

    def _focus_from_left(self, step: int) -> None:
        focusable = [e for e in self._editors if e.editable]
        if not focusable:
            return
        if self._left in focusable:
            start = focusable.index(self._left)
            order = [focusable[(start + step * i) % len(focusable)] for i in range(1, len(focusable) + 1)]
        else:
            order = focusable if step > 0 else focusable[::-1]
        for editor in order:
            if editor.focus_field():
                return

    def on_block_editor_changed(self, event: BlockEditor.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, event.editor))
