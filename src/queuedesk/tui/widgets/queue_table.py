"""The live table of queues: updated in place, so the cursor and the scroll position never jump."""

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from queuedesk.api.models import Queue
from queuedesk.api.terminal_text import shown
from queuedesk.tui.clock import Clock, zone_name
from queuedesk.tui.present import minute
from queuedesk.tui.widgets.row_table import RowTable

COLUMNS: list[tuple[str, str]] = [
    ("name", "Queue"),
    ("pending", "Pending"),
    ("active", "Active users"),
    ("created", "Created"),
]
SORTS: list[str | None] = [None, "name", "pending", "active", "created"]
CHANGED = "bold black on #e5c07b"
# A long name or many active users are cut (with "…") so Pending stays on screen: the name gets
# what the other columns leave of the table's width, at least NAME_MIN characters.
NAME_MIN = 16
OTHER_COLUMNS_WIDTH = 50
ACTIVE_MAX = 28


def fit(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def cell_values(queue: Queue, clock: Clock) -> dict[str, str]:
    return {
        "name": queue.name,
        "pending": f"{queue.n_tasks:,}",
        "active": ", ".join(queue.active_users) or "—",
        "created": minute(queue.created_at, clock),
    }


def sort_key(column: str, queue: Queue) -> tuple[object, ...]:
    if column == "name":
        return (queue.name.casefold(), queue.id)
    if column == "pending":
        return (-queue.n_tasks, queue.id)
    if column == "active":
        return (-len(queue.active_users), queue.id)
    return (queue.created_at, queue.id)


@dataclass
class View:
    sort: str | None = None
    reverse: bool = False
    filter: str = ""

    def rows(self, queues: Sequence[Queue]) -> list[Queue]:
        needle = self.filter.casefold()
        shown = [q for q in queues if needle in q.name.casefold()]
        if self.sort is not None:
            column = self.sort
            shown.sort(key=lambda q: sort_key(column, q), reverse=self.reverse)
        return shown

    def describe(self) -> str:
        parts = []
        if self.sort:
            label = dict(COLUMNS)[self.sort]
            parts.append(f"sorted by {label.lower()}{' (reversed)' if self.reverse else ''}")
        if self.filter:
            parts.append(f"filter “{self.filter}”")
        return ", ".join(parts)


class QueueTable(RowTable):
    """One row per queue, keyed by the queue's id."""

    def __init__(self, clock: Clock, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.clock = clock
        self.shown: dict[str, dict[str, str]] = {}  # what each row's cells say now
        self.highlighted: set[tuple[str, str]] = set()
        self.cut_at: int | None = None  # the name length the rows were last built for

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(f"{label} {zone_name(self.clock)}" if key == "created" else label, key=key)

    def on_resize(self) -> None:
        if self.shown and self._limit("name") != self.cut_at:  # names are cut to the width: cut again
            self._rebuild([row.value for row in self.rows if row.value], self.shown, self.highlighted)

    @property
    def current_key(self) -> str | None:
        if self.row_count == 0:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def show_queues(self, rows: list[Queue], *, changed: set[tuple[str, str]]) -> None:
        """Show `rows` in this order; cells in `changed` (queue id, column) are highlighted this cycle."""
        keys = [str(q.id) for q in rows]
        values = {str(q.id): cell_values(q, self.clock) for q in rows}
        if keys == [row.value for row in self.rows]:
            self._update_in_place(values, changed)
        else:
            self._rebuild(keys, values, changed)
        self.shown = values
        self.highlighted = changed

    def _limit(self, column: str) -> int | None:
        if column == "name":
            return max(NAME_MIN, (self.size.width or self.app.size.width) - OTHER_COLUMNS_WIDTH)
        return ACTIVE_MAX if column == "active" else None

    def _cell(self, key: str, column: str, value: str, changed: set[tuple[str, str]]) -> Text:
        limit = self._limit(column)
        value = shown(value)
        if limit is not None:
            value = fit(value, limit)
        style = CHANGED if (key, column) in changed else ""
        if column == "pending":  # numbers stay right-aligned, also while highlighted as changed
            return Text(value, style=style, justify="right")
        return Text(value, style=style, no_wrap=True, end="")

    def _update_in_place(self, values: dict[str, dict[str, str]], changed: set[tuple[str, str]]) -> None:
        for key, cells in values.items():
            for column, value in cells.items():
                was_changed = (key, column) in self.highlighted
                now_changed = (key, column) in changed
                if self.shown.get(key, {}).get(column) != value or was_changed or now_changed:
                    self.update_cell(key, column, self._cell(key, column, value, changed), update_width=True)

    def _rebuild(
        self, keys: list[str], values: dict[str, dict[str, str]], changed: set[tuple[str, str]]
    ) -> None:
        cursor_key, cursor_row = self.current_key, self.cursor_row
        scroll_y = self.scroll_y
        self.cut_at = self._limit("name")
        self.clear(columns=True)  # the widths follow the rows shown (a filter can drop the widest)
        for key, label in COLUMNS:
            self.add_column(f"{label} {zone_name(self.clock)}" if key == "created" else label, key=key)
        for key in keys:
            self.add_row(*(self._cell(key, c, values[key][c], changed) for c, _ in COLUMNS), key=key)
        if not keys:
            return
        row = keys.index(cursor_key) if cursor_key in keys else min(cursor_row, len(keys) - 1)
        self.move_cursor(row=row, animate=False, scroll=False)
        self.call_after_refresh(self._restore_scroll, scroll_y)

    def _restore_scroll(self, scroll_y: float) -> None:
        self.scroll_to(y=scroll_y, animate=False, immediate=True)
        self.move_cursor(row=self.cursor_row, scroll=True)  # only if the new order moved it out of view
