"""Keys in the order they were typed: the parts a field needs (the screen's part is `KeysInOrder`).

Textual hands a key to the focused widget's own message queue; a key the widget does not take
itself travels back up, a queue at a time, to the app, where the non-priority bindings run with
the focus of *that* moment. In a burst (a paste, fast typing, an SSH link after a stall) a field
can therefore take keys typed after a `tab` before the `tab` has moved the focus, and a field's
own binding (`backspace`, `left`) can act after the letters typed after it, or on another field.

The one mechanism (see `tui/base.py` for the screen's side; the one private Textual name it still
uses, `_forward_event`, is listed in `compat/textual_private.py`):
- keys that move the focus or decide (`tab`, submit, skip...) are priority bindings: they run in
  the app's queue, in the order typed, and move the focus at once, so the next key is routed to
  the field the worker meant;
- a field handles its own bindings as it reads the key (`KeysOwnBindings`): in its queue, in order,
  on itself, also once the focus has moved on;
- a decision waits for every field that had the focus to have handled the keys it was handed
  (`after_keys`), then reads the values.
"""

from collections.abc import Iterable
from typing import ClassVar, cast

from textual import events
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Input, OptionList


def own_bindings(widget_class: type[Widget]) -> dict[str, str]:
    """Key -> action of the bindings a widget class declares itself (its `BINDINGS`, base classes
    first, subclasses overriding)."""
    found: dict[str, str] = {}
    for cls in reversed(widget_class.__mro__):
        declared: Iterable[BindingType] = cls.__dict__.get("BINDINGS", ())
        for binding in Binding.make_bindings(declared):
            if not binding.priority:
                found[binding.key] = binding.action
    return found


class KeysOwnBindings:
    """A field that runs its own key bindings as it reads each key, in the order typed, on itself.

    (Textual runs them once the key has come back up to the app: after the keys typed after it,
    and on whichever widget has the focus then.)
    """

    _own_bindings_cache: ClassVar[dict[type, dict[str, str]]] = {}  # by widget class

    def _own_action(self, key: str) -> str | None:
        cls = cast(type[Widget], type(self))
        bindings = KeysOwnBindings._own_bindings_cache.get(cls)
        if bindings is None:
            bindings = KeysOwnBindings._own_bindings_cache[cls] = own_bindings(cls)
        return bindings.get(key)

    async def on_key(self, event: events.Key) -> None:
        # A mixin, not a Widget subclass: Textual copies `can_focus` from a widget class's first base.
        widget = cast(Widget, self)
        action = self._own_action(event.key)
        if action is None or event.is_printable or not widget.check_action(action.split("(")[0], ()):
            return  # text (the field's own handler), or a key for the screen
        event.stop()
        event.prevent_default()
        await widget.run_action(action)


class OrderedInput(KeysOwnBindings, Input):
    """A one-line field whose editing keys act in the order typed (`KeysOwnBindings`)."""


class OrderedOptionList(KeysOwnBindings, OptionList):
    """A list whose moving keys act in the order typed (`KeysOwnBindings`)."""
