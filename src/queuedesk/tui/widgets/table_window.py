"""The rows a paged table holds of a long server-side list: a window of a few pages around the cursor.

Plain Python, no Textual (`PagedTable` draws it and fetches its pages). Pages come in a stable order;
a row seen already (the list moved between two pages) is dropped, told apart by `key_of`. A page
read past the window's end lets go of rows at its top, one read before its start of rows at its
bottom, so the window never holds more than `size` rows. Each row carries what the table made of it
(`made`: its cells and lines, made when first painted), shifted with the rows it belongs to.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

NEAR = 20  # rows from an end of the window at which the next page is fetched

Made = TypeVar("Made")


@dataclass(frozen=True)
class Page:
    count: int
    items: Sequence[Any]


@dataclass(frozen=True)
class Landing:
    """Where the cursor is once a page was taken in: its row in the window; the rows the view scrolls
    by to go on showing the rows it showed (`shift`); or, when the page replaced the window, that it
    stays on its line of the screen (`replaced`) or goes to the middle of it (`jumped`)."""

    cursor: int
    shift: int = 0
    replaced: bool = False
    jumped: bool = False


class Window(Generic[Made]):
    def __init__(self, key_of: Callable[[Any], str], page_size: int, pages: int) -> None:
        self.key_of = key_of
        self.page_size = page_size
        self.size = page_size * pages  # the most rows held
        self.start = 0  # offset of the first row held in the whole list
        self.items: list[Any] = []
        self.made: list[Made | None] = []  # per row: what was made of it, None until it is painted
        self.total = 0  # rows in the whole list, as the last page said

    @property
    def end(self) -> int:
        return self.start + len(self.items)

    def holds(self, index: int) -> bool:
        """Whether row `index` of the whole list is in the window."""
        return self.start <= index < self.end

    def set(self, start: int, items: list[Any], made: list[Made | None] | None = None) -> None:
        self.start, self.items = start, items
        self.made = made if made is not None else [None] * len(items)

    def forget_made(self) -> None:
        """What a row shows changed (the queue's blocks came in after the page): made again."""
        self.made = [None] * len(self.items)

    def fresh(self, items: list[Any], among: list[Any]) -> list[Any]:
        """`items` without repeats, neither among themselves nor of a row in `among`."""
        seen = {self.key_of(item) for item in among}
        fresh = []
        for item in items:
            key = self.key_of(item)
            if key not in seen:
                seen.add(key)
                fresh.append(item)
        return fresh

    def replace(self, offset: int, items: list[Any], *, follow: Any | None, at_head: bool) -> int:
        """The window is now the page read at `offset`; the row where the cursor goes: the one of the
        item it was on (`follow`), unless the list is followed at its head (a live log, newest first:
        rows that arrive there are shown, not pushed out of view)."""
        fresh = self.fresh(items, [])
        self.set(offset, fresh)
        keys = [self.key_of(item) for item in fresh]
        key = self.key_of(follow) if follow is not None else None
        return keys.index(key) if key in keys and not at_head else 0

    def append(self, items: list[Any]) -> int:
        """A page read after the window's end; the rows let go at the top to keep its size."""
        fresh = self.fresh(items, self.items)
        excess = max(0, len(self.items) + len(fresh) - self.size)
        self.set(self.start + excess, self.items[excess:] + fresh, self.made[excess:] + [None] * len(fresh))
        return excess

    def prepend(self, offset: int, items: list[Any]) -> int:
        """A page read at `offset`, before the window's start; the rows added at the top (rows are
        let go at the bottom to keep its size)."""
        added = self.fresh(items[: self.start - offset], self.items)
        keep = max(0, self.size - len(added))
        made: list[Made | None] = [None] * len(added)
        self.set(self.start - len(added), added + self.items[:keep], made + self.made[:keep])
        return len(added)

    def take(
        self, offset: int, items: list[Any], *, cursor: int, replace: bool, jump_to: int | None
    ) -> Landing:
        """Put the page read at `offset` in the window (`replace`: it becomes the window; else it is
        added at the end it was read for); where the cursor, on row `cursor` before, lands."""
        if replace and jump_to is not None:  # a jump: the window is that page, the cursor on its row
            self.set(offset, self.fresh(items, []))
            return Landing(self.cell_row(jump_to), jumped=True)
        if replace:
            # A list followed at its head (the cursor on its first row) stays at its head.
            at_head = offset == 0 and self.start == 0 and cursor == 0
            follow = self.items[cursor] if cursor < len(self.items) else None
            return Landing(self.replace(offset, items, follow=follow, at_head=at_head), replaced=True)
        if offset >= self.end:
            # Rows scrolled past are let go from the top: the rows, cursor and scroll shift together.
            excess = self.append(items)
            return Landing(max(0, cursor - excess), shift=-excess)
        added = self.prepend(offset, items)
        return Landing(min(cursor + added, len(self.items) - 1), shift=added)

    def next_page(self, cursor: int) -> int | None:
        """Where to read the next page with the cursor on row `cursor` of the window: past its end
        when the cursor nears the end, before its start when it nears the start; None: no need."""
        if not self.items:
            return None
        if cursor >= len(self.items) - NEAR and self.end < self.total:
            return self.end
        if cursor < NEAR and self.start > 0:
            return max(0, self.start - self.page_size)
        return None

    def page_under(self, cursor: int) -> int:
        """The offset of the page to read again to refresh what is around the cursor (live views)."""
        offset = self.start + max(0, cursor - NEAR)
        return max(0, offset - offset % self.page_size)

    def jump_to(self, index: int) -> int:
        """Where to read a page that puts row `index` of the whole list in its middle, with rows
        either side to scroll to."""
        return max(0, index - self.page_size // 2)

    def last_page(self) -> int:
        """Where to read the page that ends the whole list (one request, not a page per press)."""
        return max(0, self.total - self.page_size)

    def cell_row(self, index: int) -> int:
        """Row `index` of the whole list as a row of the window, kept among the rows held."""
        return max(0, min(index - self.start, len(self.items) - 1))
