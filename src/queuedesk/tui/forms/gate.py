"""Keys typed in a burst across a submit: a submission's values are frozen at the key that sends it.

Textual hands each key to the focused widget's own message queue, and a screen's binding (`enter`
submits) runs only once the key has bubbled up to the app. By then the keys typed after `enter`
may already have been taken by the field: `1 enter 2` sent 2 for the task just submitted. Only the
field sees the keys in the order they were typed, so the field asks the form's gate first:

- a key that ends the task on the screen (`enter`, skip, keep-draft: `transition_keys`) and that the
  field does not take itself freezes the form: the values are kept as they are at that key
  (`snapshot`), and the form is held;
- while the form is held every key a field would take is refused (stopped, and `refused` says so
  out loud), so nothing is applied to the task being sent nor to the next one before it is painted;
- the screen releases the form once the next task is painted (or the submit was refused).
"""

from collections.abc import Callable, Collection
from typing import Any

from textual import events
from textual.dom import DOMNode

# Keys a one-line or multi-line field takes (as text or as an edit) besides printable characters.
EDIT_KEYS = frozenset({"backspace", "delete", "ctrl+u", "ctrl+k", "ctrl+w", "ctrl+x", "ctrl+v", "ctrl+d"})


class KeyGate:
    """The form's gate for keys; off (every key passes) until the screen turns it on."""

    def __init__(self, values: Callable[[], dict[str, Any]], refused: Callable[[str, int], object]) -> None:
        self._values = values
        self._refused = refused
        self.enabled = False
        self.transition_keys: Collection[str] = ("enter",)
        self.held = False
        self.snapshot: dict[str, Any] | None = None
        self.holds = 0
        self.freeze_on_choice = False
        """A choice made with a key submits (the work screen's "submit on choice"): it freezes too."""
        """How many times the form was held: a refusal says during which hold it came."""

    def key(self, event: events.Key, *, takes: bool) -> bool:
        """Called by a field of the form before it handles `event` (`takes`: would it use the key?).

        True when the key is refused (it is then stopped); a transition key freezes the form."""
        if not self.enabled:
            return False
        if self.held:
            if takes or event.key in self.transition_keys:
                event.stop()
                event.prevent_default()
                self._refused(event.key, self.holds)
                return True
            return False
        if event.key in self.transition_keys and not takes:
            self.snapshot = self._values()
            self.held = True
            self.holds += 1
        return False

    def chosen(self) -> None:
        """A field made a choice with a key; with `freeze_on_choice` that ends the task like `enter`."""
        if self.enabled and self.freeze_on_choice and not self.held:
            self.snapshot = self._values()
            self.held = True
            self.holds += 1

    def take_snapshot(self) -> dict[str, Any] | None:
        """The values frozen by the last transition key, once (None when no key froze them)."""
        snapshot, self.snapshot = self.snapshot, None
        return snapshot

    def hold(self) -> None:
        if not self.held:
            self.holds += 1
        self.held = True
        self.snapshot = None

    def release(self) -> None:
        self.held = False
        self.snapshot = None


def gate_of(node: DOMNode) -> KeyGate | None:
    """The gate of the form `node` is in, if any."""
    for ancestor in node.ancestors_with_self:
        gate = getattr(ancestor, "key_gate", None)
        if isinstance(gate, KeyGate):
            return gate
    return None


def text_field_takes(event: events.Key, *, multi_line: bool) -> bool:
    """Whether a text field uses `event` (text, an edit; `enter` in a multi-line one)."""
    return event.is_printable or event.key in EDIT_KEYS or (multi_line and event.key == "enter")
