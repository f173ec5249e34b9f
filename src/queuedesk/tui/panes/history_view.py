"""The Completed tab: the queue's completed history, paged from the server, with its filters (worker,
days, text in a value), its order (o, s), its note, and its export (X).

The queue screen keeps the keys (its footer lists them in one order whatever the tab) and calls the
pane; the pane tells the screen nothing but what every paged table posts (Loaded, Failed).
"""

from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Static

from queuedesk.api import errors
from queuedesk.api.client import CompletedSort
from queuedesk.api.models import Block, Task
from queuedesk.api.task_export import write_tasks
from queuedesk.atomic_write import SHARED, atomic_write
from queuedesk.tui.base import AppAccess
from queuedesk.tui.clock import day_end, day_start, filter_day, typed_day, zone_name
from queuedesk.tui.modals.export import ENDINGS, ExportScreen
from queuedesk.tui.panes.pending_view import VALUES_AT_MOST
from queuedesk.tui.present import answers_first, minute, summary, tasks
from queuedesk.tui.views.history_jump import HistoryJump
from queuedesk.tui.views.local_history import LocalHistory
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.views.worker_pick import read_worker_pick
from queuedesk.tui.widgets.paged_table import Page, PagedTable, failure_line
from queuedesk.tui.widgets.worker_picks import WorkerPicks

# s on the Completed tab: each sort's column (for its ▲/▼) and whether it starts ascending.
HISTORY_SORTS: dict[CompletedSort, tuple[str, bool]] = {
    "completed_at": ("completed", False),
    "completed_by": ("by", True),
    "id": ("id", False),
}
# The history note's words for each sort, descending then ascending.
HISTORY_SORT_NOTES: dict[CompletedSort, tuple[str, str]] = {
    "completed_at": (", newest first", ", oldest first (o: newest first)"),
    "completed_by": (", by who completed them, Z to A (o: A to Z)", ", by who completed them, A to Z"),
    "id": (", by task id, highest first", ", by task id, lowest first (o: highest first)"),
}
WORKED_HERE_DAYS = 30  # the worker filter offers first who completed tasks here in this many days
FORBIDDEN = "Not allowed: this key may not read completed tasks here (403), so none are shown. Ask an admin."


def completed_columns(zone: str) -> list[tuple[str, str, int]]:
    return [
        ("id", "Task", 7),
        ("completed", f"Completed {zone}", 16),
        ("by", "By", 20),
        ("values", "Values", 0),
    ]


def basic_filter_note(by_worker: bool) -> str:
    """What a filter does on a server without the extensions: it is the app's work, not the server's."""
    lacks = "no worker filter" if by_worker else "whole days only"
    return f"filtered by the app: basic API, {lacks}"


class HistoryView(AppAccess, Vertical):
    def __init__(self, queue_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.blocks: list[Block] = []  # the queue's, for the values column (the screen sets them)
        self.completed_count: int | None = None  # the queue's count, from the screen's refresh
        self.count_at_load: int | None = None  # the history's count when it was listed
        self.forbidden = False  # the server answered 403 to the completed tasks
        self.filters: dict[str, Any] = {}
        self.local_history: LocalHistory | None = None  # a basic server's filtered history, walked once
        self.oldest_first = False  # the history read from its other end (o): ascending
        self.sort: CompletedSort = "completed_at"  # s: the column the history is sorted by
        self._oldest_total = 0  # the history's count when the oldest-first order was read

    def compose(self) -> ComposeResult:
        with Vertical(id="history-filters"):
            with Horizontal(id="history-filter-row"):
                yield Input(placeholder="worker email", id="filter-worker", classes="history-filter")
                yield Input(placeholder="from YYYY-MM-DD", id="filter-from", classes="history-filter")
                yield Input(placeholder="to YYYY-MM-DD", id="filter-to", classes="history-filter")
            yield WorkerPicks(id="filter-worker-picks")
            yield Input(
                placeholder="text in any value, in any case (enter applies every filter)",
                id="filter-text",
                classes="history-filter",
            )
        yield Static("", id="history-note", markup=False)
        yield PagedTable(completed_columns(zone_name(self.clock)), self._cells, _key, id="history")

    def on_mount(self) -> None:
        self.query_one("#history-filters").display = False
        # A search in the values needs a QueueDesk server (A2's `q`); a basic one has no such filter.
        self.query_one("#filter-text").display = self.session.extensions
        if self.session.me is not None and self.session.me.role == "worker":
            self.filters["completed_by"] = "me"
        self.table.show_sort(HISTORY_SORTS[self.sort][0], ascending=self.oldest_first)
        self.table.reset(self._page)
        self.show_note()

    @property
    def table(self) -> PagedTable:
        return self.query_one("#history", PagedTable)

    # --- what the screen tells it --------------------------------------------------------------------

    async def read_count(self) -> int | None:
        """The queue's completed count (None when refused: said here, the rest of the screen still
        refreshes), for the screen's refresh; the note says how many completed since loaded."""
        try:
            page = await self.session.client.completed_tasks(
                self.queue_id, limit=1, **self.filters_for(everyone=True)
            )
        except errors.Forbidden:
            self.completed_count, self.forbidden = None, True
        else:
            self.completed_count, self.forbidden = page.count, False
        self.show_note()
        return self.completed_count

    def follow_role(self) -> None:
        """A worker lists their own completions, a supervisor everyone's."""
        worker = self.session.role == "worker"
        if worker != (self.filters.get("completed_by") == "me"):
            if worker:
                self.filters["completed_by"] = "me"
            else:
                self.filters.pop("completed_by", None)
            self.reload()

    # --- data --------------------------------------------------------------------------------------

    async def _page(self, offset: int, limit: int) -> Page:
        filters = self.filters_for()
        if filters and not self.session.extensions:
            if self.local_history is None or self.local_history.filters != filters:
                self.local_history = LocalHistory(self.session.client, self.queue_id, filters)
            return await self.local_history.page(offset, limit)
        if self.sort != "completed_at" and self.session.extensions:
            return await self._sorted_page(offset, limit, filters)
        if self.oldest_first and self.session.extensions:
            return await self._oldest_page(offset, limit, filters)
        if "bound" in self.filters:
            filters["end_date"] = self.filters["bound"]
        page = await self.session.client.completed_tasks(self.queue_id, offset=offset, limit=limit, **filters)
        if offset == 0 and page.tasks and self.session.extensions and "bound" not in self.filters:
            # Later pages stop at the first page's newest completion: what completes meanwhile
            # neither shifts nor repeats rows (r reloads to see it).
            self.filters["bound"] = page.tasks[0].completed_at
        if self.count_at_load is None:
            self.count_at_load = page.count
        return Page(page.count, page.tasks)

    async def _sorted_page(self, offset: int, limit: int, filters: dict[str, Any]) -> Page:
        """Sorted by another column (A2's `sort`), up to the newest completion when the sort was
        chosen (later ones would shift the offsets)."""
        client = self.session.client
        if "bound" not in self.filters:
            newest = await client.completed_tasks(self.queue_id, limit=1, **filters)
            self.filters["bound"] = newest.tasks[0].completed_at if newest.tasks else self.clock.now()
        filters["end_date"] = self.filters["bound"]
        order: Literal["asc", "desc"] = "asc" if self.oldest_first else "desc"
        page = await client.completed_tasks(
            self.queue_id, offset=offset, limit=limit, sort=self.sort, order=order, **filters
        )
        if self.count_at_load is None:
            self.count_at_load = page.count
        return Page(page.count, page.tasks)

    async def _oldest_page(self, offset: int, limit: int, filters: dict[str, Any]) -> Page:
        """Oldest first: the server's newest-first pages read from the far end and turned round, up to
        the newest completion when the order was chosen (later ones would shift the offsets)."""
        client = self.session.client
        if "bound" not in self.filters:
            newest = await client.completed_tasks(self.queue_id, limit=1, **filters)
            self.filters["bound"] = newest.tasks[0].completed_at if newest.tasks else self.clock.now()
            self._oldest_total = newest.count
        filters["end_date"] = self.filters["bound"]
        total = self._oldest_total
        count = min(limit, total - offset)
        if count <= 0:
            return Page(total, [])
        page = await client.completed_tasks(
            self.queue_id, offset=max(0, total - offset - limit), limit=count, **filters
        )
        if self.count_at_load is None:
            self.count_at_load = total
        return Page(total, list(reversed(page.tasks)))

    def filters_for(self, *, everyone: bool = False) -> dict[str, Any]:
        """The filters sent with a page (`everyone`: the queue's count, all of a supervisor's view)."""
        filters: dict[str, Any] = {}
        if self.filters.get("completed_by") and not (everyone and self.session.can_watch):
            filters["completed_by"] = self.filters["completed_by"]
        if everyone:
            return filters
        for name in ("start_date", "end_date", "q"):
            if self.filters.get(name):
                filters[name] = self.filters[name]
        return filters

    def listed_filters(self) -> dict[str, Any]:
        """The filters the history is listed with now, its end bound included."""
        filters = self.filters_for()
        if "bound" in self.filters:
            filters["end_date"] = self.filters["bound"]
        return filters

    # --- rendering --------------------------------------------------------------------------------

    def _cells(self, task: Task) -> list[str | Text]:
        # As long as the widest terminal shows: the table cuts it to the column, whose width
        # follows the terminal's (a row made at 80 columns is not cut at 80 once the terminal is wider).
        answers = summary(answers_first(self.blocks), task, VALUES_AT_MOST)
        return [str(task.id), minute(task.completed_at, self.clock), task.completed_by or "—", answers]

    def show_note(self) -> None:
        note = self.query_one("#history-note", Static)
        if self.forbidden:
            note.update(FORBIDDEN)
            return
        if self.table.failure is not None:
            note.update(f"Completed tasks {failure_line(self.table.failure)}")
            return
        parts = self._filter_words()
        total = self.table.total if self.table.fetch else 0
        if parts and not self.session.extensions:
            parts.append(basic_filter_note(bool(self.filters.get("completed_by"))))
        text = (
            tasks(total)
            + (f" ({', '.join(parts)})" if parts else "")
            + HISTORY_SORT_NOTES[self.sort][self.oldest_first]
        )
        if self.table.items:
            text += f" · rows {self.table.start + 1:,} to {self.table.end:,}"
        loaded, now = self.count_at_load, self.completed_count
        if loaded is not None and now is not None and not parts and now > loaded:
            text += f" · {now - loaded:,} completed since loaded (r reloads)"
        note.update(text + " · f filters · g goes to · X exports · enter opens a task")

    def _filter_words(self) -> list[str]:
        parts = []
        if self.filters.get("completed_by") == "me":
            parts.append("your completed tasks")
        elif self.filters.get("completed_by"):
            parts.append(f"completed by {self.filters['completed_by']}")
        start, end = self.filters.get("start_date"), self.filters.get("end_date")
        if start or end:
            parts.append(
                f"from {filter_day(start) if start else 'the start'} to {filter_day(end) if end else 'now'}"
                f", {zone_name(self.clock)} days"
            )
        if self.filters.get("q"):
            parts.append(f"with “{self.filters['q']}” in a value")
        return parts

    def on_paged_table_loaded(self, _event: PagedTable.Loaded) -> None:
        # Not stopped: the screen moves the focus to a table once loaded.
        self.show_note()

    def on_paged_table_failed(self, event: PagedTable.Failed) -> None:
        # Not stopped: the screen reports it.
        self.forbidden = isinstance(event.error, errors.Forbidden)
        self.show_note()

    # --- g: a day, or a completed task's row -------------------------------------------------------

    def jump(self) -> HistoryJump:
        """Where a day or a completion falls in the history as listed now."""
        return HistoryJump(self.session.client, self.queue_id, self.listed_filters(), self.oldest_first)

    async def go_to_day(self, day: date, jump: HistoryJump) -> None:
        """The first row of `day` (of the zone shown), in time order only."""
        if self.sort != "completed_at":
            self.notify(
                "g goes to a day in time order: press s until the history is sorted by completion time."
            )
            return
        moment = day_start(self.clock, day) if self.oldest_first else day_end(self.clock, day)
        self.screen.set_focus(self.table)
        self.table.go_to(await jump.rows_before(moment))

    async def go_to_completed(self, task: Task, jump: HistoryJump) -> bool:
        """The task's row, when the history as listed holds it (in time order): True; else False."""
        if (
            self.sort != "completed_at"
            or not task.completed_at
            or not jump.holds(task.completed_at, task.completed_by)
        ):
            return False
        self.screen.set_focus(self.table)
        self.table.go_to(await jump.rows_before(task.completed_at))
        return True

    # --- order and reload ---------------------------------------------------------------------------

    def reload(self) -> None:
        self.table.show_sort(HISTORY_SORTS[self.sort][0], ascending=self.oldest_first)
        self.filters.pop("bound", None)
        self.local_history = None  # r and a new filter read the server again
        self.count_at_load = None
        self.table.reset(self._page)

    def toggle_oldest_first(self) -> None:
        self.oldest_first = not self.oldest_first
        self.reload()
        self.show_note()

    def next_sort(self) -> None:
        """s: by completion time, by who completed, by task id, and round again."""
        self.sort = next_sort(list(HISTORY_SORTS), self.sort)
        self.oldest_first = HISTORY_SORTS[self.sort][1]
        self.reload()
        self.show_note()

    # --- filters ---------------------------------------------------------------------------------------

    def open_filters(self) -> None:
        self.query_one("#history-filters").display = True
        worker = self.query_one("#filter-worker", Input)
        if self.filters.get("completed_by") == "me" and not self.session.can_watch:
            worker.value = "me"
            worker.disabled = True
            self.screen.set_focus(self.query_one("#filter-from", Input))  # at once: the next key goes there
        else:
            self.screen.set_focus(worker)
            if self.picks.pick is None:
                self._read_workers()

    def close_filters(self) -> bool:
        """escape in a filter field: the row closes (True); else nothing here to close."""
        row = self.query_one("#history-filters")
        if not (row.display and isinstance(self.screen.focused, Input)):
            return False
        row.display = False
        self.table.focus()
        return True

    @property
    def picks(self) -> WorkerPicks:
        return self.query_one(WorkerPicks)

    @work(exclusive=True, group="filter-workers")
    async def _read_workers(self) -> None:
        """The people to offer in the worker filter; without them, what is typed is sent as it is."""
        since = self.clock.now() - timedelta(days=WORKED_HERE_DAYS)
        pick = await read_worker_pick(self.session.client, self.queue_id, since)
        if pick is None:
            return
        self.picks.pick = pick
        field = self.query_one("#filter-worker", Input)
        field.suggester = pick.suggester()
        field.placeholder = "worker (↓ picks)"
        self.show_picks()

    def show_picks(self) -> None:
        self.picks.offer(self.query_one("#filter-worker", Input), self.screen.focused)

    @on(Input.Changed, "#filter-worker")
    def _worker_typed(self) -> None:
        self.show_picks()

    def picking(self, focused: Widget | None) -> bool:
        """up/down move the highlight among the people offered (the worker field has the focus)."""
        return self.picks.display and focused is self.query_one("#filter-worker")

    @on(Input.Submitted, ".history-filter")
    def _apply_filters(self) -> None:
        worker_field = self.query_one("#filter-worker", Input)
        highlighted = self.picks.picked() if self.screen.focused is worker_field else None
        if highlighted is not None:
            worker_field.value = highlighted
        start = self.query_one("#filter-from", Input).value.strip()
        end = self.query_one("#filter-to", Input).value.strip()
        worker = worker_field.value.strip()
        start_day, start_ok = typed_day(start)
        end_day, end_ok = typed_day(end)
        if not start_ok:
            self._refuse("#filter-from", "not a date: YYYY-MM-DD")
            return
        if not end_ok:
            self._refuse("#filter-to", "not a date: YYYY-MM-DD")
            return
        if start_day and end_day and start_day > end_day:
            self._refuse("#filter-to", "before the 'from' date")
            return
        if worker and worker != "me" and self.picks.pick is not None:
            picked = self.picks.pick.read(worker)
            if picked.email is None:
                self._refuse("#filter-worker", picked.problem or "nobody here")
                return
            worker = picked.email
        elif worker and worker != "me" and "@" not in worker:
            self._refuse("#filter-worker", "a worker's email (or me)")
            return
        if worker or not self.session.can_watch:
            self.filters["completed_by"] = worker or "me"
        else:
            self.filters.pop("completed_by", None)
        # Days of the zone the times are shown in: a server with the extensions takes the exact
        # bounds, and for a basic one the client asks a day wider and keeps what falls within them.
        self.filters["start_date"] = day_start(self.clock, start_day) if start_day else None
        self.filters["end_date"] = day_end(self.clock, end_day) if end_day else None
        self.filters["q"] = self.query_one("#filter-text", Input).value.strip() or None
        # At once, before hiding the row: a hidden focused field passes focus on.
        self.screen.set_focus(self.table)
        self.query_one("#history-filters").display = False
        self.reload()

    def _refuse(self, selector: str, word: str) -> None:
        """A filter not applied: the word is on the field at fault, what was typed stays as it was."""
        field = self.query_one(selector, Input)
        field.add_class("-invalid")
        field.border_title = word
        field.focus()

    @on(Input.Changed, ".history-filter")
    def _filter_edited(self, event: Input.Changed) -> None:
        event.input.remove_class("-invalid")
        event.input.border_title = None

    # --- export ---------------------------------------------------------------------------------------

    def ask_where_to_export(self, queue_name: str) -> None:
        slug = "".join(c if c.isalnum() else "-" for c in queue_name.lower()).strip("-") or "queue"
        suggested = Path.cwd() / f"{slug}-completed-{self.clock.now().strftime('%Y%m%d-%H%M')}.csv"

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.export(path)

        self.app.push_screen(ExportScreen("the history as filtered", suggested), chosen)

    @work(exclusive=True, group="export")
    async def export(self, path: Path) -> None:
        """The history as listed now (its filters and end bound), newest first, to `path`."""
        filters = self.listed_filters()
        client = self.session.client
        self.notify(f"Exporting to {path}…", timeout=3)
        try:
            block_ids = [block.id for block in (await client.queue(self.queue_id)).data]
            pages = client.completed_pages(self.queue_id, **filters)
            with atomic_write(path, permissions=SHARED, newline="") as out:
                written = await write_tasks(pages, out, ENDINGS[path.suffix.lower()], block_ids)
        except OSError as exc:
            self.notify(f"Cannot write {path}: {exc.strerror}.", title="Not exported", severity="error")
            return
        except Exception as exc:
            self.qd.report(exc, doing=f"Exporting to {path}")
            return
        self.notify(f"{tasks(written)} exported to {path}.", title="Exported", timeout=8)


def _key(task: Task) -> str:
    return str(task.id)
