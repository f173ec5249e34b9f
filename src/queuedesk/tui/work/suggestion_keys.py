"""The work screen's keys for suggestions (B23): `enter` accepts them all, also from a multi-line
field, and `ctrl+r` puts one back.

- `enter` on an untouched form submits it, every suggestion as it was pre-filled: one key per task.
  In a multi-line field `enter` is a new line, except in a field that holds a suggestion while the
  form is untouched. As the key is read, the keys typed before it may not have reached the field
  yet: the decision is made once they have (`hold_keys_until`); the keys typed after it wait. If the
  form was changed by then, the `enter` is the new line it was typed as, and the keys after it go
  on into the field.
- `ctrl+r` (`RESTORE_KEY`) in a field whose suggestion was changed puts it back, in the order typed:
  it runs in the field's own queue, after the keys typed before it and before those typed after it.
  Where it does not apply (no suggestion there, or it is there already) it is refused out loud.
"""

from collections.abc import Callable
from typing import Any

from textual.widget import Widget
from textual.widgets import TextArea

from queuedesk.tui.base import KeysInOrder
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.forms.suggested import ALREADY, NOTHING, RESTORE_KEY

NO_SUGGESTIONS = "This task has no suggestions: {key} puts a suggestion back in a field that had one."
NOT_IN_A_FIELD = "{key} puts a suggestion back in the field the cursor is in: tab to a suggested field first."
NONE_HERE = "{name} had no suggestion: {key} puts one back only where one was pre-filled (marked ✦)."


def editor_of(widget: Widget | None) -> BlockEditor | None:
    """The block editor `widget` is (or is in)."""
    node: Any = widget
    while node is not None:
        if isinstance(node, BlockEditor):
            return node
        node = node.parent
    return None


class SuggestionKeys:
    def __init__(self, screen: KeysInOrder[Any], form: Callable[[], TaskForm | None]) -> None:
        self.screen = screen
        self.form = form
        self.holding = False  # an `enter` waits for the keys typed before it (the screen's keys are off)

    # --- enter ----------------------------------------------------------------------------------

    def enter_accepts(self) -> bool:
        """As `enter` is read in a multi-line field that holds a suggestion: it is decided here
        (`enter`), once the keys typed before it are in, whether it submits or is a new line. (As it
        is read those keys may still be on their way: a restore before it, or a letter.)"""
        focused, form = self.screen.focused, self.form()
        if not isinstance(focused, TextArea) or form is None or not form.suggested():
            return False
        editor = editor_of(focused)
        return editor is not None and editor.suggestion is not None

    def enter(self, submit: Callable[[], object], new_line: Callable[[str], object]) -> bool:
        """`enter` read: True when it is taken here (in a multi-line field), to `submit` once the keys
        typed before it are in if the form is still untouched, else to be the new line it was typed as
        (`new_line` told, with "": the submit that was not)."""
        area = self.screen.focused
        if not isinstance(area, TextArea) or not self.enter_accepts():
            return False
        form = self.form()
        self.holding = True

        def decide() -> None:
            self.holding = False
            if form is not None and form is self.form() and area.is_attached and form.untouched():
                submit()
                return
            new_line("")
            if area.is_attached:
                area.insert("\n")
                self.screen.set_focus(area)  # the keys held meanwhile go on into it, in order

        self.screen.hold_keys_until(decide)
        return True

    # --- ctrl+r ---------------------------------------------------------------------------------

    def applies(self) -> bool:
        """Shown in the footer while the task on screen has suggestions."""
        form = self.form()
        return form is not None and form.suggested()

    def refused(self) -> None:
        """The key where no suggestion is on screen (it reached the screen itself)."""
        self._say(NO_SUGGESTIONS.format(key=RESTORE_KEY))

    def restore(self) -> None:
        """`ctrl+r` read: the suggestion back in the focused field, once the keys typed before it are in."""
        focused = self.screen.focused
        editor = editor_of(focused)
        if focused is None or editor is None:
            self._say(NOT_IN_A_FIELD.format(key=RESTORE_KEY))
            return
        if editor.suggestion is None:
            self._say(NONE_HERE.format(name=editor.block.name, key=RESTORE_KEY))
            return

        def put_back() -> None:
            if editor.is_attached and not editor.restore_suggestion():
                self._say(ALREADY.format(name=editor.block.name))

        if not focused.call_later(put_back):  # behind the keys the field was handed, before the next
            put_back()

    def _say(self, message: str) -> None:
        self.screen.notify(message, title=NOTHING, severity="warning")
