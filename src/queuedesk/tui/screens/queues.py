"""Queues (home): every queue with its pending count and who is working, refreshed live."""

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static

from queuedesk.api.models import Queue
from queuedesk.tui.base import opens_a_screen
from queuedesk.tui.review.review_access import NO_REVIEW, offers_review, review_refusal
from queuedesk.tui.views.live import Poller
from queuedesk.tui.views.queue_keys import QueueKeys, keys_for_a_queue
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.queue_table import COLUMNS, SORTS, QueueTable, View, cell_values
from queuedesk.tui.widgets.steady_footer import SteadyFooter


class QueuesScreen(QueueKeys):
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the queue opens as the key is read, so the keys typed after it reach its screen.
        Binding("enter", "open", "Open", show=False, id="queues.open", priority=True),
        *keys_for_a_queue("queues"),
        Binding("N", "new_queue", "New queue", show=False, id="queues.new_queue", priority=True),
        Binding("E", "edit_queue", "Edit queue", show=False, id="queues.edit_queue", priority=True),
        # Priority: `/` moves the focus as it is read, so the letters typed after it are the filter
        # (and never this screen's keys: F flushes); the filter's `enter` holds the keys after it
        # until the list shows what it filtered (tui/base.py, hold_keys_until).
        Binding("slash", "filter", "Filter", id="queues.filter", priority=True),
        Binding("enter", "filter_done", show=False, priority=True),
        Binding("s", "sort", "Sort", id="queues.sort"),
        Binding("r", "refresh", "Refresh", id="queues.refresh"),
        Binding("p", "pause", "Pause", show=False, id="queues.pause"),  # the header says "p resumes"
        Binding("u", "people", "People", show=False, id="queues.people", priority=True),
        Binding("R", "refused", "Refused work", id="queues.refused", priority=True),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="queues.clear_filter"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.queues: list[Queue] = []
        self.view = View()
        self.loaded = False
        self._footer_asked_for = False

    def compose(self) -> ComposeResult:
        yield ContextBar("Queues", id="context")
        yield QueueTable(self.clock, id="queues")
        yield Static("", id="queues-empty", markup=False)  # holds the filter as typed
        yield Input(placeholder="filter by name — enter keeps it, escape clears it", id="queues-filter")
        yield Static("", id="queues-status", markup=False)
        # The footer comes once the first answer is on screen (_show_status): building its keys and
        # their styles took ≈30 ms of the app's start, before the list could be painted.

    def on_mount(self) -> None:
        self.query_one("#queues-filter").display = False
        self.query_one("#queues-empty").display = False
        self.table.loading = True
        self.poller = Poller(
            self, self.qd, self.clock, self.qd.settings.refresh_seconds, self._fetch, self._show_status
        )
        self.poller.start()
        self.table.focus()
        # "Refused work" comes and goes.
        self.qd.outbox_changed.subscribe(self, lambda _: self.refresh_bindings(), immediate=True)

    @property
    def table(self) -> QueueTable:
        return self.query_one(QueueTable)

    async def _fetch(self) -> None:
        queues = await self.session.client.queues()
        self.qd.known_queues = queues
        self._show(queues)

    def _show(self, queues: list[Queue]) -> None:
        before = {str(q.id): cell_values(q, self.clock) for q in self.queues}
        changed: set[tuple[str, str]] = set()
        if self.loaded:
            for queue in queues:
                key = str(queue.id)
                old = before.get(key)
                for column, value in cell_values(queue, self.clock).items():
                    if old is None or old[column] != value:
                        changed.add((key, column))
        self.queues = queues
        self.loaded = True
        self.table.loading = False
        self._redraw(changed)

    def _redraw(self, changed: set[tuple[str, str]] | None = None) -> None:
        rows = self.view.rows(self.queues)
        self.table.show_queues(rows, changed=changed if changed is not None else set())
        empty = self.query_one("#queues-empty", Static)
        empty.display = not rows
        if not self.queues:
            empty.update(
                "No queues in this organization yet. An admin creates them (N here, or queuedesk queue create FILE)."
            )
        elif not rows:
            empty.update(f"No queue name contains “{self.view.filter}”. Escape clears the filter.")
        self._show_status()

    def _show_status(self) -> None:
        if not self.is_attached:
            return
        if not self._footer_asked_for and (self.loaded or self.poller.failures):
            self._footer_asked_for = True
            self.call_after_refresh(self._mount_footer)
        self.query_one(ContextBar).show(freshness=self.poller.status(), stale=self.poller.stale)
        self.set_class(self.poller.stale, "-stale")
        count = len(self.view.rows(self.queues))
        parts = [count_line(count, len(self.queues), filtered=bool(self.view.filter))]
        if self.view.describe():
            parts.append(self.view.describe())
        self.query_one("#queues-status", Static).update(" · ".join(parts))

    async def _mount_footer(self) -> None:
        await self.mount(SteadyFooter())
        self.refresh_bindings()  # a footer mounted after the screen's keys were told shows none until then

    def selected(self) -> Queue | None:
        key = self.table.current_key
        return next((q for q in self.queues if str(q.id) == key), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("filter", "filter_done"):  # in the filter `/` is text, and `enter` keeps it
            in_filter = isinstance(self.focused, Input) and self.focused.id == "queues-filter"
            return in_filter == (action == "filter_done")
        if action == "open":  # not `self.table`: asked also while the screen is being taken down
            return isinstance(self.focused, QueueTable)
        allowed = self.queue_key_allowed(action)
        session = self.qd.session
        if allowed is not None or session is None:
            return True if allowed is None else allowed
        if action == "people":
            return session.extensions and session.can_watch  # supervisors: read only
        if action == "refused":  # in the footer only while there is some
            outbox = self.qd.outbox
            return outbox is not None and bool(outbox.journal.in_state("failed"))
        return True

    # --- actions -------------------------------------------------------------------------------

    def action_open(self) -> None:
        queue = self.selected()
        if queue is not None:
            self.qd.open_queue(queue)

    def queue_at_hand(self) -> Queue | None:
        return self.selected()

    def after_flush(self) -> None:
        self.poller.poll_now()

    def _offers_review(self) -> bool:
        return offers_review(self.qd.session, self.queues)

    @opens_a_screen("v")
    def action_no_review(self) -> None:
        queue = self.selected()
        self.qd.notify(
            review_refusal(self.qd.session, queue) or NO_REVIEW, title="No review here", severity="warning"
        )

    @opens_a_screen("N")
    def action_new_queue(self) -> None:
        self.qd.open_queue_editor(None)

    def action_refresh(self) -> None:
        self.poller.poll_now(asked=True)

    @opens_a_screen("u")
    def action_people(self) -> None:
        self.qd.open_people()

    @opens_a_screen("R")
    def action_refused(self) -> None:
        self.qd.open_refused()

    def action_sort(self) -> None:
        index = SORTS.index(self.view.sort)
        self.view.sort = SORTS[(index + 1) % len(SORTS)]
        self.view.reverse = False
        self._redraw()

    def _filter_field(self) -> Input:
        return self.query_one("#queues-filter", Input)

    def action_filter(self) -> None:
        if not self.held_back("slash"):
            self.focus_key("slash")

    def focus_key(self, key: str) -> bool:
        field = self._filter_field()
        if key != "slash" or self.focused is field:
            return False
        field.display = True
        self.set_focus(field)
        return True

    def action_filter_done(self) -> None:
        """`enter` in the filter: kept as typed (every letter before the enter), the list filtered,
        and the keys after it acting on that list."""
        self.hold_keys_until(self._filter_done)

    def action_clear_filter(self) -> None:
        field = self.query_one("#queues-filter", Input)
        if field.display or self.view.filter:
            field.value = ""
            field.display = False
            self.view.filter = ""
            self._redraw()
            self.table.focus()

    @on(Input.Changed, "#queues-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.view.filter = event.value.strip()
        self._redraw()

    def _filter_done(self) -> None:
        field = self._filter_field()
        if self.view.filter != field.value.strip():  # its `Changed` may still be on its way
            self.view.filter = field.value.strip()
            self._redraw()
        field.display = bool(self.view.filter)
        self.set_focus(self.table)

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        column = event.column_key.value
        if column not in dict(COLUMNS):
            return
        if self.view.sort == column:
            self.view.reverse = not self.view.reverse
        else:
            self.view.sort, self.view.reverse = column, False
        self._redraw()

    @on(DataTable.RowSelected)
    def _row_chosen(self) -> None:
        self.action_open()


def count_line(shown: int, total: int, *, filtered: bool) -> str:
    """`3 queues`, `1 queue`, or with a filter `1 of 3 queues`."""
    queues = f"{total:,} queue" + ("" if total == 1 else "s")
    return f"{shown:,} of {queues}" if filtered else queues
