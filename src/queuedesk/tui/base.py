"""What every screen of the app shares: the app, its session and its clock, typed; keys kept in order.

`KeysInOrder` keeps a burst of keys (a paste, fast typing, `tmux send-keys`) going to the fields it
was typed for. Textual routes each key to the widget focused when the app reads the key, but a key
that moves the focus moves it only after it has travelled through the focused widget and back up
to the app's bindings, and `Widget.focus()` itself waits its turn in the app's queue. A terminal
hands the app the whole burst at once, so before this every key after a `tab` was routed to the
field before it (`kim@acme.test<tab>Kim` filled the email field with both). Two rules:

- `tab` and `shift+tab` in a text field (an `Input`, or a `TextArea` whose tab is not an indent),
  and `enter` in a one-line field marked `NEXT_ON_ENTER`, move the focus as the key is read
  (priority bindings): nothing has the focus while the field left handles the keys it was handed
  before (keys meanwhile wait; one it leaves to bindings, such as `backspace`, acts on it as if it
  were still focused), then the next field takes the focus and the keys that waited, in order.
  Elsewhere these keys go their usual way: a selection editor checks that it has the focus when it
  handles a digit, so moving the focus away from it early would drop the digit.
- Keys read while nothing on the screen has the focus yet (the screen is still being built) wait,
  and go to the first widget that takes the focus, in order, the moves above applied as they come.
  If nothing takes the focus by the end of mounting they go to the screen, as before. A screen that
  builds its form after loading (`KEYS_WAIT_FOR_FOCUS`) keeps them until the form takes the focus;
  `escape` meanwhile is not held (it leaves), and what was held goes to the screen before it.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from textual import events, on
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.widget import Widget
from textual.widgets import Input

from queuedesk.tui.clock import Clock
from queuedesk.tui.session import Session, SessionEnded

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost

STYLES = Path(__file__).resolve().parent / "styles"


def styles(*names: str) -> tuple[str, ...]:
    """A screen's `STYLE_FILES`: added to the app's styles when the screen is first shown (app.py)."""
    return tuple(str(STYLES / name) for name in names)


NEXT_ON_ENTER = "next-on-enter"
"""The class of a one-line field (an `Input`) whose `enter` moves on to the next field (on a screen
that binds `enter` itself, that binding replaces this one)."""

FOCUS_STEPS = {"tab": 1, "shift+tab": -1}
HeldEvent = events.Key | events.Paste


class AppAccess:
    @property
    def qd(self) -> "AppHost":
        return cast("AppHost", self.app)  # type: ignore[attr-defined]

    @property
    def session(self) -> Session:
        session = self.qd.session
        if session is None:  # the key was refused meanwhile: what was under way ends without a word
            raise SessionEnded("The session ended: connect again.")
        return session

    @property
    def clock(self) -> Clock:
        return self.qd.clock


class FieldLeft(Message):
    """Posted to a field the focus leaves: when it comes back up to the screen, the field has handled
    every key it was handed before."""

    def __init__(self, field: Widget) -> None:
        super().__init__()
        self.field = field


def _text_area_class() -> type[Any] | None:
    """Textual's TextArea if it is imported: a screen with one imported it, and the first screen has none.

    Importing it here for `isinstance` cost ≈5 ms of the app's start (its document model and themes).
    """
    module = sys.modules.get("textual.widgets._text_area")
    return getattr(module, "TextArea", None)


class KeysInOrder(Screen[ScreenResultType]):
    """A screen whose keys reach the field they were typed for, however fast they come (see above)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # No ids: like Textual's own tab bindings they are not remapped; the keys screen lists them.
        Binding("tab", "keys_focus_step('tab')", "Next field", show=False, priority=True),
        Binding("shift+tab", "keys_focus_step('shift+tab')", "Previous field", show=False, priority=True),
        Binding("enter", "keys_focus_step('enter')", "Next field", show=False, priority=True),
        # Textual's own, for the keys the moves above leave to the focused widget (a binding here
        # replaces the screen's bindings of the same key).
        Binding("tab", "app.focus_next", "Focus Next", show=False),
        Binding("shift+tab", "app.focus_previous", "Focus Previous", show=False),
    ]

    KEYS_WAIT_FOR_FOCUS: ClassVar[bool] = False
    """Hold the keys read before any widget has the focus until one takes it, not only while mounting."""

    SETTLE_AT_MOST: ClassVar[float] = 1.0
    """Seconds a field left may take over the keys it still has before the next field gets the focus."""

    _held: list[HeldEvent] | None = None
    _leaving: Widget | None = None  # the field a move is leaving, until it has handled its keys
    _moving_to: Widget | None = None

    def __init__(self, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._held = []  # from the start: keys can come before the screen has composed

    # --- focus moves as the key is read ---------------------------------------------------------

    def focus_step_for(self, key: str) -> int:
        """Where `key` moves the focus from the focused text field (1 next, -1 previous), or 0: not a
        move, or not from a text field, or one the field keeps (a `TextArea` indenting with tab)."""
        focused = self.focused
        if key == "enter":
            return 1 if isinstance(focused, Input) and focused.has_class(NEXT_ON_ENTER) else 0
        step = FOCUS_STEPS.get(key, 0)
        text_area = _text_area_class()
        text_fields = (Input,) if text_area is None else (Input, text_area)
        if not step or not isinstance(focused, text_fields):
            return 0
        if text_area is not None and isinstance(focused, text_area) and focused.tab_behavior == "indent":
            return 0
        for node in focused.ancestors_with_self:
            if node is self:
                break
            if key in node._bindings.key_to_bindings:
                return 0
        return step

    def action_keys_focus_step(self, key: str) -> None:
        step = self.focus_step_for(key)
        if not step:
            raise SkipAction()  # the key goes on to the focused widget as usual
        self._begin_move(step)

    def _begin_move(self, step: int) -> None:
        """Nothing has the focus (keys wait) until the field left has handled the keys it was handed."""
        left = self.focused
        chain = self.focus_chain
        if left is None or left not in chain:
            self.focus_next() if step > 0 else self.focus_previous()
            return
        self._leaving, self._moving_to = left, chain[(chain.index(left) + step) % len(chain)]
        if self._held is None:
            self._held = []
        self.set_focus(None)
        if not left.post_message(FieldLeft(left)):
            self._finish_move()
            return

        def too_long() -> None:  # the field went away with its keys: do not hold the rest forever
            if self._leaving is left:
                self._finish_move()

        self.set_timer(self.SETTLE_AT_MOST, too_long)

    async def _on_key(self, event: events.Key) -> None:
        # While a move waits, the only keys that come up here are those the field left did not take
        # (the others wait in `_held`): they act as they would have with that field focused.
        left = self._leaving
        if left is None:
            return
        event.stop()
        event.prevent_default()
        for node in left.ancestors_with_self:
            for binding in node._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, node):
                    return

    @on(FieldLeft)
    def _field_left(self, message: FieldLeft) -> None:
        message.stop()
        if message.field is self._leaving:
            self._finish_move()

    def _finish_move(self) -> None:
        target, self._leaving, self._moving_to = self._moving_to, None, None
        if target is not None and target.is_attached and target.focusable:
            self.set_focus(target)
        if self._held is not None and self.focused is None and self._leaving is None:
            self._release()  # the field to go to went away: the keys go to the screen

    # --- keys that come before the focus ----------------------------------------------------------

    def _forward_event(self, event: events.Event) -> None:
        # The app hands a key (or a paste) to the screen itself when nothing on it has the focus.
        if self._held is not None and isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            waiting_for_form = self._leaving is None and self.is_mounted
            if isinstance(event, events.Key) and event.key == "escape" and waiting_for_form:
                self._release()  # waiting for a form that is slow to come: escape leaves now
            else:
                self._held.append(event)
                return
        super()._forward_event(event)

    def _on_mount(self, event: events.Mount) -> None:  # Textual runs `Screen._on_mount` too
        if not self.KEYS_WAIT_FOR_FOCUS:
            # After the focus requests of `on_mount` (they wait in the app's queue too).
            self.app.call_later(self._mounted)

    def _mounted(self) -> None:
        if self._leaving is None:
            self._release()

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        super().set_focus(widget, scroll_visible, from_app_focus)
        if self.focused is not None and self._held is not None and self._leaving is None:
            self._release()

    def _release(self) -> None:
        """Hand the keys held, in order, to the focused widget (moving on as `tab` says), else the screen."""
        held, self._held = self._held or [], None
        for index, event in enumerate(held):
            if self._held is not None:  # a move began: the rest wait for it
                self._held.extend(held[index:])
                return
            if isinstance(event, events.Key):
                step = self.focus_step_for(event.key)
                if step:
                    self._begin_move(step)
                    continue
            target = self.focused
            (target if target is not None and not target.loading else self)._forward_event(event)


class AppScreen(AppAccess, KeysInOrder[None]):
    pass


T = TypeVar("T")


class AppModal(AppAccess, ModalScreen[T], KeysInOrder[T]):
    # ModalScreen first: Textual takes default CSS from the first screen base only (its dimmed backdrop).
    pass
