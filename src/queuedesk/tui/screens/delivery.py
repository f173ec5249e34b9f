"""One webhook delivery: where it went, where it stands, and every attempt with its answer."""

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Static

from queuedesk.api.models import Delivery, DeliveryDetail
from queuedesk.tui.present import when
from queuedesk.tui.screens.base import AppModal

STATUS_STYLE = {"delivered": "green", "failed": "bold red", "pending": "yellow"}


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))


class DeliveryScreen(AppModal[bool]):
    """Dismisses with True when a redelivery was asked for here (the log should refresh)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="delivery.back"),
        Binding("R", "redeliver", "Redeliver", id="delivery.redeliver"),
    ]

    def __init__(self, queue_id: int, delivery: Delivery) -> None:
        super().__init__()
        self.queue_id = queue_id
        self.delivery = delivery
        self.redelivered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="delivery-box"):
            yield Static(self._heading(), id="delivery-heading")
            yield DataTable(id="delivery-attempts", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label in (("at", "Attempted"), ("code", "Code"), ("ms", "Took"), ("error", "Error")):
            table.add_column(label, key=key)
        table.loading = True
        table.focus()
        self._load()

    def _heading(self) -> Text:
        d = self.delivery
        text = Text()
        text.append(f"Delivery {d.id}", style="bold")
        text.append(f" of task {d.task_id} · ")
        text.append_text(status_text(d.status))
        text.append(f" after {d.attempts} attempt{'s' if d.attempts != 1 else ''}")
        text.append(f"\nto {d.target}\nevent {d.event_id} · created {when(d.created_at)}")
        if d.delivered_at is not None:
            text.append(f" · delivered {when(d.delivered_at)}")
        if d.next_attempt_at is not None and d.status == "pending":
            text.append(f" · next attempt {when(d.next_attempt_at)}")
        return text

    @work(exclusive=True, group="delivery")
    async def _load(self) -> None:
        table = self.query_one(DataTable)
        try:
            detail = await self.session.client.delivery(self.queue_id, self.delivery.id)
        except Exception as exc:
            self.qd.report(exc, doing=f"Reading delivery {self.delivery.id}")
            table.loading = False
            return
        self._show(detail)

    def _show(self, detail: DeliveryDetail) -> None:
        self.delivery = detail
        self.query_one("#delivery-heading", Static).update(self._heading())
        table = self.query_one(DataTable)
        table.loading = False
        table.clear()
        for attempt in detail.attempt_log:
            code = "—" if attempt.status_code is None else str(attempt.status_code)
            style = "green" if attempt.status_code is not None and 200 <= attempt.status_code < 300 else "red"
            table.add_row(
                when(attempt.attempted_at),
                Text(code, style=style),
                Text(f"{attempt.duration_ms:,} ms", justify="right"),
                attempt.error or "—",
            )
        if not detail.attempt_log:
            table.add_row("not attempted yet", "", "", "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "redeliver":
            return self.qd.session is not None and self.qd.session.is_admin
        return True

    @work(exclusive=True, group="redeliver")
    async def action_redeliver(self) -> None:
        try:
            again = await self.session.client.redeliver(self.queue_id, self.delivery.id)
        except Exception as exc:
            self.qd.report(exc, doing=f"Redelivering {self.delivery.id}")
            return
        self.redelivered = True
        self.delivery = again
        self.notify(f"Delivery {again.id} is pending again and goes out now.", title="Redelivering")
        self._load()

    def action_close(self) -> None:
        self.dismiss(self.redelivered)
