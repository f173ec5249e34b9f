"""A table over a long server-side list: pages load as the cursor nears an end, and only a window
of rows around the cursor is kept, so a history of millions paints as fast as one of a hundred.

It is a line-API widget (`ScrollView` + `render_line`), not a `DataTable`: a DataTable re-measures
and re-lays out every row it holds when rows are added or removed (a page took 0.2 to 0.4 s, up to
0.9 s, with a window of 500 rows), while here a page costs its fetch and the lines on screen. Each
row's cells are made and drawn once, when first shown; the row's style (zebra stripe, cursor, hover)
is laid over them as the line is painted, and the result kept until that style changes. It looks and answers to keys like the DataTable it replaces (same component classes
and styles, `DataTable.RowSelected` on enter), and offers the few DataTable calls the tests read
(`row_count`, `get_row_at`).
"""

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self, cast

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
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
from queuedesk.api.terminal_text import shown
from queuedesk.tui.explanations import explain

PAGE_SIZE = 100
WINDOW_PAGES = 5
NEAR = 20  # rows from an end of the window at which the next page is fetched
PADDING = 1  # blank cells either side of a column's text, as a DataTable draws them
MIN_LAST = 16  # the width-0 column takes what is left, but never less than this


@dataclass(frozen=True)
class Page:
    count: int
    items: Sequence[Any]


Fetch = Callable[[int, int], Awaitable[Page]]  # offset, limit


class _Line:
    """A row drawn at the column widths, and the strip last painted from it (with its styles)."""

    __slots__ = ("key", "segments", "strip")

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.key: tuple[Any, ...] | None = None
        self.strip: Strip | None = None


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
        self.window = page_size * window_pages
        self.fetch: Fetch | None = None
        self.items: list[Any] = []
        self.start = 0  # offset of the first row of the window in the whole list
        self.total = 0
        self.busy = False
        self.generation = 0  # bumped by reset, so a page fetched for old filters is dropped
        # Per row of the window, made when first painted (or read): its cells, and its line.
        self._rows: list[list[str | Text] | None] = []
        self._lines: list[_Line | None] = []
        self._header: _Line | None = None
        self._styles: dict[tuple[Any, ...], tuple[Style, Style]] = {}  # worked out once a paint
        self._widths: list[int] = [width for _key, _label, width in self.column_spec]
        self._fitted_to: int | None = None  # the width the columns were last worked out for
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
        self._header = None
        self.refresh()

    def _label(self, key: str, label: str) -> str:
        if self.sorted_by is None or self.sorted_by[0] != key:
            return label
        return f"{label} {'▲' if self.sorted_by[1] else '▼'}"

    def refresh_window(self) -> None:
        """Fetch the page under the cursor again (live views), keeping the cursor on its row."""
        if self.fetch is None or self.busy:
            return
        offset = self.start + max(0, self._cursor - NEAR)
        self._load(max(0, offset - offset % self.page_size), replace=True)

    def redraw(self) -> None:
        """Make the loaded rows' cells again (what they show changed, e.g. the queue's blocks came in
        after the page): a row is otherwise made once, when first painted."""
        self._rows = [None] * len(self.items)
        self._lines = [None] * len(self.items)
        self.refresh()

    def item_at_cursor(self) -> Any | None:
        if not self.items or self._cursor >= len(self.items):
            return None
        return self.items[self._cursor]

    @property
    def end(self) -> int:
        return self.start + len(self.items)

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
        return list(self._cells(row_index))

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
        self._hover = None
        self._move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._hover = None
        self._move(self._cursor + 1)

    def action_page_down(self) -> None:
        self._hover = None
        height = self._body_height
        self.scroll_to(y=self.scroll_y + height, animate=False)
        self._move(self._cursor + height)

    def action_page_up(self) -> None:
        self._hover = None
        height = self._body_height
        self.scroll_to(y=self.scroll_y - height, animate=False)
        self._move(self._cursor - height)

    def action_first_row(self) -> None:
        """The first row of the whole list: read at once when the window does not hold it."""
        self._hover = None
        if self.fetch is not None and self.start > 0:
            self._jump(0, cursor_at=0)
        else:
            self._move(0)

    def action_last_row(self) -> None:
        """The last row of the whole list (one request, not a page per press)."""
        self._hover = None
        if self.fetch is not None and self.end < self.total:
            self._jump(max(0, self.total - self.page_size), cursor_at=self.total - 1)
        elif self.items:
            self._move(len(self.items) - 1)

    def action_first_loaded(self) -> None:
        self._hover = None
        self._move(0)

    def action_last_loaded(self) -> None:
        self._hover = None
        if self.items:
            self._move(len(self.items) - 1)

    def go_to(self, index: int) -> None:
        """The cursor to row `index` of the whole list: read at once when the window does not hold it."""
        self._hover = None
        if self.start <= index < self.end or self.fetch is None:
            self._move(index - self.start)
        else:
            # The row lands in the middle of its page, with rows either side to scroll to.
            self._jump(max(0, index - self.page_size // 2), cursor_at=index)

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
        if self.fetch is None or self.busy or not self.items:
            return
        if self._cursor >= len(self.items) - NEAR and self.end < self.total:
            self._load(self.end)
        elif self._cursor < NEAR and self.start > 0:
            self._load(max(0, self.start - self.page_size))

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
        self.total = page.count
        if replace and self._cursor_at is not None:
            self._set_window(offset, self._fresh(list(page.items), []))
            self._cursor = max(0, min(self._cursor_at - offset, len(self.items) - 1))
            self._cursor_at = None
            self.scroll_to(y=max(0, self._cursor - self._body_height // 2), animate=False)
            self._show_cursor()
        elif replace:
            self._replace(offset, list(page.items))
        elif offset >= self.end:
            self._append(list(page.items))
        else:
            self._prepend(offset, list(page.items))
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

    def _fresh(self, items: list[Any], among: list[Any]) -> list[Any]:
        seen = {self.key_of(item) for item in among}
        fresh = []
        for item in items:
            key = self.key_of(item)
            if key not in seen:
                seen.add(key)
                fresh.append(item)
        return fresh

    def _replace(self, offset: int, items: list[Any]) -> None:
        current = self.item_at_cursor()
        cursor_key = self.key_of(current) if current is not None else None
        line = self._cursor - int(self.scroll_y)  # where the cursor is on screen: it stays there
        # A list followed at its head (the cursor on its first row) stays at its head: rows that
        # arrive there (a live log, newest first) are shown, not pushed up out of view.
        at_head = offset == 0 and self.start == 0 and self._cursor == 0
        fresh = self._fresh(items, [])
        self._set_window(offset, fresh)
        keys = [self.key_of(item) for item in fresh]
        row = keys.index(cursor_key) if cursor_key in keys and not at_head else 0
        self._cursor = row
        self.scroll_to(y=max(0, row - max(0, line)), animate=False)
        self._show_cursor()

    def _append(self, items: list[Any]) -> None:
        fresh = self._fresh(items, self.items)
        excess = max(0, len(self.items) + len(fresh) - self.window)
        # Rows scrolled past are let go from the top: the rows, cursor and scroll shift together.
        self._set_window(
            self.start + excess,
            self.items[excess:] + fresh,
            self._rows[excess:] + [None] * len(fresh),
            self._lines[excess:] + [None] * len(fresh),
        )
        if excess:
            self._cursor = max(0, self._cursor - excess)
            self.scroll_to(y=max(0, self.scroll_y - excess), animate=False)
        self._show_cursor()

    def _prepend(self, offset: int, items: list[Any]) -> None:
        added = self._fresh(items[: self.start - offset], self.items)
        keep = max(0, self.window - len(added))
        self._set_window(
            self.start - len(added),
            added + self.items[:keep],
            [*(None for _ in added), *self._rows[:keep]],
            [*(None for _ in added), *self._lines[:keep]],
        )
        self._cursor = min(self._cursor + len(added), len(self.items) - 1)
        self.scroll_to(y=self.scroll_y + len(added), animate=False)
        self._show_cursor()

    def _set_window(
        self,
        start: int,
        items: list[Any],
        rows: list[list[str | Text] | None] | None = None,
        lines: list[_Line | None] | None = None,
    ) -> None:
        self.start, self.items = start, items
        self._rows = rows if rows is not None else [None] * len(items)
        self._lines = lines if lines is not None else [None] * len(items)
        self._hover = None
        # Before any scrolling: the scroll offsets are checked against the virtual size at once.
        self.virtual_size = Size(self._table_width, len(items) + 1)
        self.refresh()

    def _cells(self, row: int) -> list[str | Text]:
        """The row's cells, made the first time they are painted or read."""
        cells = self._rows[row]
        if cells is None:
            cells = self._rows[row] = list(self.cells(self.items[row]))
        return cells

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

    # --- drawing ---------------------------------------------------------------------------------

    @property
    def _table_width(self) -> int:
        return sum(width + 2 * PADDING for width in self._widths)

    def on_resize(self, _event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """Fixed widths (no measuring of cells); the width-0 columns share the rest of the line,
        leaving room for the vertical scrollbar. Also worked out as a paint begins: a table first
        shown in a tab that opened as its page came in was painted, now and then, without the
        Resize that would have sized it (its flexible column 0 wide, the values gone)."""
        self._fitted_to = self.size.width
        fixed = sum(width + 2 * PADDING for _key, _label, width in self.column_spec)
        flexible = sum(1 for _key, _label, width in self.column_spec if width == 0) or 1
        rest = max(MIN_LAST, (self.size.width - fixed - 2 - 2 * PADDING * (flexible - 1)) // flexible)
        widths = [width or rest for _key, _label, width in self.column_spec]
        if widths != self._widths:
            self._widths = widths
            self._lines = [None] * len(self.items)
            self._header = None
            self.virtual_size = Size(self._table_width, len(self.items) + 1)
            self.refresh()

    def _draw(self, cells: Sequence[str | Text]) -> list[Segment]:
        """Cells at the column widths: a str as it is written (never markup), a Text with its styles."""
        console = self.app.console
        pad = Segment(" " * PADDING)
        segments: list[Segment] = []
        for cell, width in zip(cells, self._widths, strict=False):
            segments.append(pad)
            if isinstance(cell, str):
                plain = shown(cell.replace("\n", " "))
                if cell_len(plain) > width:
                    plain = set_cell_size(plain, width - 1) + "…"
                segments.append(Segment(set_cell_size(plain, width)))
            else:
                text = Text(end="")
                text.append_text(cell)  # the cell's own style becomes a span: render() skips a bare one
                text.truncate(width, overflow=cell.overflow or "ellipsis", pad=True)
                segments.extend(text.render(console))
            segments.append(pad)
        return segments

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = {}  # the component styles may have changed (focus, theme): once a paint
        if self._fitted_to != self.size.width:
            self._fit()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        if y == 0:
            if self._header is None:
                self._header = _Line(
                    self._draw([self._label(key, label) for key, label, _width in self.column_spec])
                )
            line, styles = self._header, self._style(("header",))
        else:
            row = y - 1 + scroll_y
            if row >= len(self.items):
                if row == 0 and self.failure is not None:
                    said = set_cell_size(" Rows " + failure_line(self.failure), width)
                    return Strip([Segment(said, self.rich_style)], width)
                return Strip.blank(width, self.rich_style)
            cached = self._lines[row]
            if cached is None:
                cached = self._lines[row] = _Line(self._draw(self._cells(row)))
            line = cached
            kind = ((self.start + row) % 2, row == self._cursor, row == self._hover)
            styles = self._style(kind)
        key = (*styles, scroll_x, width)
        if line.key != key or line.strip is None:
            line.strip, line.key = self._paint(line.segments, *styles, scroll_x, width), key
        return line.strip

    def _paint(self, segments: list[Segment], pre: Style, post: Style, scroll_x: int, width: int) -> Strip:
        table_width = self._table_width
        painted = list(Segment.apply_style(segments, pre, post))
        line_width = max(width + scroll_x, table_width)
        if line_width > table_width:  # the row's colour to the right edge
            painted.append(Segment(" " * (line_width - table_width), pre))
        strip = Strip(painted, line_width)
        return strip.crop(scroll_x, scroll_x + width) if line_width > width else strip

    def _style(self, kind: tuple[Any, ...]) -> tuple[Style, Style]:
        """The style under a row's own cell styles, and the one over them (the cursor's colours)."""
        styles = self._styles.get(kind)
        if styles is None:
            styles = self._styles[kind] = self._work_out_style(kind)
        return styles

    def _work_out_style(self, kind: tuple[Any, ...]) -> tuple[Style, Style]:
        if kind == ("header",):
            return self.get_component_styles("datatable--header").rich_style, Style()
        odd, cursor, hover = kind
        pre = self.get_component_styles("datatable--odd-row" if odd else "datatable--even-row").rich_style
        if hover:
            pre += self.get_component_rich_style("datatable--hover")
        if cursor:
            cursor_style = self.get_component_rich_style("datatable--cursor")
            # As a DataTable: the cursor's foreground wins over a cell's own colour, its background not.
            return pre + cursor_style, Style.from_color(color=cursor_style.color)
        return pre, Style()


def failure_line(exc: BaseException) -> str:
    """What an empty table says when its rows could not be read: why, and what to do."""
    status = exc.status if isinstance(exc, errors.QueueDeskError) and exc.status else None
    why = explain(exc).title + (f" ({status})" if status else "")
    return f"not read: {why}. r tries again."
