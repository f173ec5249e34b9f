"""What every screen of the app shares: the app, its session and its clock, typed; keys kept in order.

`KeysInOrder` is the screen's side of the one mechanism for key order (`tui/keys/ordered_keys.py` says
why it is needed and what the field's side is):

- `tab` and `shift+tab` (and `enter` in a one-line field marked `NEXT_ON_ENTER`) are priority
  bindings: they move the focus as the app reads them, in the order typed, so the key after them is
  routed to the field they went to. The field left still handles the keys it was handed.
- A decision (submit, skip...) is a priority binding too; it calls `after_keys`, which runs it once
  every widget that had the focus since the last decision has handled the keys it was handed.
- A key that opens another screen (`F` the flush guard, `n` a new task) is a priority binding
  too (`opens_a_screen`): the screen opens as the key is read, so the keys typed after it go there.
- Any other key bound by the screen, a pane or the app (a dialog's `escape`, `g` go to) acts as it
  is read too, when the focused widget does not take it (`refuses_key`, asked by the app for every
  key: `binding_above_focus` in `tui/keys/ordered_keys.py`): the keys after a dialog's `escape` go
  to the screen beneath, not into the dialog's field.
- A decision whose effect the keys after it depend on (the queue list's filter kept with `enter`,
  then `enter` on the list it filtered) holds them (`hold_keys_until`): it runs after the keys typed
  before it, and the keys read meanwhile are handed on, in order, once it has.
- Keys read while nothing on the screen has the focus yet (the screen is still being built) wait,
  and go to the first widget that takes the focus, in order, the moves above applied as they come.
  If nothing takes the focus by the end of mounting they go to the screen, as before. A screen that
  builds its form after loading (`KEYS_WAIT_FOR_FOCUS`) keeps them until the form takes the focus;
  `escape` meanwhile is not held (it leaves), and what was held goes to the screen before it.
  This part overrides Textual's private `_forward_event` (listed in `compat/textual_private.py`).
"""

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, ParamSpec, TypeVar, cast

from textual import events
from textual.actions import SkipAction
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.keys import REPLACED_KEYS, key_to_character
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.widget import Widget
from textual.widgets import Input

from queuedesk.tui.clock import Clock
from queuedesk.tui.keys.ordered_keys import keys_in_flight, trips_up
from queuedesk.tui.nodes.lifecycle import Lifecycle
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


def character_of(key: str) -> str | None:
    """The character typed for `key` (`slash` is `/`), None for a key that types none (`enter`)."""
    return "\t" if key == "tab" else key_to_character(REPLACED_KEYS.get(key, key))


@dataclass(frozen=True)
class OpeningKey:
    """A key that opens another screen (`open_by_key`), read while keys were held: it opens that
    screen when it is handed on, unless the keys before it put the focus in a text field (then it
    is text there, as it would have been if read then), or opened another screen (then it is that
    screen's key). It carries what it opens, so nothing outlives the key."""

    event: events.Key
    opens: Callable[[], object]


def held_key(key: str) -> events.Key:
    """A key held by its binding's action, with its character: text if it reaches a text field."""
    return events.Key(key, character_of(key))


class AppAccess(Lifecycle):
    """What every screen, dialog and pane shares: the app, its session and clock, typed; and the
    lifecycle rule (`tui/nodes/lifecycle.py`): its work stops at its first DOM step once it is gone."""

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
        Binding("tab", "keys_focus_step(1)", "Next field", show=False, priority=True),
        Binding("shift+tab", "keys_focus_step(-1)", "Previous field", show=False, priority=True),
        Binding("enter", "keys_next_on_enter", "Next field", show=False, priority=True),
    ]

    KEYS_WAIT_FOR_FOCUS: ClassVar[bool] = False
    """Hold the keys read before any widget has the focus until one takes it, not only while mounting."""

    STRAGGLER_CHECK_SECONDS: ClassVar[float] = 1.0
    """How often `after_keys` looks whether a field it waits for went away with its keys."""

    LEAVING_HOLD_SECONDS: ClassVar[float] = 10.0
    """How long keys wait for a leaving screen's dismissal before they go to it after all."""

    _held: list[HeldEvent | OpeningKey] | None = None
    _leaving = False

    def __init__(self, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._held = []  # from the start: keys can come before the screen has composed
        self._had_focus: list[Widget] = []  # widgets that may still have keys of this round

    # --- focus moves as the key is read ---------------------------------------------------------

    def focus_step_for(self, key: str) -> int:
        """Where `key` moves the focus from the focused widget (1 next, -1 previous), or 0: not a move
        (`enter` outside a `NEXT_ON_ENTER` field, `tab` in a `TextArea` that indents with it)."""
        focused = self.focused
        if key == "enter":
            return 1 if isinstance(focused, Input) and focused.has_class(NEXT_ON_ENTER) else 0
        step = FOCUS_STEPS.get(key, 0)
        text_area = _text_area_class()
        if text_area is not None and isinstance(focused, text_area) and focused.tab_behavior == "indent":
            return 0
        return step

    def focus_key(self, key: str) -> bool:
        """A key of the screen's own that moves the focus (the queue list's `/` to its filter): moved
        now, True; False when `key` moves nothing here. Called by its priority binding's action and
        for the keys held (`_release`), so that the keys after it go where it sent the focus.

        Here: a pane around the focused widget that opens a field with `key` (its own `focus_key`)."""
        focused = self.focused
        for node in focused.ancestors_with_self if focused is not None else []:
            if node is self:
                break
            opens = getattr(node, "focus_key", None)
            if callable(opens) and opens(key):
                return True
        return False

    def open_field_by_key(self, key: str) -> None:
        """The action of a priority key that opens a field (`f` a filter row, `/` a search): typed
        in a text field it is text; read while keys are held for a decision it waits behind them;
        else the field opens and takes the focus now (`focus_key`), so the keys after it go there."""
        if self.typing():
            raise SkipAction()
        if not self.held_back(key):
            self.focus_key(key)

    def typing(self) -> bool:
        """Whether the focus is in a text field, where a letter is text (not a screen's key)."""
        text_area = _text_area_class()
        return isinstance(self.focused, Input) or (
            text_area is not None and isinstance(self.focused, text_area)
        )

    def open_by_key(self, key: str, open_it: Callable[[], object]) -> None:
        """The action of a priority key that opens another screen (`F` the flush guard): typed in a
        text field it is text; read while keys are held for a decision it waits behind them; else
        the screen opens now, as the key is read, so the keys typed after it go to that screen (a
        binding that is not priority acts only once the focused widget has handed the key back, and
        the keys after it would meanwhile reach the widget, on this screen)."""
        if self.typing():
            raise SkipAction()
        if self._held is not None and self.focused is None:
            self._held.append(OpeningKey(held_key(key), open_it))  # decided when handed on (`_release`)
            return
        open_it()

    def held_back(self, key: str) -> bool:
        """A priority binding's `key` read while keys are held for a decision: held after them
        (handed on in order, `focus_key` then applied); False when no key is held."""
        if self._held is None or self.focused is not None:
            return False
        self._held.append(held_key(key))
        return True

    # Not `check_action`: screens override it, and a binding it turns off is still shown as one.
    def action_keys_focus_step(self, step: int) -> None:
        if self.focus_step_for("tab") == 0:
            raise SkipAction()  # the key goes on to the focused widget (a TextArea indenting)
        self.move_focus(step)

    def action_keys_next_on_enter(self) -> None:
        if self.focus_step_for("enter") == 0:
            raise SkipAction()  # the key goes its usual way: the screen's own `enter`, the widget's
        self.move_focus(1)

    def move_focus(self, step: int) -> None:
        """The next (1) or previous (-1) field, now: a focused widget with a `focus_step(step) -> bool`
        of its own (the task form, parked) is asked first."""
        if self._held is not None and self.focused is None:
            self._held.append(held_key("tab" if step > 0 else "shift+tab"))
            return
        focused = self.focused
        own = getattr(focused, "focus_step", None)
        if callable(own) and own(step):
            return
        self.focus_next() if step > 0 else self.focus_previous()

    def refuses_key(self, event: events.Key) -> bool:
        """Asked by the app for every key it reads, before it routes it: True when the key was taken
        here. A key read while another is on its way up waits behind it; a key that acts only once
        it came back up from the focused widget is sent on its way, and the keys after it wait for
        it (`KeysInFlight` in `tui/keys/ordered_keys.py`)."""
        if self.held_for_beneath(event):
            return True
        if self._held is not None:
            if event.key != "escape" or not self.is_mounted:
                return False  # held for the field to come: handed on in order (`_release`)
            self._release()  # waiting for a form that is slow to come: escape leaves now
        return self._sent_up(event)

    def _sent_up(self, event: events.Key) -> bool:
        trips = trips_up(self, event)
        if not trips:
            return False
        focused = self.focused
        keys_in_flight(self.app).send_up(event, focused if focused and not focused.loading else self, trips)
        return True

    # --- decisions after the keys typed before them ------------------------------------------------

    def after_keys(self, then: Callable[[], object]) -> None:
        """Run `then` once every widget that had the focus since the last call has handled every key
        it was handed (in its own queue, behind them); at once when there is none."""
        waiting = [w for w in dict.fromkeys([*self._had_focus, self.focused]) if w is not None]
        self._had_focus = [self.focused] if self.focused is not None else []
        pending = {id(w): w for w in waiting if w.is_attached}
        if not pending:
            then()
            return
        done = False

        def finished(widget: Widget) -> None:
            nonlocal done
            pending.pop(id(widget), None)
            if not pending and not done:
                done = True
                then()

        def stragglers() -> None:  # a field that went away never answers: do not wait for it
            for widget in [w for w in pending.values() if not w.is_attached]:
                finished(widget)
            if not done:
                self.set_timer(self.STRAGGLER_CHECK_SECONDS, stragglers)

        for widget in list(pending.values()):
            if not widget.call_later(finished, widget):
                finished(widget)
        if not done:
            self.set_timer(self.STRAGGLER_CHECK_SECONDS, stragglers)

    def hold_keys_until(self, then: Callable[[], object]) -> None:
        """Run `then` once the fields have handled the keys typed before this call (`after_keys`);
        the keys read meanwhile wait, and go on in order once it ran (to the widget it focused; a
        `set_focus` in `then` hands them on at once)."""
        self._held = []
        self.set_focus(None)  # keys are handed to the screen now, which holds them

        def then_release() -> None:
            then()
            if self._held is not None:
                self._release()

        self.after_keys(then_release)

    # --- keys that come before the focus ----------------------------------------------------------

    def _forward_event(self, event: events.Event) -> None:
        # The app hands a key (or a paste) to the screen itself when nothing on it has the focus.
        if self._held is not None and isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            if isinstance(event, events.Key) and event.key == "escape" and self.is_mounted:
                self._release()  # waiting for a form that is slow to come: escape leaves now
            else:
                self._held.append(event)
                return
        super()._forward_event(event)

    def on_mount(self) -> None:
        if not self.KEYS_WAIT_FOR_FOCUS:
            # After the focus requests of `on_mount` (they wait in the app's queue too).
            self.app.call_later(self._release)

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        super().set_focus(widget, scroll_visible, from_app_focus)
        if self.focused is not None:
            if self.focused not in self._had_focus:
                self._had_focus.append(self.focused)
            if self._held is not None:
                self._release()

    def release_keys(self) -> None:
        """Hand on the keys held so far now (to the focused widget, else the screen's own keys)."""
        if self._held is not None:
            self._release()

    def _release(self) -> None:
        """Hand the keys held, in order, to the focused widget (moving on as `tab` says), else the
        screen. A key that acts once it came back up is sent on its way and the rest wait for it;
        once a key put another screen on top, the rest were typed for that one: both are read
        again, in order (`KeysInFlight`). Not while the screen is leaving: they are the screen
        beneath's then (`dismiss`)."""
        if self._leaving:
            return
        held, self._held = self._held or [], None
        for index, item in enumerate(held):
            if self.app.screen is not self or keys_in_flight(self.app).flying:
                keys_in_flight(self.app).hand_on([key_of(later) for later in held[index:]])
                return
            if isinstance(item, OpeningKey) and not self.typing():
                item.opens()
                continue
            event = key_of(item)
            if isinstance(event, events.Key):
                step = self.focus_step_for(event.key)
                if step and (event.key != "enter" or self.focused is not None):
                    self.move_focus(step)
                    continue
                if self.focus_key(event.key) or self._sent_up(event):
                    continue
            target = self.focused
            (target if target is not None and not target.loading else self)._forward_event(event)

    def hold_keys_while_leaving(self) -> None:
        """This screen leaves once work it waits for is done (the work screen gives back its claims
        first): the keys read from now on were typed for the screen beneath, and go there, in order,
        as this one is dismissed (`dismiss`). The keys held before were typed for this one: handed
        on first. Not for ever: a leaving that fails (no dismissal within `LEAVING_HOLD_SECONDS`)
        hands them to this screen after all. `ctrl+q` is never held."""
        self.release_keys()
        self._held, self._leaving = [], True
        self.set_focus(None)  # keys are handed to the screen now, which holds them
        self.set_timer(self.LEAVING_HOLD_SECONDS, self._left_after_all)

    def _left_after_all(self) -> None:
        if self._leaving and self.is_current:
            self._leaving = False
            self.release_keys()

    def held_for_beneath(self, event: events.Key) -> bool:
        """A key that waits (True): behind a key on its way up (`KeysInFlight`), or read while this
        screen is leaving (`hold_keys_while_leaving`), for the screen beneath. A screen with a
        `refuses_key` of its own asks this first."""
        if keys_in_flight(self.app).takes(event):
            return True  # behind a key on its way up, or keys handed on (`KeysInFlight`)
        if not self._leaving or self._held is None:
            return False
        active = self.active_bindings.get(event.key)
        if active is not None and active.node is self.app and active.binding.priority:
            return False  # the app's own (ctrl+q): acts now, whatever the screen does
        self._held.append(event)
        return True

    def dismiss(self, result: ScreenResultType | None = None) -> AwaitComplete:
        """Textual's `dismiss`; the keys this screen still holds were typed after it was left: they
        are read again on the screen beneath (`KeysInFlight.hand_on`)."""
        done = super().dismiss(result)
        held, self._held, self._leaving = self._held or [], None, False
        keys_in_flight(self.app).hand_on([key_of(item) for item in held])
        return done


def key_of(item: "HeldEvent | OpeningKey") -> Any:
    """The key (or paste) held as `item`."""
    return item.event if isinstance(item, OpeningKey) else item


KS = TypeVar("KS", bound="KeysInOrder[Any]")
P = ParamSpec("P")


def opens_a_screen(
    key: str,
) -> Callable[[Callable[Concatenate[KS, P], None]], Callable[Concatenate[KS, P], None]]:
    """Marks the action of a priority binding on `key` that opens another screen (`open_by_key`)."""

    def wrap(action: Callable[Concatenate[KS, P], None]) -> Callable[Concatenate[KS, P], None]:
        @functools.wraps(action)
        def act(screen: KS, /, *args: P.args, **kwargs: P.kwargs) -> None:
            screen.open_by_key(key, lambda: action(screen, *args, **kwargs))

        return act

    return wrap


class AppScreen(AppAccess, KeysInOrder[None]):
    pass


T = TypeVar("T")


class AppModal(AppAccess, ModalScreen[T], KeysInOrder[T]):
    # ModalScreen first: Textual takes default CSS from the first screen base only (its dimmed backdrop).
    pass
