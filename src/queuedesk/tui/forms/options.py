"""Numbered options chosen with one key: the shared part of the selection and yes/no editors.

Keys while the editor has the focus:
- `1`-`9`, `0` (the 10th) choose an option at once. With more than 10 options the options are
  numbered 1..N and typed: `1` `2` quickly is 12; a lone `1` is 1 after a short pause (or at once
  when the next key is not a digit); a number that cannot grow (`2` of 12) is chosen at once.
- The same digit again keeps the choice; `backspace`/`delete` clears it.
- `up`/`down` move a cursor, `space` chooses the option under it.
- `/` (more than 10 options) opens a filter: typing narrows the options, `up`/`down` move, `enter`
  chooses, `escape` closes it.
A click on an option picks it too.
"""

from collections.abc import Callable
from functools import cached_property
from typing import Any, ClassVar, Protocol

from textual import events
from textual.app import ComposeResult
from textual.containers import Container
from textual.content import Content
from textual.geometry import Size
from textual.layout import ArrangeResult, Layout
from textual.layouts.grid import GridLayout
from textual.widget import Widget
from textual.widgets import Input, Static

from queuedesk.api.models import Block
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.host import KeepsTime

DIGITS = "1234567890"
DASH = "\u2013"  # an en dash, for ranges of numbers


class _Cancellable(Protocol):
    def stop(self) -> None: ...


def number_labels(count: int) -> list[str]:
    """1-9 then 0 for up to 10 options; 1..N (right-aligned) beyond."""
    if count <= 10:
        return [DIGITS[i] for i in range(count)]
    width = len(str(count))
    return [str(i + 1).rjust(width) for i in range(count)]


def option_pairs(block: Block) -> list[tuple[str, str]]:
    """A selection block's options as (id, name), read leniently: a block from another server
    with an odd option is still shown (the rules then say what is wrong with a value)."""
    pairs: list[tuple[str, str]] = []
    for raw in block.settings.get("options") or []:
        if isinstance(raw, dict) and "id" in raw:
            option_id = str(raw["id"])
            pairs.append((option_id, str(raw.get("name", option_id))))
    return pairs


def number_range(count: int) -> str:
    """The numbers that choose among `count` options, as the hints show them: 1-3, 1-9 and 0, 1-12."""
    if count <= 1:
        return "1"
    if count == 10:
        return f"1{DASH}9, 0"
    return f"1{DASH}{count}"


class OptionItem(Static):
    """One option: its number, whether it is chosen, its name (never cut: it wraps)."""

    def __init__(self, index: int, number: str, name: str, marks: tuple[str, str]) -> None:
        super().__init__(classes="option")
        self.index = index
        self.number = number
        self.option_name = name
        self.marks = marks
        self.chosen = False

    def show(self, *, chosen: bool, cursor: bool, hidden: bool) -> None:
        self.chosen = chosen
        self.set_class(chosen, "-chosen")
        self.set_class(cursor, "-cursor")
        self.display = not hidden
        mark = self.marks[0] if chosen else self.marks[1]
        self.update(Content.assemble((self.number, "bold $text-accent"), " ", mark, " ", self.option_name))


class OptionColumns(GridLayout):
    """The options' grid: as many columns as `OptionGrid.columns_for` the width given to arrange."""

    def __init__(self, grid: "OptionGrid") -> None:
        super().__init__()
        self.grid = grid

    def arrange(
        self, parent: Widget, children: list[Widget], size: Size, greedy: bool = True
    ) -> ArrangeResult:
        parent.styles.grid_size_columns = self.grid.columns_for(size.width)  # unchanged: no new layout
        return super().arrange(parent, children, size, greedy)


class OptionGrid(Container):
    """The options in as many columns as their names allow (one column for a few options)."""

    ONE_COLUMN_UP_TO = 5

    def __init__(self, names: list[str], marks: tuple[str, str], *, columns: int | None = None) -> None:
        super().__init__(classes="option-grid")
        self.numbers = number_labels(len(names))
        self.names = names
        self.marks = marks
        self.columns = columns
        self._layout = OptionColumns(self)

    def compose(self) -> ComposeResult:
        for index, (number, name) in enumerate(zip(self.numbers, self.names, strict=True)):
            yield OptionItem(index, number, name, self.marks)

    @property
    def layout(self) -> Layout:
        """A grid whose columns are decided by the width it lays the options out in, at every layout,
        the first one too (`OptionColumns`). Set on `Resize` before, the first frames (and any taken
        before the event came, under load) showed one column: a yes/no on two lines, then on one."""
        return self._layout

    def columns_for(self, width: int) -> int:
        if self.columns is not None:
            return self.columns
        count = len(self.names)
        if count <= self.ONE_COLUMN_UP_TO:
            return 1
        return max(1, min(count, (width + 2) // (self.widest + 2)))

    @cached_property
    def widest(self) -> int:
        return max(len(n) + len(m) for n, m in zip(self.numbers, self.names, strict=True)) + 3

    def show(self, chosen: Callable[[int], bool], cursor: int | None, visible: set[int] | None) -> None:
        for item in self.query(OptionItem):
            hidden = visible is not None and item.index not in visible
            item.show(chosen=chosen(item.index), cursor=item.index == cursor, hidden=hidden)


class OptionsEditor(BlockEditor):
    """An editor whose values are a short list of numbered choices."""

    can_focus = True
    MARKS: ClassVar[tuple[str, str]] = ("●", "○")
    COLUMNS: ClassVar[int | None] = None
    DIGIT_WINDOW: ClassVar[float] = 0.6
    """Seconds a first digit waits for a second one (only with more than 10 options)."""
    EXTRA_KEYS: ClassVar[tuple[str, ...]] = ()
    """The keys `extra_key` handles."""
    CHOOSES: ClassVar[bool] = True
    """Is a pick a choice (it posts `Chosen`, for "submit on choice")? A toggle is not."""

    _value: Any = None
    """The value as set (`multiple_selection` keeps a list, `value()` gives it in the options' order)."""
    # What keys leave half done; `forget_keys` (from `__init__` on) puts the cursor on the choice.
    _cursor = 0
    _cursor_shown = False
    _typed = ""
    _typed_timer: _Cancellable | None = None
    _filter_text: str | None = None

    # --- what subclasses provide ----------------------------------------------------------------

    def names(self) -> list[str]:
        raise NotImplementedError

    def is_chosen(self, index: int) -> bool:
        raise NotImplementedError

    def picked(self, index: int) -> Any:
        """The value once a key picked option `index` (it chosen, or it toggled)."""
        raise NotImplementedError

    def forget_keys(self) -> None:
        self._stop_timer()
        self._typed = ""
        self._cursor_shown = False
        self._cursor = next((i for i in range(self.count) if self.is_chosen(i)), 0)
        if self._filter_text is not None:
            self._filter_text = None
            if self.composed:
                self.refresh(recompose=True)
        self.show_choices()

    def space(self) -> None:
        """`space`: pick the option under the cursor."""
        self._cursor_shown = True
        self.chosen_by_key(self._cursor)

    def extra_key(self, key: str) -> bool:
        """Keys of one editor only (`y`/`n`); True when handled."""
        return False

    # --- shared ---------------------------------------------------------------------------------

    def value(self) -> Any:
        return self._value

    def set_value(self, value: Any) -> None:
        self._value = value
        self.show_choices()
        self.value_changed()

    @property
    def count(self) -> int:
        return len(self.names())

    @property
    def filtering(self) -> bool:
        return self._filter_text is not None

    def compose_field(self) -> ComposeResult:
        if self._filter_text is not None:
            yield Input(
                self._filter_text, placeholder="filter: type, ↑↓, enter picks, esc", classes="option-filter"
            )
        yield OptionGrid(self.names(), self.MARKS, columns=self.COLUMNS)

    def on_mount(self) -> None:
        self.show_choices()

    def show_choices(self) -> None:
        if not self.composed:
            return
        cursor = self._cursor if (self._cursor_shown or self.filtering) and self.editable else None
        self.query_one(OptionGrid).show(self.is_chosen, cursor, self.matching_filter())
        self.refresh_hint()

    def matching_filter(self) -> set[int] | None:
        """The indexes of the options the filter keeps; None when there is no filter."""
        if not self._filter_text:
            return None
        needle = self._filter_text.casefold()
        names = self.names()
        labels = number_labels(self.count)
        return {i for i in range(self.count) if needle in names[i].casefold() or needle == labels[i].strip()}

    def chosen_by_key(self, index: int) -> None:
        self._cursor = index
        self.set_value(self.picked(index))
        self._show_option(index)
        if self.CHOOSES:
            self.chosen()

    # --- keys -----------------------------------------------------------------------------------

    async def on_key(self, event: events.Key) -> None:
        if not self.editable:
            return
        if self.filtering:
            await self._filter_key(event)
            return
        # No check of the focus: a key handed to this editor was typed while it had the focus, even
        # if a `tab` typed after it has moved the focus on before the editor got to it.
        key = event.key
        if key in DIGITS and len(key) == 1:
            event.stop()
            self._digit(key)
            return
        self._commit_typed()  # any other key ends a number being typed (enter then submits it)
        if key in ("backspace", "delete"):
            event.stop()
            self.set_value(None)
        elif key in ("up", "down"):
            event.stop()
            self._move(-1 if key == "up" else 1)
        elif key == "space":
            event.stop()
            self.space()
        elif key == "slash" and self.count > 10:
            event.stop()
            await self._open_filter()
        elif self.extra_key(key):
            event.stop()

    def commit_keys(self) -> None:
        self._commit_typed()

    def type_key(self, key: str) -> None:
        """A digit or one of `EXTRA_KEYS`, as if typed now (a screen's priority binding hands it on)."""
        if key in DIGITS and len(key) == 1:
            self._digit(key)
        else:
            self.extra_key(key)

    def on_blur(self) -> None:
        self._commit_typed()  # `tab` away from "1" of 12 options: 1 it is

    def _show_option(self, index: int) -> None:
        """The option just chosen in view (option 12 of 12 is below the fold at 80x24)."""
        if not self.composed:
            return
        item = next((i for i in self.query(OptionItem) if i.index == index), None)
        if item is not None:
            self.call_after_refresh(item.scroll_visible, animate=False)

    def takes_key(self, key: str) -> bool:
        """Whether a key (not in the filter) is one of this editor's."""
        return (
            (key in DIGITS and len(key) == 1)
            or key in ("backspace", "delete", "up", "down", "space")
            or (key == "slash" and self.count > 10)
            or key in self.EXTRA_KEYS
        )

    def on_click(self, event: events.Click) -> None:
        """A click on an option picks it, as its number would."""
        if self.editable and isinstance(event.widget, OptionItem):
            event.stop()
            self.focus()
            self.chosen_by_key(event.widget.index)

    def _move(self, step: int) -> None:
        order = sorted(self.matching_filter() or range(self.count))
        if not order:
            return
        if not self._cursor_shown and not self.filtering:
            self._cursor_shown = True  # the first arrow shows the cursor where it is
        elif self._cursor in order:
            self._cursor = order[(order.index(self._cursor) + step) % len(order)]
        else:
            self._cursor = order[0]
        self.show_choices()
        self._show_option(self._cursor)

    def _digit(self, digit: str) -> None:
        if self.count <= 10:
            index = DIGITS.index(digit)
            if index < self.count:
                self.chosen_by_key(index)
            else:
                self.show_problem(f"no option {digit} ({number_range(self.count)})")
            return
        self._typed += digit
        number = int(self._typed)
        if number == 0:
            self._typed = ""
            self.show_problem(f"no option 0 (type {number_range(self.count)})")
        elif number * 10 > self.count:
            self._commit_typed()
        else:
            self._wait_for_digit()

    def _wait_for_digit(self) -> None:
        self._stop_timer()
        app = self.app
        if isinstance(app, KeepsTime):  # the app's clock (a test's stands still); else real time
            self._typed_timer = app.clock.call_later(self, self.DIGIT_WINDOW, self._commit_typed)
        else:
            self._typed_timer = self.set_timer(self.DIGIT_WINDOW, self._commit_typed)
        self.refresh_hint()

    def _stop_timer(self) -> None:
        if self._typed_timer is not None:
            self._typed_timer.stop()
            self._typed_timer = None

    def _commit_typed(self) -> None:
        self._stop_timer()
        typed, self._typed = self._typed, ""
        if not typed:
            return
        number = int(typed)
        if 1 <= number <= self.count:
            self.chosen_by_key(number - 1)
        else:
            self.show_problem(f"no option {number} ({number_range(self.count)})")
            self.refresh_hint()

    # --- the filter -----------------------------------------------------------------------------

    async def _open_filter(self) -> None:
        self._filter_text = ""
        await self.recompose()
        self.show_choices()
        self.query_one(".option-filter", Input).focus()

    async def close_filter(self) -> None:
        self._filter_text = None
        await self.recompose()
        self.show_choices()
        self.focus()

    async def _filter_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            await self.close_filter()
        elif event.key in ("up", "down"):
            event.stop()
            self._move(-1 if event.key == "up" else 1)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.has_class("option-filter"):
            event.stop()
            self._filter_text = event.value
            visible = self.matching_filter()
            if visible is not None and visible and self._cursor not in visible:
                self._cursor = min(visible)
            self.show_choices()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.input.has_class("option-filter"):
            return
        event.stop()
        visible = self.matching_filter()
        if visible is not None and not visible:
            return  # nothing matches: keep typing
        index = self._cursor if visible is None or self._cursor in visible else min(visible)
        self._filter_text = None
        self.chosen_by_key(index)
        await self.close_filter()


class SelectionEditor(OptionsEditor):
    """An editor of a block's own options (`single_selection`, `multiple_selection`)."""

    FILTER_HINT: ClassVar[str] = "enter picks · esc closes"
    MANY_HINT: ClassVar[str] = "type {numbers} · / filter · ⌫ clear"
    """The hint with more than 10 options (numbers are typed, `/` filters)."""
    FEW_HINT: ClassVar[str] = "{numbers} choose · ⌫ clear"

    @cached_property
    def _options(self) -> list[tuple[str, str]]:
        return option_pairs(self.block)

    def names(self) -> list[str]:
        return [name for _, name in self._options]

    def ids(self) -> list[str]:
        """The option ids, in the block's order."""
        return [option_id for option_id, _ in self._options]

    def key_hint(self) -> str:
        if self.filtering:
            return self.FILTER_HINT
        if self._typed:
            return f"typed {self._typed}…"
        hint = self.MANY_HINT if self.count > 10 else self.FEW_HINT
        return hint.format(numbers=number_range(self.count))
