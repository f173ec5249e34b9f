"""The webhook's delivery log: every delivery of the queue's completions, newest first (`o` and `l`
order it otherwise), its attempts on `enter`, a redelivery on `R` (admins)."""

from typing import Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from queuedesk.api import terminal_text
from queuedesk.api.client import DeliverySort
from queuedesk.api.models import Delivery
from queuedesk.tui.clock import zone_name
from queuedesk.tui.modals.delivery import DeliveryScreen, ask_where, status_text
from queuedesk.tui.panes.webhook.access import WebhookAccess
from queuedesk.tui.present import short_time
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.paged_table import Page, PagedTable, failure_line


def delivery_columns(zone: str) -> list[tuple[str, str, int]]:
    return [
        ("task", "Task", 7),
        ("status", "Status", 9),
        ("attempts", "Tries", 5),
        ("code", "Code", 4),
        ("next", "Next try", 11),
        ("created", f"Created {zone}", 13),  # with the order mark
        ("target", "Target", 0),  # with the last error, shares what the others leave
        ("error", "Last error", 0),
    ]


# l: each sort of B10 and the column its ▲/▼ marks; the log note's words, descending then ascending.
LOG_SORT_COLUMNS: dict[DeliverySort, str] = {
    "id": "created",
    "status": "status",
    "attempts": "attempts",
    "task_id": "task",
}
LOG_SORT_NOTES: dict[DeliverySort, tuple[str, str]] = {
    "id": ("newest first (o · l)", "oldest first (o · l)"),
    "status": ("by status, z to a (o · l)", "by status, a to z (o · l)"),
    "attempts": ("most tries first (o · l)", "fewest tries first (o · l)"),
    "task_id": ("by task, highest first (o · l)", "by task, lowest first (o · l)"),
}


class DeliveryLog(WebhookAccess, Vertical):
    def __init__(self, queue_id: int) -> None:
        super().__init__()
        self.queue_id = queue_id
        self.target: str | None = None  # the webhook's target now: a delivery may have gone elsewhere
        self.loaded = False
        self.oldest_first = False  # o: the log read from its other end
        self.log_sort: DeliverySort = "id"  # l: the column the log is sorted by

    def compose(self) -> ComposeResult:
        yield Static("", id="webhook-log-note")
        yield PagedTable(delivery_columns(zone_name(self.clock)), self._delivery_cells, _key, id="deliveries")
        yield Static("", id="delivery-detail", classes="row-detail", markup=False)

    def on_mount(self) -> None:
        for part in ("#webhook-log-note", "#deliveries", "#delivery-detail"):
            self.query_one(part).display = self.extensions

    @property
    def deliveries(self) -> PagedTable:
        return self.query_one("#deliveries", PagedTable)

    def refresh_log(self) -> None:
        """The log's first page, then (on each refresh) the rows in view again."""
        if not self.loaded:
            self.loaded = True
            self.read_log()
        elif self.deliveries.items or self.deliveries.total == 0:
            self.deliveries.refresh_window()

    async def _delivery_page(self, offset: int, limit: int) -> Page:
        order: Literal["asc"] | None = "asc" if self.oldest_first else None
        sort: DeliverySort | None = None if self.log_sort == "id" else self.log_sort
        page = await self.session.client.deliveries(
            self.queue_id, offset=offset, limit=limit, order=order, sort=sort
        )
        return Page(page.count, page.deliveries)

    def _delivery_cells(self, delivery: Delivery) -> list[str | Text]:
        code = "—" if delivery.last_status_code is None else str(delivery.last_status_code)
        next_try = short_time(delivery.next_attempt_at, self.clock) if delivery.status == "pending" else "—"
        return [
            str(delivery.task_id),
            status_text(delivery.status),
            Text(str(delivery.attempts), justify="right"),
            code,
            next_try,
            short_time(delivery.created_at, self.clock),
            delivery.target,
            delivery.last_error or "—",
        ]

    def _show_log_note(self) -> None:
        table = self.deliveries
        if table.failure is not None:
            self.query_one("#webhook-log-note", Static).update(
                Text(f"Deliveries {failure_line(table.failure)}")
            )
            return
        text = Text(f"Deliveries: {table.total:,}, {LOG_SORT_NOTES[self.log_sort][self.oldest_first]}")
        if table.items:
            text.append(" · enter shows the attempts")
            if self.can_change:
                text.append(" · R redelivers")
        self.query_one("#webhook-log-note", Static).update(text)

    @on(PagedTable.Loaded)
    def _loaded(self, event: PagedTable.Loaded) -> None:
        event.stop()
        self._show_log_note()

    @on(PagedTable.CursorMoved)
    def _cursor_moved(self, event: PagedTable.CursorMoved) -> None:
        """The target and last error in full: the columns cut them at 80 columns."""
        event.stop()
        self.query_one("#delivery-detail", Static).update(delivery_detail(event.item, self.target))

    @on(PagedTable.Failed)
    def _log_failed(self, event: PagedTable.Failed) -> None:
        event.stop()
        self._show_log_note()
        self.qd.report(event.error, doing="Reading the delivery log")

    def redeliver(self) -> None:
        """R: the delivery under the cursor again, to where it went or to the current target."""
        delivery = self.deliveries.item_at_cursor()
        if delivery is None:
            return
        ask_where(self, delivery, self.target, lambda current: self._redeliver(delivery, current))

    @work(exclusive=True, group="webhook-redeliver")
    async def _redeliver(self, delivery: Delivery, to_current: bool) -> None:
        try:
            again = await self.session.client.redeliver(
                self.queue_id, delivery.id, to_current_target=to_current
            )
        except Exception as exc:
            self.qd.report(exc, doing=f"Redelivering task {delivery.task_id}'s event")
            return
        self.notify(
            f"The delivery of task {again.task_id} is pending again and goes out now, to {again.target}.",
            title="Redelivering",
        )
        self.deliveries.refresh_window()

    @on(DataTable.RowSelected, "#deliveries")
    def _open_delivery(self, event: DataTable.RowSelected) -> None:
        event.stop()
        delivery = self.deliveries.item_at_cursor()
        if delivery is None:
            return

        def closed(redelivered: bool | None) -> None:
            if redelivered:
                self.deliveries.refresh_window()

        self.app.push_screen(DeliveryScreen(self.queue_id, delivery, self.target), closed)

    def flip_order(self) -> None:
        """o: the log read from its other end."""
        self.oldest_first = not self.oldest_first
        self.read_log()

    def next_sort(self) -> None:
        """l: by creation, by status, by tries, by task, and round again."""
        self.log_sort = next_sort(list(LOG_SORT_COLUMNS), self.log_sort)
        self.oldest_first = self.log_sort == "status"  # failed, pending, sent: a to z
        self.read_log()

    def read_log(self) -> None:
        self.deliveries.show_sort(LOG_SORT_COLUMNS[self.log_sort], ascending=self.oldest_first)
        self.deliveries.reset(self._delivery_page)


def _key(delivery: Delivery) -> str:
    return str(delivery.id)


def delivery_detail(delivery: Delivery | None, current: str | None) -> Text:
    """The delivery under the cursor: where it goes (and whether that is the current target), and
    its last error, each whole."""
    if delivery is None:
        return Text("")
    text = Text(f"Task {delivery.task_id} → ")
    text.append(terminal_text.shown(delivery.target) or "(no target)", style="bold")
    if current and delivery.target != current:
        text.append("  (not the current target: R can send it there)")
    if delivery.last_error:
        text.append(f"\nlast error: {terminal_text.shown(delivery.last_error)}")
    return text
