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
  (`after_keys`), then reads the values;
- a key that acts only once it came back up from the focused widget (a binding of the screen's,
  a pane's, the app's, or the widget's own, which Textual runs from the app) holds the keys read
  after it until it did (`KeysInFlight`): they are then read again, in order, on the screen on top
  by then. Without it a dialog's `escape` closed the dialog after the keys typed for the screen
  beneath had gone into the dialog's field (`F escape enter 2` on the queue list lost the `2`).
"""

from collections import deque
from collections.abc import Iterable
from typing import Any, ClassVar, cast

from textual import events
from textual.actions import parse
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, OptionList

from queuedesk.tui.nodes.lifecycle import is_gone


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


def _reads_keys_itself(node: DOMNode, key: str) -> bool:
    """Whether `node` may act on `key` in its own key handlers (not through a binding): a `key_<key>`
    method, or an `on_key` / `_on_key`, of a class of its own. Textual's `Input` (text only, which
    `check_consume_key` says), `Widget`, `Screen` (escape clears a text selection, and goes on) and
    `KeysOwnBindings` (its bindings, which the binding chain shows) do not count; any other
    handler is taken to read every key."""
    name = key.replace("+", "_")
    handlers = ("on_key", "_on_key", f"key_{name}", f"_key_{name}")
    for cls in type(node).__mro__:
        if cls in _KEYS_ONLY_AS_SAID:
            break  # the handlers further up are those of the known classes
        if any(handler in cls.__dict__ for handler in handlers):
            return True
    return False


_KEYS_ONLY_AS_SAID: frozenset[type[Any]] = frozenset({Input, Widget, KeysOwnBindings, Screen})


def _enabled(node: DOMNode, action: str) -> bool:
    _, name, params = parse(action)
    return bool(node.check_action(name, params))


def acting_binding(screen: Screen[Any], key: str) -> tuple[DOMNode, Binding] | None:
    """The binding Textual runs for `key` read now, with its node, as `App._check_bindings` finds it:
    a priority binding first (from the app down), then the first from the focused widget up; a
    priority binding that only moves the focus (`tab`, `enter` in a `NEXT_ON_ENTER` field) and
    does not here is passed over, as its action passes (`SkipAction`)."""
    chain = screen._modal_binding_chain
    moves = getattr(screen, "focus_step_for", None)  # `KeysInOrder`'s
    for node, bindings in reversed(chain):
        for binding in bindings.key_to_bindings.get(key, ()):
            if not binding.priority or not _enabled(node, binding.action):
                continue
            if moves is not None and node is screen and binding.action.startswith("keys_") and not moves(key):
                continue  # `KeysInOrder`'s own move, which does not move here: skipped
            return node, binding
    for node, bindings in chain:
        for binding in bindings.key_to_bindings.get(key, ()):
            if not binding.priority and _enabled(node, binding.action):
                return node, binding
    return None


def trips_up(screen: Screen[Any], event: events.Key) -> int:
    """How many times `event` goes up the screen before what it does is done, once the app hands it
    to the focused widget: 0 when that is known as it is handed on (text in a field, a priority
    binding's, which Textual runs as it reads the key, a key nothing binds); 1 when a binding of the
    screen's, a pane's or the app's acts on it once the focused widget handed it back up (a
    dialog's `escape`); 2 when the focused widget's own binding does (Textual runs that once the
    key came back up too, and what it does, a table's row chosen, is a message that goes up again)."""
    if event.key == "escape" and screen.maximized is not None:
        return 0  # Textual's own: escape restores the maximized widget
    acting = acting_binding(screen, event.key)
    if acting is None or acting[1].priority:
        return 0
    owner = acting[0]
    focused = screen.focused
    if focused is None or focused.loading:  # the app hands the key to the screen itself
        return 0 if _reads_keys_itself(screen, event.key) else 1
    if owner is focused:
        return 2
    for node in focused.ancestors_with_self:
        if node is owner:
            return 1
        if node.check_consume_key(event.key, event.character) or _reads_keys_itself(node, event.key):
            return 0
    return 1  # the app's


FLIGHT_STUCK_SECONDS = 1.0
"""How often a key's trip up is checked: the node it waits in gone (its queue closed with the key's
callback in it), the keys behind it go on."""


class KeysInFlight:
    """The app's keys, read in order however long a key takes to act: a key that acts only once it
    came back up from the focused widget (`trips_up`) is followed up, a queue at a time, and the
    keys read meanwhile wait; then they are read again, in order, as if read now (on the screen on
    top by then: after a dialog's `escape`, the screen beneath). Keys held by a screen and typed
    for another one (`hand_on`) are read again the same way, before any read after them."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.waiting: deque[events.Key | events.Paste] = deque()
        self.flying = 0  # the number of the key in flight (0: none)
        self._at: Any = None  # the node whose queue it waits in
        self._flights = 0
        self._drain_asked = False
        self._draining = False

    def takes(self, event: events.Key) -> bool:
        """A key read while one is in flight or others wait: it waits behind them (True)."""
        if not self.flying and not (self.waiting and not self._draining):
            return False
        self.waiting.append(event)
        return True

    def hand_on(self, keys: list[events.Key | events.Paste]) -> None:
        """Keys held by a screen and typed for the one on top now: read again before any key read
        after them (those waiting are: a screen holds only while no key is in flight)."""
        if keys:
            self.waiting.extendleft(reversed(keys))
            self._ask_drain()

    def send_up(self, event: events.Key, focused: Widget, trips: int) -> None:
        """Hand `event` to `focused` (the screen when nothing on it has the focus), as the app does,
        and hold the keys read after it until it went up `trips` times and the app handled it."""
        self._flights += 1
        flight = self.flying = self._flights
        focused._forward_event(event)
        hops: list[Any] = list(focused.ancestors_with_self) * trips

        def hop(index: int) -> None:
            while index < len(hops):
                self._at = hops[index]
                if hops[index].call_later(hop, index + 1):
                    return
                index += 1  # a queue closed (a screen dismissed): the next one on the way
            landed()

        def landed() -> None:
            if self.flying == flight:
                self.flying = 0
                self._ask_drain()

        def stuck() -> None:  # a node went away with the callback in its queue: go on without it
            if self.flying != flight:
                return
            if self._at is None or not self._at.is_attached or is_gone(self._at):
                landed()
            else:
                self.app.set_timer(FLIGHT_STUCK_SECONDS, stuck)  # slow (a loaded machine), not lost

        hop(0)
        self.app.set_timer(FLIGHT_STUCK_SECONDS, stuck)

    def _ask_drain(self) -> None:
        if not self._drain_asked and not self.flying and self.waiting:
            self._drain_asked = True
            self.app.call_later(self._drain)  # behind the keys read so far: they wait here

    async def _drain(self) -> None:
        from textual.app import App

        self._drain_asked = False
        self._draining = True
        try:
            while self.waiting and not self.flying:
                event = self.waiting.popleft()
                refuses = getattr(self.app.screen, "refuses_key", None)
                if isinstance(event, events.Key) and callable(refuses) and refuses(event):
                    continue
                await App.on_event(self.app, event)  # Textual's reading of a key
        finally:
            self._draining = False


def keys_in_flight(app: Any) -> KeysInFlight:
    """The app's `KeysInFlight` (made with its first key)."""
    flight = app.__dict__.get("_keys_in_flight")
    if flight is None:
        flight = app.__dict__["_keys_in_flight"] = KeysInFlight(app)
    return cast(KeysInFlight, flight)
