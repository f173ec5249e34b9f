"""A table over a long server-side list: pages load as the cursor nears an end, and only a window
of rows around the cursor is kept, so a history of millions paints as fast as one of a hundred.

It is a line-API widget (`ScrollView` + `render_line`), not a `DataTable`: a DataTable re-measures
and re-lays out every row it holds when rows are added or removed (a page took 0.2 to 0.4 s, up to
0.9 s, with a window of 500 rows), while here a page costs its fetch and the lines on screen. Each
row's cells are made and drawn once, when first shown; the row's style (zebra stripe, cursor, hover)
is laid over them as the line is painted, and the result kept until that style changes. It looks
and answers to keys like the DataTable it replaces (same component classes and styles,
`DataTable.RowSelected` on enter), and offers the few DataTable calls the tests read (`row_count`,
`get_row_at`).

Its parts: the rows it holds and which page to read next (`table_window.py`, plain Python), how a
row is drawn and painted (`table_lines.py`); this widget holds the cursor, the keys, the mouse and
the page reads.
"""

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Self, cast

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from queuedesk.api import errors
from queuedesk.tui.explanations import explain
from queuedesk.tui.widgets.table_lines import LinePainter, Row, StyleKind
from queuedesk.tui.widgets.table_window import NEAR, Page, Window

PAGE_SIZE = 100
WINDOW_PAGES = 5

Fetch = Callable[[int, int], Awaitable[Page]]  # offset, limit


class PagedTable(ScrollView, can_focus=True):
    """`fetch(offset, limit)` gives pages of a stable order; `key_of(item)` tells repeats apart."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Select", show=False, id="table.select"),
        Binding("up", "cursor_up", "Cursor up", show=False, id="table.up"),
        Binding("down", "cursor_down", "Cursor down", show=False, id="table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("home", "first_row", "First row", show=False, id="table.first"),
        Binding("end", "last_row", "Last row", show=False, id="table.last"),
        # The ends of the rows loaded: a page more is read when the cursor gets near one.
        Binding("ctrl+home", "first_loaded", "First row loaded", show=False, id="table.first_ctrl"),
        Binding("ctrl+end", "last_loaded", "Last row loaded", show=False, id="table.last_ctrl"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "datatable--header",
        "datatable--cursor",
        "datatable--hover",
        "datatable--even-row",
        "datatable--odd-row",
    }

    class Loaded(Message):
        def __init__(self, table: "PagedTable") -> None:
            super().__init__()
            self.table = table

    class Failed(Message):
        def __init__(self, table: "PagedTable", error: BaseException) -> None:
            super().__init__()
            self.table = table
            self.error = error

    class CursorMoved(Message):
        """The cursor is on another item (or the window under it changed): `item` may be None."""

        def __init__(self, table: "PagedTable", item: Any | None) -> None:
            super().__init__()
            self.table = table
            self.item = item

    class RowSelected(DataTable.RowSelected):
        """Enter (or a click on the cursor's row): handled by `@on(DataTable.RowSelected)` too."""

        def __init__(self, table: "PagedTable", cursor_row: int, key: str) -> None:
            # The screens read `event.data_table` and `control`; this table stands in for a DataTable.
            super().__init__(cast("DataTable[Any]", table), cursor_row, RowKey(key))

    def __init__(
        self,
        columns: Sequence[tuple[str, str, int]],
        cells: Callable[[Any], Sequence[str | Text]],
        key_of: Callable[[Any], str],
        *,
        page_size: int = PAGE_SIZE,
        window_pages: int = WINDOW_PAGES,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.column_spec = list(columns)
        self.cells = cells
        self.key_of = key_of
        self.page_size = page_size
        self.rows: Window[Row] = Window(key_of, page_size, window_pages)  # with what each row made
        self.lines = LinePainter(self.column_spec, self)
        self.fetch: Fetch | None = None
        self.busy = False
        self.generation = 0  # bumped by reset, so a page fetched for old filters is dropped
        self._cursor = 0
        self._hover: int | None = None  # the row under the mouse, once the mouse moved
        self._focus_later: tuple[Widget | None] | None = None  # asked while loading: where focus was
        self._cursor_at: int | None = None  # after a jump: the row of the whole list the cursor goes to
        self._told: Any | None = None  # the item CursorMoved last named
        self.sorted_by: tuple[str, bool] | None = None  # (column key, ascending): marked in the header
        # Why the last page was not read (cleared when one is): said in the table and by its pane,
        # which would otherwise read an empty table as "0 tasks" once the notification is gone.
        self.failure: BaseException | None = None

    def focus(self, scroll_visible: bool = True) -> Self:
        if self.loading:
            # Textual refuses the focus to a loading widget (a screen focuses its table as it opens,
            # before the first page): it is taken when the page is in, if it has not moved meanwhile.
            self._focus_later = (self.screen.focused,)
        return super().focus(scroll_visible)

    def watch_loading(self, _loading: bool) -> None:
        # Textual reads the keys of a focused widget that loads as if nothing had the focus, and
        # says nothing when it stops: the footer would go on without the keys of the table's pane.
        if self.is_attached and self.screen.focused is self:
            self.refresh_bindings()

    # --- what the screen calls -----------------------------------------------------------------

    def reset(self, fetch: Fetch) -> None:
        """Start over at the top with a new source (new filters)."""
        self.fetch = fetch
        self.generation += 1
        self.busy = False
        self._cursor_at = None
        self._set_window(0, [])
        self._cursor = 0
        self.scroll_to(y=0, animate=False)
        self.loading = True
        self._load(0, replace=True)

    def show_sort(self, column: str, *, ascending: bool) -> None:
        """Mark the column the list is ordered by (▲ ascending, ▼ descending) in the header."""
        self.sorted_by = (column, ascending)
        self.lines.forget_header()
        self.refresh()

    def refresh_window(self) -> None:
        """Fetch the page under the cursor again (live views), keeping the cursor on its row."""
        if self.fetch is None or self.busy:
            return
        self._load(self.rows.page_under(self._cursor), replace=True)

    def redraw(self) -> None:
        """Make the loaded rows' cells again (what they show changed, e.g. the queue's blocks came in
        after the page): a row is otherwise made once, when first painted."""
        self.rows.forget_made()
        self.refresh()

    def item_at_cursor(self) -> Any | None:
        return self.items[self._cursor] if self._cursor < len(self.items) else None

    @property
    def items(self) -> list[Any]:
        """The rows held, a window of the whole list (`start` is the first one's offset in it)."""
        return self.rows.items

    @property
    def start(self) -> int:
        return self.rows.start

    @property
    def end(self) -> int:
        return self.rows.end

    @property
    def total(self) -> int:
        return self.rows.total

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def row_count(self) -> int:
        return len(self.items)

    def get_row_at(self, row_index: int) -> list[str | Text]:
        """The cells of the window's row `row_index` (as `DataTable.get_row_at`)."""
        if not 0 <= row_index < len(self.items):
            raise IndexError(f"no row {row_index} in a window of {len(self.items)}")
        return list(self._row(row_index).cells)

    def move_cursor(
        self, *, row: int | None = None, column: int | None = None, animate: bool = False, scroll: bool = True
    ) -> None:
        """Put the cursor on `row` of the window (`column` and `animate` as DataTable's, unused)."""
        if row is not None:
            self._move(row, scroll=scroll)

    # --- keys and mouse -----------------------------------------------------------------------

    def action_select_cursor(self) -> None:
        item = self.item_at_cursor()
        if item is not None:
            self.post_message(self.RowSelected(self, self._cursor, self.key_of(item)))

    def action_cursor_up(self) -> None:
        self._key_move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._key_move(self._cursor + 1)

    def action_page_down(self) -> None:
        self._page(self._body_height)

    def action_page_up(self) -> None:
        self._page(-self._body_height)

    def _page(self, rows: int) -> None:
        self._hover = None
        self.scroll_to(y=self.scroll_y + rows, animate=False)
        self._move(self._cursor + rows)

    def action_first_row(self) -> None:
        """The first row of the whole list: read at once when the window does not hold it."""
        self.go_to(0)

    def action_last_row(self) -> None:
        """The last row of the whole list (one request, not a page per press)."""
        self._hover = None
        if self.fetch is not None and self.end < self.total:
            self._jump(self.rows.last_page(), cursor_at=self.total - 1)
        elif self.items:
            self._move(len(self.items) - 1)

    def action_first_loaded(self) -> None:
        self._key_move(0)

    def action_last_loaded(self) -> None:
        self._key_move(len(self.items) - 1)

    def _key_move(self, row: int) -> None:
        self._hover = None  # moved by a key: the row under the mouse is no longer marked
        self._move(row)

    def go_to(self, index: int) -> None:
        """The cursor to row `index` of the whole list: read at once when the window does not hold it."""
        self._hover = None
        if self.rows.holds(index) or self.fetch is None:
            self._move(index - self.start)
        else:
            self._jump(self.rows.jump_to(index), cursor_at=index)

    def _jump(self, offset: int, *, cursor_at: int) -> None:
        self.generation += 1  # a page on its way for the window left is dropped
        self._cursor_at = cursor_at
        self._load(offset, replace=True)

    def _row_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:  # outside, or the header
            return None
        row = self.scroll_offset.y + offset.y - 1
        return row if row < len(self.items) else None

    def on_click(self, event: events.Click) -> None:
        row = self._row_at(event)
        if row is None:
            return
        event.stop()
        if row == self._cursor:
            self.action_select_cursor()
        else:
            self._move(row)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        row = self._row_at(event)
        if row != self._hover:
            self._hover = row
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    # --- paging ----------------------------------------------------------------------------------

    def maybe_load(self) -> None:
        if self.fetch is None or self.busy:
            return
        offset = self.rows.next_page(self._cursor)
        if offset is not None:
            self._load(offset)

    def _load(self, offset: int, *, replace: bool = False) -> None:
        self.busy = True
        self.run_worker(self._fetch(offset, replace, self.generation), group="page", exit_on_error=False)

    async def _fetch(self, offset: int, replace: bool, generation: int) -> None:
        assert self.fetch is not None
        try:
            page = await self.fetch(offset, self.page_size)
        except Exception as exc:
            if generation == self.generation:
                self.busy = False
                self.loading = False
                self.failure = exc
                self.refresh()
                self.post_message(self.Failed(self, exc))
            return
        if generation != self.generation:
            return
        self.failure = None
        self.rows.total = page.count
        self._take(offset, list(page.items), replace)
        self.busy = False
        self.loading = False
        self._tell_cursor()
        if self._focus_later is not None:
            (focused,) = self._focus_later
            self._focus_later = None
            shown = all(node.display for node in self.ancestors_with_self)  # not in a hidden tab
            if self.screen.focused is focused and shown:
                self.focus()
        self.post_message(self.Loaded(self))

    def _take(self, offset: int, items: list[Any], replace: bool) -> None:
        line = self._cursor - int(self.scroll_y)  # where the cursor is on screen
        jump_to, self._cursor_at = self._cursor_at, None
        landing = self.rows.take(offset, items, cursor=self._cursor, replace=replace, jump_to=jump_to)
        self._window_changed()
        self._cursor = landing.cursor
        if landing.jumped:
            self.scroll_to(y=max(0, self._cursor - self._body_height // 2), animate=False)
        elif landing.replaced:  # the cursor stays on its line of the screen
            self.scroll_to(y=max(0, self._cursor - max(0, line)), animate=False)
        elif landing.shift:
            self.scroll_to(y=max(0, self.scroll_y + landing.shift), animate=False)
        self._show_cursor()

    def _set_window(self, start: int, items: list[Any]) -> None:
        self.rows.set(start, items)
        self._window_changed()

    def _window_changed(self) -> None:
        self._hover = None
        # Before any scrolling: the scroll offsets are checked against the virtual size at once.
        self.virtual_size = Size(self.lines.table_width, len(self.items) + 1)
        self.refresh()

    def _row(self, row: int) -> Row:
        """The row's cells, made the first time they are painted or read."""
        made = self.rows.made[row]
        if made is None:
            made = self.rows.made[row] = Row(list(self.cells(self.items[row])))
        return made

    # --- cursor and scrolling ----------------------------------------------------------------------

    @property
    def _body_height(self) -> int:
        """Rows on screen below the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def _move(self, row: int, *, scroll: bool = True) -> None:
        if not self.items:
            return
        row = max(0, min(row, len(self.items) - 1))
        if row != self._cursor:
            old, self._cursor = self._cursor, row
            self.refresh_lines(old + 1)  # the header is line 0
            self.refresh_lines(row + 1)
        if scroll:
            self._show_cursor()
        self._tell_cursor()
        self.maybe_load()

    def _tell_cursor(self) -> None:
        item = self.item_at_cursor()
        if item is not self._told:
            self._told = item
            self.post_message(self.CursorMoved(self, item))

    def _show_cursor(self) -> None:
        height = self.scrollable_content_region.height - 1
        if height <= 0:
            return
        top = int(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False)

    # --- drawing: how a row looks is `table_lines.py`'s -----------------------------------------

    def on_resize(self, _event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """Also worked out as a paint begins: a table first shown in a tab that opened as its page
        came in was painted, now and then, without the Resize that would have sized it (its
        flexible column 0 wide, the values gone)."""
        if self.lines.fit(self.size.width, self.rows.made):
            self.virtual_size = Size(self.lines.table_width, len(self.items) + 1)
            self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        self.lines.new_paint()
        if self.lines.fitted_to != self.size.width:
            self._fit()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        kind: StyleKind = ("header",)
        if y == 0:
            made = self.lines.header(self.sorted_by)
        else:
            row = y - 1 + scroll_y
            if row >= len(self.items):
                if row == 0 and self.failure is not None:
                    said = set_cell_size(" Rows " + failure_line(self.failure), width)
                    return Strip([Segment(said, self.rich_style)], width)
                return Strip.blank(width, self.rich_style)
            made = self._row(row)
            kind = ((self.start + row) % 2, row == self._cursor, row == self._hover)
        if made.line is None:
            made.line = self.lines.draw(made.cells, self.app.console)
        return self.lines.strip(made.line, kind, scroll_x, width)


def failure_line(exc: BaseException) -> str:
    """What an empty table says when its rows could not be read: why, and what to do."""
    status = exc.status if isinstance(exc, errors.QueueDeskError) and exc.status else None
    why = explain(exc).title + (f" ({status})" if status else "")
    return f"not read: {why}. r tries again."


__all__ = ["NEAR", "Page", "PagedTable", "failure_line"]
