"""One queue: its counts, the pending tasks with who holds them, the completed history, its blocks,
and for supervisors and admins its stats and webhook."""

from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from queuedesk.api import errors
from queuedesk.api.models import AssignedTask, Block, Queue, QueueDetail, Task
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.clock import duration
from queuedesk.tui.live import Poller
from queuedesk.tui.local_history import LocalHistory
from queuedesk.tui.panes.feedback_view import FeedbackView
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.present import answers_first, minute, settings_text, summary, tasks
from queuedesk.tui.review_access import has_review, offers_review
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.paged_table import Page, PagedTable
from queuedesk.tui.widgets.row_table import RowTable

PENDING_COLUMNS = [
    ("id", "Task", 7),
    ("status", "Status", 11),
    ("created", "Created", 16),
    ("holder", "Held by", 12),
    ("held", "For", 14),
    ("values", "Values", 0),
]
VALUES_AT_MOST = 400  # characters of a row's values kept for the table to cut
COMPLETED_COLUMNS = [
    ("id", "Task", 7),
    ("completed", "Completed", 16),
    ("by", "By", 20),
    ("values", "Values", 0),
]


class QueueScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("queue.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="queue.back"),
        Binding("1", "tab('tab-pending')", "Pending", show=False, id="queue.tab_pending"),
        Binding("2", "tab('tab-completed')", "Completed", show=False, id="queue.tab_completed"),
        Binding("3", "tab('tab-blocks')", "Blocks", show=False, id="queue.tab_blocks"),
        Binding("4", "tab('tab-stats')", "Stats", show=False, id="queue.tab_stats"),
        Binding("5", "tab('tab-webhook')", "Webhook", show=False, id="queue.tab_webhook"),
        Binding("6", "tab('tab-feedback')", "Feedback", show=False, id="queue.tab_feedback"),
        Binding("w", "work", "Work", id="queue.work"),
        Binding("w", "no_claiming", show=False),  # a basic server: says why, never in the footer
        Binding("v", "review", "Review", id="queue.review"),
        Binding("v", "no_review", show=False),  # no review here: says why, never in the footer
        Binding("n", "create", "New task", id="queue.create"),
        Binding("F", "flush", "Flush", id="queue.flush"),
        Binding("E", "edit_queue", "Edit queue", show=False, id="queue.edit_queue"),
        Binding("f", "filter", "Filter history", id="queue.filter"),
        Binding("o", "oldest_first", "Oldest first", show=False, id="queue.oldest_first"),
        Binding("r", "refresh", "Refresh", id="queue.refresh"),
        Binding("p", "pause", "Pause", id="queue.pause"),
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
        self.oldest_first = False  # the history read from its other end (o)
        self._oldest_total = 0  # the history's count when the oldest-first order was read

    def compose(self) -> ComposeResult:
        yield ContextBar(self.queue.name, id="context")
        yield Static("", id="queue-counts")
        with TabbedContent(id="queue-tabs"):
            with TabPane("Pending", id="tab-pending"):
                yield Static("", id="pending-note")
                yield PagedTable(PENDING_COLUMNS, self._pending_cells, _key, id="pending")
            with TabPane("Completed", id="tab-completed"):
                with Horizontal(id="history-filters"):
                    yield Input(placeholder="worker email", id="filter-worker", classes="history-filter")
                    yield Input(placeholder="from YYYY-MM-DD", id="filter-from", classes="history-filter")
                    yield Input(placeholder="to YYYY-MM-DD", id="filter-to", classes="history-filter")
                yield Static("", id="history-note", markup=False)
                yield PagedTable(COMPLETED_COLUMNS, self._completed_cells, _key, id="history")
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
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#history-filters").display = False
        blocks = self.query_one("#blocks", DataTable)
        for key, label in (("name", "Block"), ("id", "Id"), ("type", "Type"), ("settings", "Settings")):
            blocks.add_column(label, key=key)
        if self.session.me is not None and self.session.me.role == "worker":
            self.filters["completed_by"] = "me"
        self.poller = Poller(
            self, self.clock, self.qd.settings.refresh_seconds, self._fetch, self._show_status
        )
        self.poller.start()
        if self.session.extensions:
            self.query_one("#pending-note").display = False
            self.pending.reset(self._pending_page)
        else:
            self.pending.display = False
            self.query_one("#pending-note", Static).update(
                "This server offers only the basic Task Queue API: it cannot list tasks that are not completed. "
                "The count above is what it tells."
            )
        self.history.reset(self._history_page)
        self._show_history_note()
        # Unless another tab was chosen meanwhile: this runs late (after the first pages), and
        # focusing the pending table would bring its tab back.
        tabs = self.query_one("#queue-tabs", TabbedContent)
        self.call_after_refresh(lambda: tabs.active == "tab-pending" and self.pending.focus())

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
        self.detail = await client.queue(self.queue.id)
        self.queue = self.detail
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

    async def _pending_page(self, offset: int, limit: int) -> Page:
        page = await self.session.client.pending_tasks(self.queue.id, offset=offset, limit=limit)
        return Page(page.count, page.tasks)

    async def _history_page(self, offset: int, limit: int) -> Page:
        filters = self._history_filters()
        if filters and not self.session.extensions:
            if self.local_history is None or self.local_history.filters != filters:
                self.local_history = LocalHistory(self.session.client, self.queue.id, filters)
            return await self.local_history.page(offset, limit)
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
        return filters

    # --- rendering --------------------------------------------------------------------------------

    def _pending_cells(self, task: AssignedTask) -> list[str | Text]:
        assignment = task.assignment
        holder = assignment.assigned_to_name or assignment.assigned_to or ""
        held = ""
        if assignment.assigned_at is not None:
            held = duration((self.clock.now() - assignment.assigned_at).total_seconds())
            if assignment.lease_expires_at is not None and assignment.lease_expires_at < self.clock.now():
                held += " (lease expired)"
        status = Text(task.status, style="bold" if task.status == "in_progress" else "")
        return [
            str(task.id),
            status,
            minute(task.created_at),
            holder or "—",
            held or "—",
            self._summary(task),
        ]

    def _completed_cells(self, task: Task) -> list[str | Text]:
        answers = self._summary(task, answers_first)
        return [str(task.id), minute(task.completed_at), task.completed_by or "—", answers]

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
            )
        total = self.history.total if self.history.fetch else 0
        if parts and not self.session.extensions:
            parts.append(basic_filter_note(bool(self.filters.get("completed_by"))))
        if self.history_forbidden:
            self.query_one("#history-note", Static).update(
                "Not allowed: this key may not read completed tasks here (403), so none are shown. Ask an admin."
            )
            return
        order = ", oldest first (o: newest first)" if self.oldest_first else ", newest first"
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
        text += " · f filters · enter opens a task"
        self.query_one("#history-note", Static).update(text)

    def _show_status(self) -> None:
        if self.is_attached:
            self.query_one(ContextBar).show(freshness=self.poller.status(), stale=self.poller.stale)

    @on(PagedTable.Loaded)
    def _loaded(self, event: PagedTable.Loaded) -> None:
        if event.table.id == "history":
            self._show_history_note()

    @on(PagedTable.Failed)
    def _failed(self, event: PagedTable.Failed) -> None:
        if event.table.id == "history" and isinstance(event.error, errors.Forbidden):
            self.history_forbidden = True
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
        if action in ("review", "no_review"):
            return self._offers_review() == (action == "review")
        if action in ("filter", "oldest_first"):
            on_history = self.query_one("#queue-tabs", TabbedContent).active == "tab-completed"
            return on_history and (action == "filter" or session.extensions)
        if action == "tab" and parameters and parameters[0] in ("tab-stats", "tab-webhook"):
            return session.can_watch
        if action == "tab" and parameters and parameters[0] == "tab-feedback":
            return bool(self.query("#tab-feedback"))
        return True

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        table = {
            "tab-pending": "#pending",
            "tab-completed": "#history",
            "tab-blocks": "#blocks",
            "tab-stats": "#stats-workers",
            "tab-webhook": "#deliveries" if self.session.extensions else "#webhook",
            "tab-feedback": "#feedback-list",
        }.get(event.pane.id or "")
        if table is not None:
            self.query_one(table).focus()
        view = self._shown_view()
        if view is not None:
            view.refresh_now()  # at once, not at the next refresh

    async def follow_role(self) -> None:
        """The session's role changed: the Stats and Webhook tabs and a worker's own history follow it."""
        tabs = self.query_one("#queue-tabs", TabbedContent)
        watching = self.session.can_watch
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

    def action_back(self) -> None:
        if (
            self.query_one("#history-filters").display
            and self.focused is not None
            and isinstance(self.focused, Input)
        ):
            self.query_one("#history-filters").display = False
            self.history.focus()
            return
        self.dismiss()

    def action_work(self) -> None:
        self.qd.open_work(self.queue)

    def action_no_claiming(self) -> None:
        self.qd.open_work(self.queue)  # on a basic server: says there is no claiming there

    def _offers_review(self) -> bool:
        return offers_review(self.qd.session, [self.queue])

    def action_review(self) -> None:
        self.qd.open_review(self.queue)

    def action_no_review(self) -> None:
        self.qd.open_review(self.queue)  # says why there is no review here

    def action_create(self) -> None:
        self.qd.open_create_task(self.queue)

    def action_edit_queue(self) -> None:
        self.qd.open_queue_editor(self.detail or self.queue)

    def action_flush(self) -> None:
        self.qd.open_flush(self.queue, on_done=self._after_flush)

    def _after_flush(self) -> None:
        self.poller.poll_now()
        if self.session.extensions:
            self.pending.reset(self._pending_page)

    def action_refresh(self) -> None:
        self.poller.poll_now(asked=True)
        self._reload_history()

    def action_pause(self) -> None:
        paused = self.poller.toggle_pause()
        self.notify("Live refresh paused: p resumes." if paused else "Live refresh on.", timeout=3)

    def action_oldest_first(self) -> None:
        self.oldest_first = not self.oldest_first
        self._reload_history()
        self._show_history_note()

    def action_filter(self) -> None:
        row = self.query_one("#history-filters")
        row.display = True
        worker = self.query_one("#filter-worker", Input)
        if self.filters.get("completed_by") == "me" and not self.session.can_watch:
            worker.value = "me"
            worker.disabled = True
            self.query_one("#filter-from", Input).focus()
        else:
            worker.focus()

    @on(Input.Submitted, ".history-filter")
    def _apply_filters(self) -> None:
        start = self.query_one("#filter-from", Input).value.strip()
        end = self.query_one("#filter-to", Input).value.strip()
        worker = self.query_one("#filter-worker", Input).value.strip()
        start_day, start_ok = _day(start)
        end_day, end_ok = _day(end)
        if not start_ok:
            self._refuse("#filter-from", "not a date: YYYY-MM-DD")
            return
        if not end_ok:
            self._refuse("#filter-to", "not a date: YYYY-MM-DD")
            return
        if start_day and end_day and start_day > end_day:
            self._refuse("#filter-to", "before the 'from' date")
            return
        if worker and worker != "me" and "@" not in worker:
            self._refuse("#filter-worker", "a worker's email (or me)")
            return
        if worker or not self.session.can_watch:
            self.filters["completed_by"] = worker or "me"
        else:
            self.filters.pop("completed_by", None)
        self.filters["start_date"] = (
            datetime.combine(start_day, time.min).replace(tzinfo=self.clock.now().tzinfo)
            if start_day
            else None
        )
        self.filters["end_date"] = (
            datetime.combine(end_day + timedelta(days=1), time.min).replace(tzinfo=self.clock.now().tzinfo)
            - timedelta(microseconds=1)
            if end_day
            else None
        )
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


def filter_day(moment: datetime) -> str:
    """A filter's bound as typed: the day (the filter takes whole days), never a Python repr."""
    return moment.date().isoformat()


def basic_filter_note(by_worker: bool) -> str:
    """What a filter does on a server without the extensions: it is the app's work, not the server's."""
    lacks = "no worker filter" if by_worker else "whole days only"
    return f"filtered by the app: basic API, {lacks}"


def _day(text: str) -> tuple[date | None, bool]:
    """The day typed (None when nothing is), and whether what was typed is a day at all."""
    if not text:
        return None, True
    try:
        return date.fromisoformat(text), True
    except ValueError:
        return None, False


def _key(task: Task) -> str:
    return str(task.id)


__all__ = ["QueueScreen", "errors"]
