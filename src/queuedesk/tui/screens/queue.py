"""One queue: its counts, the pending tasks with who holds them, the completed history, its blocks,
and for supervisors and admins its stats and webhook."""

import contextlib
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import DataTable, Input, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from queuedesk.api import errors
from queuedesk.api.client import CompletedSort
from queuedesk.api.models import Block, Queue, QueueDetail, Task
from queuedesk.api.task_export import write_tasks
from queuedesk.atomic_write import SHARED, atomic_write
from queuedesk.tui.base import AppScreen, opens_a_screen, styles
from queuedesk.tui.clock import day_end, day_start, filter_day, typed_day, zone_name
from queuedesk.tui.modals.export import ENDINGS, ExportScreen
from queuedesk.tui.modals.go_to import GoToScreen, Place
from queuedesk.tui.panes.feedback_view import FeedbackView
from queuedesk.tui.panes.pending_view import VALUES_AT_MOST, PendingView
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.present import answers_first, minute, settings_text, summary, tasks
from queuedesk.tui.review.review_access import has_review, offers_review
from queuedesk.tui.views.history_jump import HistoryJump
from queuedesk.tui.views.live import Poller
from queuedesk.tui.views.local_history import LocalHistory
from queuedesk.tui.views.queue_keys import keys_for_a_queue
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.views.worker_pick import WorkerPick
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.instructions import Instructions
from queuedesk.tui.widgets.paged_table import Page, PagedTable, failure_line
from queuedesk.tui.widgets.row_table import RowTable

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


def completed_columns(zone: str) -> list[tuple[str, str, int]]:
    return [
        ("id", "Task", 7),
        ("completed", f"Completed {zone}", 16),
        ("by", "By", 20),
        ("values", "Values", 0),
    ]


class QueueScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("queue.tcss")
    # Keys typed as the screen opens wait for the tabs' first activation (its table then takes the
    # focus): a tab chosen by key before it would be switched back by that activation.
    KEYS_WAIT_FOR_FOCUS = True
    AUTO_FOCUS = ""  # not the tab bar: the tabs' first activation focuses the table
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="queue.back"),
        Binding("1", "tab('tab-pending')", "Pending", show=False, id="queue.tab_pending"),
        Binding("2", "tab('tab-completed')", "Completed", show=False, id="queue.tab_completed"),
        Binding("3", "tab('tab-blocks')", "Blocks", show=False, id="queue.tab_blocks"),
        Binding("4", "tab('tab-stats')", "Stats", show=False, id="queue.tab_stats"),
        Binding("5", "tab('tab-webhook')", "Webhook", show=False, id="queue.tab_webhook"),
        Binding("6", "tab('tab-feedback')", "Feedback", show=False, id="queue.tab_feedback"),
        *keys_for_a_queue("queue"),
        Binding("E", "edit_queue", "Edit queue", show=False, id="queue.edit_queue", priority=True),
        # Priority: the keys typed right after it go to the field it opens (`focus_key`).
        Binding("f", "filter", "Filter history", id="queue.filter", priority=True),
        Binding("o", "oldest_first", "Oldest first", show=False, id="queue.oldest_first"),
        Binding("s", "sort_history", "Sort", show=False, id="queue.sort_history"),
        Binding("down", "pick(1)", show=False),  # in the worker filter: the people offered
        Binding("up", "pick(-1)", show=False),
        Binding("g", "go_to", "Go to", id="queue.go_to"),
        Binding("X", "export", "Export", id="queue.export"),
        Binding("r", "refresh", "Refresh", show=False, id="queue.refresh"),  # live already: in f1
        Binding("p", "pause", "Pause", show=False, id="queue.pause"),  # the header says "p resumes"
        Binding("i", "toggle_instructions", "Instructions", show=False, id="queue.instructions"),
    ]

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        self.detail: QueueDetail | None = None
        self.in_progress: int | None = None
        self.completed_count: int | None = None
        self.history_count_at_load: int | None = None
        self.history_forbidden = False  # the server answered 403 to the completed tasks
        self.filters: dict[str, Any] = {}
        self.local_history: LocalHistory | None = None  # a basic server's filtered history, walked once
        self.oldest_first = False  # the history read from its other end (o): ascending
        self.history_sort: CompletedSort = "completed_at"  # s: the column the history is sorted by
        self._oldest_total = 0  # the history's count when the oldest-first order was read
        self.worker_pick: WorkerPick | None = None  # the people the worker filter offers (read once)

    def compose(self) -> ComposeResult:
        yield ContextBar(self.queue.name, id="context")
        yield Static("", id="queue-counts")
        yield Instructions(
            getattr(self.queue, "description", ""), key="i", expanded=False, id="queue-instructions"
        )
        with TabbedContent(id="queue-tabs"):
            with TabPane("Pending", id="tab-pending"):
                yield PendingView(self.queue.id, id="pending-view")
            with TabPane("Completed", id="tab-completed"):
                with Vertical(id="history-filters"):
                    with Horizontal(id="history-filter-row"):
                        yield Input(placeholder="worker email", id="filter-worker", classes="history-filter")
                        yield Input(placeholder="from YYYY-MM-DD", id="filter-from", classes="history-filter")
                        yield Input(placeholder="to YYYY-MM-DD", id="filter-to", classes="history-filter")
                    picks = OptionList(id="filter-worker-picks")
                    picks.can_focus = False  # up/down in the worker field move its highlight
                    picks.display = False
                    yield picks
                    yield Input(
                        placeholder="text in any value, in any case (enter applies every filter)",
                        id="filter-text",
                        classes="history-filter",
                    )
                yield Static("", id="history-note", markup=False)
                yield PagedTable(
                    completed_columns(zone_name(self.clock)), self._completed_cells, _key, id="history"
                )
            with TabPane("Blocks", id="tab-blocks"):
                yield RowTable(id="blocks", cursor_type="row", zebra_stripes=True)
            if self.session.can_watch:
                with TabPane("Stats", id="tab-stats"):
                    yield StatsView(self.queue.id, id="stats")
                with TabPane("Webhook", id="tab-webhook"):
                    yield WebhookView(self.queue.id, id="webhook")
            if self.session.extensions and has_review(self.queue):
                own = not self.session.can_watch
                with TabPane("Feedback" if own else "Reviews", id="tab-feedback"):
                    yield FeedbackView(self.queue.id, own=own, id="feedback")
        yield AppFooter()

    def on_mount(self) -> None:
        self.query_one("#history-filters").display = False
        # A search in the values needs a QueueDesk server (A2's `q`); a basic one has no such filter.
        self.query_one("#filter-text").display = self.session.extensions
        blocks = self.query_one("#blocks", DataTable)
        for key, label in (("name", "Block"), ("id", "Id"), ("type", "Type"), ("settings", "Settings")):
            blocks.add_column(label, key=key)
        if self.session.me is not None and self.session.me.role == "worker":
            self.filters["completed_by"] = "me"
        self.poller = Poller(
            self, self.qd, self.clock, self.qd.settings.refresh_seconds, self._fetch, self._show_status
        )
        self.poller.start()
        self.query_one(PendingView).start()
        self.history.show_sort(HISTORY_SORTS[self.history_sort][0], ascending=self.oldest_first)
        self.history.reset(self._history_page)
        self._show_history_note()

    def on_unmount(self) -> None:
        self.poller.stop()

    def on_screen_resume(self) -> None:
        if hasattr(self, "poller"):
            self.poller.poll_now()  # back on top: fresh figures at once

    @property
    def pending(self) -> PagedTable:
        return self.query_one("#pending", PagedTable)

    @property
    def history(self) -> PagedTable:
        return self.query_one("#history", PagedTable)

    # --- data --------------------------------------------------------------------------------------

    async def _fetch(self) -> None:
        client = self.session.client
        detail = await client.queue(self.queue.id)
        blocks_changed = self.detail is None or detail.data != self.detail.data
        self.detail = self.queue = detail
        if blocks_changed:
            # A page that came in before the blocks showed no values: its rows are made again.
            self.query_one(PendingView).blocks = detail.data
            self.pending.redraw()
            self.history.redraw()
        if self.session.extensions:
            self.in_progress = (
                await client.pending_tasks(self.queue.id, status=["in_progress"], limit=1)
            ).count
            if self.pending.items or self.pending.total == 0:
                self.pending.refresh_window()
        try:
            page = await client.completed_tasks(
                self.queue.id, limit=1, **self._history_filters(everyone=True)
            )
        except errors.Forbidden:  # said on the Completed tab; the rest of the view still refreshes
            self.history_forbidden = True
            self.completed_count = None
        else:
            self.history_forbidden = False
            self.completed_count = page.count
        self._show_counts()
        self._show_blocks()
        self.query_one(Instructions).update(self.detail.description)
        view = self._shown_view()
        if view is not None:
            await view.fetch()

    def _shown_view(self) -> StatsView | WebhookView | FeedbackView | None:
        """The Stats or Webhook tab when it is the one shown: only then is it refreshed."""
        active = self.query_one("#queue-tabs", TabbedContent).active
        if active == "tab-stats":
            return self.query_one(StatsView)
        if active == "tab-webhook":
            return self.query_one(WebhookView)
        if active == "tab-feedback":
            return self.query_one(FeedbackView)
        return None

    async def _history_page(self, offset: int, limit: int) -> Page:
        filters = self._history_filters()
        if filters and not self.session.extensions:
            if self.local_history is None or self.local_history.filters != filters:
                self.local_history = LocalHistory(self.session.client, self.queue.id, filters)
            return await self.local_history.page(offset, limit)
        if self.history_sort != "completed_at" and self.session.extensions:
            return await self._sorted_page(offset, limit, filters)
        if self.oldest_first and self.session.extensions:
            return await self._oldest_page(offset, limit, filters)
        if "bound" in self.filters:
            filters["end_date"] = self.filters["bound"]
        page = await self.session.client.completed_tasks(self.queue.id, offset=offset, limit=limit, **filters)
        if offset == 0 and page.tasks and self.session.extensions and "bound" not in self.filters:
            # Later pages stop at the first page's newest completion: what completes meanwhile
            # neither shifts nor repeats rows (r reloads to see it).
            self.filters["bound"] = page.tasks[0].completed_at
        if self.history_count_at_load is None:
            self.history_count_at_load = page.count
        return Page(page.count, page.tasks)

    async def _sorted_page(self, offset: int, limit: int, filters: dict[str, Any]) -> Page:
        """Sorted by another column (A2's `sort`), up to the newest completion when the sort was
        chosen (later ones would shift the offsets)."""
        client = self.session.client
        if "bound" not in self.filters:
            newest = await client.completed_tasks(self.queue.id, limit=1, **filters)
            self.filters["bound"] = newest.tasks[0].completed_at if newest.tasks else self.clock.now()
        filters["end_date"] = self.filters["bound"]
        order: Literal["asc", "desc"] = "asc" if self.oldest_first else "desc"
        page = await client.completed_tasks(
            self.queue.id, offset=offset, limit=limit, sort=self.history_sort, order=order, **filters
        )
        if self.history_count_at_load is None:
            self.history_count_at_load = page.count
        return Page(page.count, page.tasks)

    async def _oldest_page(self, offset: int, limit: int, filters: dict[str, Any]) -> Page:
        """Oldest first: the server's newest-first pages read from the far end and turned round, up to
        the newest completion when the order was chosen (later ones would shift the offsets)."""
        client = self.session.client
        if "bound" not in self.filters:
            newest = await client.completed_tasks(self.queue.id, limit=1, **filters)
            self.filters["bound"] = newest.tasks[0].completed_at if newest.tasks else self.clock.now()
            self._oldest_total = newest.count
        filters["end_date"] = self.filters["bound"]
        total = self._oldest_total
        count = min(limit, total - offset)
        if count <= 0:
            return Page(total, [])
        page = await client.completed_tasks(
            self.queue.id, offset=max(0, total - offset - limit), limit=count, **filters
        )
        if self.history_count_at_load is None:
            self.history_count_at_load = total
        return Page(total, list(reversed(page.tasks)))

    def _history_filters(self, *, everyone: bool = False) -> dict[str, Any]:
        filters: dict[str, Any] = {}
        if self.filters.get("completed_by") and not (everyone and self.session.can_watch):
            filters["completed_by"] = self.filters["completed_by"]
        if everyone:
            return filters
        if self.filters.get("start_date"):
            filters["start_date"] = self.filters["start_date"]
        if self.filters.get("end_date"):
            filters["end_date"] = self.filters["end_date"]
        if self.filters.get("q"):
            filters["q"] = self.filters["q"]
        return filters

    # --- rendering --------------------------------------------------------------------------------

    def _completed_cells(self, task: Task) -> list[str | Text]:
        answers = self._summary(task, answers_first)
        return [str(task.id), minute(task.completed_at, self.clock), task.completed_by or "—", answers]

    def _summary(self, task: Task, order: Callable[[list[Block]], list[Block]] = list) -> str:
        # As long as the widest terminal shows: the table cuts it to the column, whose width
        # follows the terminal's (a row made at 80 columns is not cut at 80 once the terminal is wider).
        return summary(order(self.detail.data) if self.detail else [], task, VALUES_AT_MOST)

    def _show_counts(self) -> None:
        queue = self.queue
        pending = Content.assemble((f"{queue.n_tasks:,}", "bold"), " pending")
        if self.in_progress is not None:  # a part of the pending, not beside them
            pending += f" ({self.in_progress:,} in progress)"
        parts = [pending]
        if self.completed_count is not None:
            parts.append(Content.assemble((f"{self.completed_count:,}", "bold"), " completed"))
        active = ", ".join(queue.active_users) if queue.active_users else "nobody"
        parts.append(Content(f"working now: {active}"))  # names as written, never markup
        self.query_one("#queue-counts", Static).update(Content("  ·  ").join(parts))
        self._show_history_note()

    def _show_blocks(self) -> None:
        if self.detail is None:
            return
        table = self.query_one("#blocks", DataTable)
        rows = [(b.name, b.id, b.type, settings_text(b)) for b in self.detail.data]
        if [tuple(map(str, table.get_row_at(i))) for i in range(table.row_count)] == rows:
            return
        table.clear()
        for row in rows:
            table.add_row(*row)

    def _show_history_note(self) -> None:
        parts = []
        if self.filters.get("completed_by") == "me":
            parts.append("your completed tasks")
        elif self.filters.get("completed_by"):
            parts.append(f"completed by {self.filters['completed_by']}")
        if self.filters.get("start_date") or self.filters.get("end_date"):
            start, end = self.filters.get("start_date"), self.filters.get("end_date")
            parts.append(
                f"from {filter_day(start) if start else 'the start'} to {filter_day(end) if end else 'now'}"
                f", {zone_name(self.clock)} days"
            )
        if self.filters.get("q"):
            parts.append(f"with “{self.filters['q']}” in a value")
        total = self.history.total if self.history.fetch else 0
        if parts and not self.session.extensions:
            parts.append(basic_filter_note(bool(self.filters.get("completed_by"))))
        if self.history_forbidden:
            self.query_one("#history-note", Static).update(
                "Not allowed: this key may not read completed tasks here (403), so none are shown. Ask an admin."
            )
            return
        if self.history.failure is not None:
            self.query_one("#history-note", Static).update(
                f"Completed tasks {failure_line(self.history.failure)}"
            )
            return
        order = HISTORY_SORT_NOTES[self.history_sort][self.oldest_first]
        text = tasks(total) + (f" ({', '.join(parts)})" if parts else "") + order
        if self.history.items:
            text += f" · rows {self.history.start + 1:,} to {self.history.end:,}"
        if (
            self.history_count_at_load is not None
            and self.completed_count is not None
            and not parts
            and self.completed_count > self.history_count_at_load
        ):
            text += (
                f" · {self.completed_count - self.history_count_at_load:,} completed since loaded (r reloads)"
            )
        text += " · f filters · g goes to · X exports · enter opens a task"
        self.query_one("#history-note", Static).update(text)

    def _show_status(self) -> None:
        self.set_class(self.poller.stale, "-stale")
        self.query_one(ContextBar).show(freshness=self.poller.status(), stale=self.poller.stale)

    @on(PagedTable.Loaded)
    def _loaded(self, event: PagedTable.Loaded) -> None:
        if event.table.id == "history":
            self._show_history_note()
        # A table cannot take the focus while it loads: the shown tab's takes it once loaded.
        active = self.query_one("#queue-tabs", TabbedContent).active
        if self.focused is None and event.table is self._table_of(active):
            self._focus_in_tab(event.table)

    @on(PagedTable.Failed)
    def _failed(self, event: PagedTable.Failed) -> None:
        if event.table.id == "history":
            self.history_forbidden = isinstance(event.error, errors.Forbidden)
            self._show_history_note()
        self.qd.report(event.error, doing="Loading tasks")

    # --- actions ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        session = self.qd.session
        if session is None:
            return True
        if action in ("flush", "create", "edit_queue"):
            return session.is_admin
        if action == "work":
            return session.can_work and session.extensions
        if action == "no_claiming":
            return not session.extensions
        if action == "export":
            return self.query_one("#queue-tabs", TabbedContent).active == "tab-completed"
        if action == "go_to":
            tab = self.query_one("#queue-tabs", TabbedContent).active
            return session.extensions and tab in ("tab-pending", "tab-completed")
        if action in ("review", "no_review"):
            return self._offers_review() == (action == "review")
        if action == "pick":
            picks = self.query_one("#filter-worker-picks", OptionList)
            return picks.display and self.focused is self.query_one("#filter-worker")
        if action in ("filter", "oldest_first", "sort_history"):
            on_history = self.query_one("#queue-tabs", TabbedContent).active == "tab-completed"
            return on_history and (action == "filter" or session.extensions)
        if action == "tab" and parameters and parameters[0] in ("tab-stats", "tab-webhook"):
            return session.can_watch
        if action == "toggle_instructions":
            return self.detail is not None and bool(self.detail.description.strip())
        if action == "tab" and parameters and parameters[0] == "tab-feedback":
            return bool(self.query("#tab-feedback"))
        return True

    def action_toggle_instructions(self) -> None:
        self.query_one(Instructions).toggle()

    def _table_of(self, pane: str) -> Widget | None:
        """The widget that takes the focus when a tab is shown."""
        table = {
            "tab-pending": "#pending",
            "tab-completed": "#history",
            "tab-blocks": "#blocks",
            "tab-stats": "#stats-workers",
            "tab-webhook": "#deliveries" if self.session.extensions else "#webhook",
            "tab-feedback": "#feedback-list",
        }.get(pane)
        return None if table is None else self.query_one(table)

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        table = self._table_of(event.pane.id or "")
        if table is not None:
            self._focus_in_tab(table)
        # The first time, the keys typed as the screen opened go on (to the table, or to the
        # screen's own keys while the table is still loading).
        self.release_keys()
        view = self._shown_view()
        if view is not None:
            view.refresh_now()  # at once, not at the next refresh

    async def follow_role(self) -> None:
        """The session's role changed: the Stats and Webhook tabs and a worker's own history follow it."""
        tabs = self.query_one("#queue-tabs", TabbedContent)
        watching = self.session.can_watch
        # A worker's own feedback and the reviews of everyone are two views: the tab is made anew,
        # last (after the Stats and Webhook tabs, as the screen composes them).
        feedback = self.query(FeedbackView).first(FeedbackView) if self.query(FeedbackView) else None
        if feedback is not None and feedback.own == watching:
            if tabs.active == "tab-feedback":
                tabs.active = "tab-pending"
            await tabs.remove_pane("tab-feedback")
        for pane, title, view in (
            ("tab-stats", "Stats", lambda: StatsView(self.queue.id, id="stats")),
            ("tab-webhook", "Webhook", lambda: WebhookView(self.queue.id, id="webhook")),
        ):
            present = bool(self.query(f"#{pane}"))
            if present and not watching:
                if tabs.active == pane:
                    tabs.active = "tab-pending"
                await tabs.remove_pane(pane)
            elif watching and not present:
                await tabs.add_pane(TabPane(title, view(), id=pane))
        if feedback is not None and feedback.own == watching:
            own = not watching
            await tabs.add_pane(
                TabPane(
                    "Feedback" if own else "Reviews",
                    FeedbackView(self.queue.id, own=own, id="feedback"),
                    id="tab-feedback",
                )
            )
        worker = self.session.role == "worker"
        if worker != (self.filters.get("completed_by") == "me"):
            if worker:
                self.filters["completed_by"] = "me"
            else:
                self.filters.pop("completed_by", None)
            self._reload_history()
        self.refresh_bindings()

    def action_tab(self, pane: str) -> None:
        self.query_one("#queue-tabs", TabbedContent).active = pane
        # Its table takes the focus now too: a focus given to the tab before (the first one's, as
        # the screen opened) would otherwise bring that tab back when its news arrives.
        table = self._table_of(pane)
        if table is not None:
            self._focus_in_tab(table)

    def _focus_in_tab(self, widget: Widget) -> None:
        """The focus to a widget of the tab shown, now. Without the tab's own news of it: that news
        reaches the tabs later, and would bring this tab back over one chosen by a key meanwhile."""
        with self.prevent(TabPane.Focused):
            self.set_focus(widget)

    def action_back(self) -> None:
        if (
            self.query_one("#history-filters").display
            and self.focused is not None
            and isinstance(self.focused, Input)
        ):
            self.query_one("#history-filters").display = False
            self.history.focus()
            return
        if self.focused is not None and self.focused.id == "pending-search":
            self.query_one(PendingView).close_search()
            return
        self.dismiss()

    @opens_a_screen("w")
    def action_work(self) -> None:
        self.qd.open_work(self.queue)

    @opens_a_screen("w")
    def action_no_claiming(self) -> None:
        self.qd.open_work(self.queue)  # on a basic server: says there is no claiming there

    def _offers_review(self) -> bool:
        return offers_review(self.qd.session, [self.queue])

    @opens_a_screen("v")
    def action_review(self) -> None:
        self.qd.open_review(self.queue)

    @opens_a_screen("v")
    def action_no_review(self) -> None:
        self.qd.open_review(self.queue)  # says why there is no review here

    @opens_a_screen("n")
    def action_create(self) -> None:
        self.qd.open_create_task(self.queue)

    @opens_a_screen("E")
    def action_edit_queue(self) -> None:
        self.qd.open_queue_editor(self.detail or self.queue)

    @opens_a_screen("F")
    def action_flush(self) -> None:
        self.qd.open_flush(self.queue, on_done=self._after_flush)

    def _after_flush(self) -> None:
        self.poller.poll_now()
        if self.session.extensions:
            self.query_one(PendingView).start()

    def action_refresh(self) -> None:
        self.poller.poll_now(asked=True)
        self._reload_history()

    def action_pause(self) -> None:
        paused = self.poller.toggle_pause()
        self.notify("Live refresh paused: p resumes." if paused else "Live refresh on.", timeout=3)

    def action_go_to(self) -> None:
        on_history = self.query_one("#queue-tabs", TabbedContent).active == "tab-completed"

        def chosen(place: Place | None) -> None:
            if place is not None:
                self.go_to(place, on_history=on_history)

        self.app.push_screen(GoToScreen("the history" if on_history else "the pending tasks"), chosen)

    @work(exclusive=True, group="go-to")
    async def go_to(self, place: Place, *, on_history: bool = True, show: bool = False) -> None:
        """A task by id (its row when the list shows it, else the task itself; `show`: the task
        itself) or, in the history, the first row of a day of the shown zone."""
        jump = HistoryJump(self.session.client, self.queue.id, self._listed_filters(), self.oldest_first)
        try:
            if isinstance(place, date):
                if not on_history:
                    self.notify("Pending tasks are listed oldest first, not by day: g takes a task id here.")
                    return
                if self.history_sort != "completed_at":
                    self.notify(
                        "g goes to a day in time order: press s until the history is sorted by completion time."
                    )
                    return
                moment = day_start(self.clock, place) if self.oldest_first else day_end(self.clock, place)
                self.set_focus(self.history)
                self.history.go_to(await jump.rows_before(moment))
                return
            task = await self.session.client.task(self.queue.id, place)
        except errors.NotFound:
            self.notify(f"There is no task {place} in {self.queue.name}.", severity="warning")
            return
        except Exception as exc:
            self.qd.report(exc, doing=f"Going to {place}")
            return
        in_time_order = self.history_sort == "completed_at"
        if (
            not show
            and on_history
            and in_time_order
            and task.completed_at
            and jump.holds(task.completed_at, task.completed_by)
        ):
            self.set_focus(self.history)
            self.history.go_to(await jump.rows_before(task.completed_at))
            return
        if not show and not on_history and task.status != "completed" and self._point_pending_at(task.id):
            return
        if self.detail is not None:
            from queuedesk.tui.modals.task import TaskScreen

            self.app.push_screen(TaskScreen(self.detail, task))

    def open_task_by_id(self, task_id: int) -> None:
        """The palette's "Open task N" (on a server with the extensions, which reads one task)."""
        if self.session.extensions:
            self.go_to(task_id, show=True)
        else:
            self.notify("This server offers only the basic API: it cannot read one task by its id.")

    def _point_pending_at(self, task_id: int) -> bool:
        """The Pending tab's cursor on the task when the rows read hold it."""
        table = self.pending
        for row, item in enumerate(table.items):
            if item.id == task_id:
                table.go_to(table.start + row)
                self.set_focus(table)
                return True
        return False

    def _listed_filters(self) -> dict[str, Any]:
        """The filters the history is listed with now, its end bound included."""
        filters = self._history_filters()
        if "bound" in self.filters:
            filters["end_date"] = self.filters["bound"]
        return filters

    def action_export(self) -> None:
        slug = "".join(c if c.isalnum() else "-" for c in self.queue.name.lower()).strip("-") or "queue"
        suggested = Path.cwd() / f"{slug}-completed-{self.clock.now().strftime('%Y%m%d-%H%M')}.csv"

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.export_history(path)

        self.app.push_screen(ExportScreen("the history as filtered", suggested), chosen)

    @work(exclusive=True, group="export")
    async def export_history(self, path: Path) -> None:
        """The history as listed now (its filters and end bound), newest first, to `path`."""
        filters = self._listed_filters()
        client = self.session.client
        self.notify(f"Exporting to {path}…", timeout=3)
        try:
            block_ids = [block.id for block in (await client.queue(self.queue.id)).data]
            pages = client.completed_pages(self.queue.id, **filters)
            with atomic_write(path, permissions=SHARED, newline="") as out:
                written = await write_tasks(pages, out, ENDINGS[path.suffix.lower()], block_ids)
        except OSError as exc:
            self.notify(f"Cannot write {path}: {exc.strerror}.", title="Not exported", severity="error")
            return
        except Exception as exc:
            self.qd.report(exc, doing=f"Exporting to {path}")
            return
        self.notify(f"{tasks(written)} exported to {path}.", title="Exported", timeout=8)

    def action_oldest_first(self) -> None:
        self.oldest_first = not self.oldest_first
        self._reload_history()
        self._show_history_note()

    def action_sort_history(self) -> None:
        """s: by completion time, by who completed, by task id, and round again."""
        self.history_sort = next_sort(list(HISTORY_SORTS), self.history_sort)
        self.oldest_first = HISTORY_SORTS[self.history_sort][1]
        self._reload_history()
        self._show_history_note()

    def action_filter(self) -> None:
        self.open_field_by_key("f")

    def focus_key(self, key: str) -> bool:
        if super().focus_key(key):
            return True
        if key != "f" or self.typing() or not self.check_action("filter", ()):
            return False
        self._open_filters()
        return True

    def _open_filters(self) -> None:
        row = self.query_one("#history-filters")
        row.display = True
        worker = self.query_one("#filter-worker", Input)
        if self.filters.get("completed_by") == "me" and not self.session.can_watch:
            worker.value = "me"
            worker.disabled = True
            self.set_focus(self.query_one("#filter-from", Input))  # at once: the next key goes there
        else:
            self.set_focus(worker)
            if self.worker_pick is None:
                self._read_workers()

    @work(exclusive=True, group="filter-workers")
    async def _read_workers(self) -> None:
        """The people to offer in the worker filter; without them, what is typed is sent as it is."""
        client = self.session.client
        try:
            users = await client.users()
        except Exception:  # an older server or a refusal: the field still takes an email
            return
        worked: set[str] = set()
        with contextlib.suppress(Exception):  # without the stats, everyone is offered alike
            since = self.clock.now() - timedelta(days=WORKED_HERE_DAYS)
            stats = await client.stats(self.queue.id, since=since, bucket_minutes=24 * 60)
            worked = {worker.email for worker in stats.by_worker}
        self.worker_pick = WorkerPick(users, worked)
        field = self.query_one("#filter-worker", Input)
        field.suggester = self.worker_pick.suggester()
        field.placeholder = "worker (↓ picks)"
        self._show_picks()

    def _show_picks(self) -> None:
        """The people matching the worker field, under the filters, while the field has the focus."""
        picks = self.query_one("#filter-worker-picks", OptionList)
        field = self.query_one("#filter-worker", Input)
        if self.worker_pick is None or self.focused is not field:
            picks.display = False
            return
        pick = self.worker_pick
        found = pick.matching(field.value)
        picks.set_options(
            Option(
                Content.assemble(
                    (user.name, "bold"),
                    f"  {user.email}",
                    ("  worked here lately", "$text-muted") if pick.has_worked_here(user) else "",
                ),
                id=user.email,
            )
            for user in found
        )
        picks.highlighted = None  # what is typed is the filter until ↓ picks someone
        picks.display = bool(found)

    @on(Input.Changed, "#filter-worker")
    def _worker_typed(self) -> None:
        self._show_picks()

    def on_descendant_focus(self) -> None:
        self._show_picks()

    def action_pick(self, step: int) -> None:
        """up/down in the worker field: the highlight among the people offered."""
        picks = self.query_one("#filter-worker-picks", OptionList)
        if picks.highlighted is None:
            picks.highlighted = 0 if step > 0 else picks.option_count - 1
        elif step > 0:
            picks.action_cursor_down()
        else:
            picks.action_cursor_up()

    def _picked_worker(self) -> str | None:
        """The person highlighted in the list under the worker field, if it is shown."""
        picks = self.query_one("#filter-worker-picks", OptionList)
        if not picks.display or picks.highlighted is None:
            return None
        return picks.get_option_at_index(picks.highlighted).id

    @on(Input.Submitted, ".history-filter")
    def _apply_filters(self) -> None:
        highlighted = self._picked_worker() if self.focused is self.query_one("#filter-worker") else None
        if highlighted is not None:
            self.query_one("#filter-worker", Input).value = highlighted
        start = self.query_one("#filter-from", Input).value.strip()
        end = self.query_one("#filter-to", Input).value.strip()
        worker = self.query_one("#filter-worker", Input).value.strip()
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
        if worker and worker != "me" and self.worker_pick is not None:
            picked = self.worker_pick.read(worker)
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
        self.set_focus(self.history)  # at once, before hiding the row: a hidden focused field passes focus on
        self.query_one("#history-filters").display = False
        self._reload_history()

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

    def _reload_history(self) -> None:
        self.history.show_sort(HISTORY_SORTS[self.history_sort][0], ascending=self.oldest_first)
        self.filters.pop("bound", None)
        self.local_history = None  # r and a new filter read the server again
        self.history_count_at_load = None
        self.history.reset(self._history_page)

    @on(DataTable.RowSelected, "#history, #pending")
    def _open_task(self, event: DataTable.RowSelected) -> None:
        table = event.data_table
        assert isinstance(table, PagedTable)
        task = table.item_at_cursor()
        if task is not None and self.detail is not None:
            from queuedesk.tui.modals.task import TaskScreen

            self.app.push_screen(TaskScreen(self.detail, task))


def basic_filter_note(by_worker: bool) -> str:
    """What a filter does on a server without the extensions: it is the app's work, not the server's."""
    lacks = "no worker filter" if by_worker else "whole days only"
    return f"filtered by the app: basic API, {lacks}"


def _key(task: Task) -> str:
    return str(task.id)


__all__ = ["QueueScreen", "errors"]
