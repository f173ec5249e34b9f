"""One queue: its counts, the pending tasks with who holds them, the completed history, its blocks,
and for supervisors and admins its stats and webhook."""

from datetime import date
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import DataTable, TabbedContent, TabPane

from queuedesk.api import errors
from queuedesk.api.models import Queue, QueueDetail, Task
from queuedesk.tui.base import opens_a_screen, styles
from queuedesk.tui.modals.go_to import GoToScreen, Place
from queuedesk.tui.panes.blocks_view import BlocksView
from queuedesk.tui.panes.feedback_view import FeedbackView
from queuedesk.tui.panes.gold_view import GoldView
from queuedesk.tui.panes.history_view import HistoryView
from queuedesk.tui.panes.pending_view import PendingView
from queuedesk.tui.panes.role_tabs import feedback_pane, follow_role, watching_panes
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.review.review_access import has_review, offers_review
from queuedesk.tui.views.live import Poller
from queuedesk.tui.views.queue_keys import QueueKeys, keys_for_a_queue
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.instructions import Instructions
from queuedesk.tui.widgets.paged_table import PagedTable
from queuedesk.tui.widgets.queue_counts import QueueCounts

# The widget that takes the focus when a tab is shown (the Webhook tab's log, on a QueueDesk server).
FOCUS_IN_TAB = {
    "tab-pending": "#pending",
    "tab-completed": "#history",
    "tab-blocks": "#blocks",
    "tab-stats": "#stats-workers",
    "tab-webhook": "#deliveries",
    "tab-feedback": "#feedback-list",
    "tab-gold": "#gold-list",
}
# The tabs read again by each refresh only while shown.
LiveView = StatsView | WebhookView | FeedbackView | GoldView
LIVE_TABS: dict[str, type[LiveView]] = {
    "tab-stats": StatsView,
    "tab-webhook": WebhookView,
    "tab-feedback": FeedbackView,
    "tab-gold": GoldView,
}


class QueueScreen(QueueKeys):
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
        Binding("7", "tab('tab-gold')", "Gold", show=False, id="queue.tab_gold"),
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

    def compose(self) -> ComposeResult:
        yield ContextBar(self.queue.name, id="context")
        yield QueueCounts("", id="queue-counts")
        yield Instructions(
            getattr(self.queue, "description", ""), key="i", expanded=False, id="queue-instructions"
        )
        with TabbedContent(id="queue-tabs"):
            with TabPane("Pending", id="tab-pending"):
                yield PendingView(self.queue.id, id="pending-view")
            with TabPane("Completed", id="tab-completed"):
                yield HistoryView(self.queue.id, id="completed")
            with TabPane("Blocks", id="tab-blocks"):
                yield BlocksView(id="blocks")
            yield from watching_panes(self.session, self.queue)
            if self.session.extensions and has_review(self.queue):
                yield feedback_pane(self.queue.id, watching=self.session.can_watch)
        yield AppFooter()

    def on_mount(self) -> None:
        self.poller = Poller(
            self, self.qd, self.clock, self.qd.settings.refresh_seconds, self._fetch, self._show_status
        )
        self.poller.start()
        self.query_one(PendingView).start()

    @property
    def pending(self) -> PagedTable:
        return self.query_one("#pending", PagedTable)

    def _tab(self) -> str:
        """The id of the tab shown."""
        return self.query_one("#queue-tabs", TabbedContent).active

    @property
    def completed(self) -> HistoryView:
        return self.query_one(HistoryView)

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
            self.query_one(PendingView).blocks = self.completed.blocks = detail.data
            self.pending.redraw()
            self.history.redraw()
        self.query_one(PendingView).show_consensus(detail.consensus)
        if self.session.extensions:
            self.in_progress = await self.query_one(PendingView).refresh_live()
        self.completed_count = await self.completed.read_count()
        counts = self.query_one(QueueCounts)
        counts.show(self.queue, in_progress=self.in_progress, completed=self.completed_count)
        self.query_one(BlocksView).show(detail.data)
        self.query_one(Instructions).update(self.detail.description)
        view = self._shown_view()
        if view is not None:
            await view.fetch()

    def _shown_view(self) -> LiveView | None:
        """The Stats, Webhook or review tab when it is the one shown: only then is it refreshed."""
        kind = LIVE_TABS.get(self._tab())
        return None if kind is None else self.query_one(kind)

    # --- rendering --------------------------------------------------------------------------------

    def _show_status(self) -> None:
        self.set_class(self.poller.stale, "-stale")
        self.query_one(ContextBar).show(freshness=self.poller.status(), stale=self.poller.stale)

    @on(PagedTable.Loaded)
    def _loaded(self, event: PagedTable.Loaded) -> None:
        # A table cannot take the focus while it loads: the shown tab's takes it once loaded.
        if self.focused is None and event.table is self._table_of(self._tab()):
            self._focus_in_tab(event.table)

    @on(PagedTable.Failed)
    def _failed(self, event: PagedTable.Failed) -> None:
        self.qd.report(event.error, doing="Loading tasks")
        self.release_keys()  # no table to take them: the keys typed as the screen opened act on it

    # --- actions ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = self.queue_key_allowed(action)
        session = self.qd.session
        if allowed is not None or session is None:
            return True if allowed is None else allowed
        if action == "export":
            return self._tab() == "tab-completed"
        if action == "go_to":
            return session.extensions and self._tab() in ("tab-pending", "tab-completed")
        if action == "pick":
            return self.completed.picking(self.focused)
        if action in ("filter", "oldest_first", "sort_history"):
            return self._tab() == "tab-completed" and (action == "filter" or session.extensions)
        if action == "tab" and parameters and parameters[0] in ("tab-stats", "tab-webhook"):
            return session.can_watch
        if action == "toggle_instructions":
            return self.detail is not None and bool(self.detail.description.strip())
        if action == "tab" and parameters and parameters[0] in ("tab-feedback", "tab-gold"):
            return bool(self.query(f"#{parameters[0]}"))
        return True

    def action_toggle_instructions(self) -> None:
        self.query_one(Instructions).toggle()

    def _table_of(self, pane: str) -> Widget | None:
        """The widget that takes the focus when a tab is shown."""
        table = FOCUS_IN_TAB.get(pane) if pane != "tab-webhook" or self.session.extensions else "#webhook"
        return None if table is None else self.query_one(table)

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        table = self._table_of(event.pane.id or "")
        if table is not None:
            self._focus_in_tab(table)
        # The first time, the keys typed as the screen opened go on once the table has the focus
        # (`set_focus` hands them on); a table still loading takes it once loaded (`_loaded`).
        # Not to the screen's own keys before: a pane's key among them (`/` the pending search)
        # would be lost there, and the letters after it would act as the screen's keys.
        view = self._shown_view()
        if view is not None:
            view.refresh_now()  # at once, not at the next refresh

    async def follow_role(self) -> None:
        """The session's role changed: the Stats, Webhook and review tabs and a worker's own history
        follow it."""
        await follow_role(
            self.query_one("#queue-tabs", TabbedContent), self.queue.id, watching=self.session.can_watch
        )
        self.completed.follow_role()
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
        if self.completed.close_filters():
            return
        if self.focused is not None and self.focused.id == "pending-search":
            self.query_one(PendingView).close_search()
            return
        self.dismiss()

    def queue_at_hand(self) -> Queue:
        return self.detail or self.queue

    def _offers_review(self) -> bool:
        return offers_review(self.qd.session, [self.queue])

    @opens_a_screen("v")
    def action_no_review(self) -> None:
        self.qd.open_review(self.queue)  # says why there is no review here

    def after_flush(self) -> None:
        self.poller.poll_now()
        if self.session.extensions:
            self.query_one(PendingView).start()

    def action_refresh(self) -> None:
        self.poller.poll_now(asked=True)
        self.completed.reload()

    def action_go_to(self) -> None:
        on_history = self._tab() == "tab-completed"

        def chosen(place: Place | None) -> None:
            if place is not None:
                self.go_to(place, on_history=on_history)

        self.app.push_screen(GoToScreen("the history" if on_history else "the pending tasks"), chosen)

    @work(exclusive=True, group="go-to")
    async def go_to(self, place: Place, *, on_history: bool = True, show: bool = False) -> None:
        """A task by id (its row when the list shows it, else the task itself; `show`: the task
        itself) or, in the history, the first row of a day of the shown zone."""
        history = self.completed
        jump = history.jump()
        try:
            if isinstance(place, date):
                if on_history:
                    await history.go_to_day(place, jump)
                else:
                    self.notify("Pending tasks are listed oldest first, not by day: g takes a task id here.")
                return
            task = await self.session.client.task(self.queue.id, place)
        except errors.NotFound:
            self.notify(f"There is no task {place} in {self.queue.name}.", severity="warning")
            return
        except Exception as exc:
            self.qd.report(exc, doing=f"Going to {place}")
            return
        if not show and on_history and await history.go_to_completed(task, jump):
            return
        pending = self.query_one(PendingView)
        if not show and not on_history and task.status != "completed" and pending.point_at(task.id):
            return
        self._show_task(task)

    def open_task_by_id(self, task_id: int) -> None:
        """The palette's "Open task N" (on a server with the extensions, which reads one task)."""
        if self.session.extensions:
            self.go_to(task_id, show=True)
        else:
            self.notify("This server offers only the basic API: it cannot read one task by its id.")

    def action_export(self) -> None:
        self.completed.ask_where_to_export(self.queue.name)

    def action_oldest_first(self) -> None:
        self.completed.toggle_oldest_first()

    def action_sort_history(self) -> None:
        self.completed.next_sort()

    def action_filter(self) -> None:
        self.open_field_by_key("f")

    def focus_key(self, key: str) -> bool:
        if super().focus_key(key):
            return True
        if key != "f" or self.typing() or not self.check_action("filter", ()):
            return False
        self.completed.open_filters()
        return True

    def on_descendant_focus(self) -> None:
        self.completed.show_picks()

    def action_pick(self, step: int) -> None:
        self.completed.picks.move(step)

    @on(DataTable.RowSelected, "#history, #pending")
    def _open_task(self, event: DataTable.RowSelected) -> None:
        table = event.data_table
        assert isinstance(table, PagedTable)
        self._show_task(table.item_at_cursor())

    def _show_task(self, task: Task | None) -> None:
        if task is not None and self.detail is not None:
            from queuedesk.tui.modals.task import TaskScreen

            self.app.push_screen(TaskScreen(self.detail, task))


__all__ = ["QueueScreen", "errors"]
