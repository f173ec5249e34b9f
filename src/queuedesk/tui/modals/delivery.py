"""One webhook delivery: where it went, where it stands, and every attempt with its answer."""

from collections.abc import Callable
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.api.models import Delivery, DeliveryAttempt
from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.present import short_time
from queuedesk.tui.widgets.app_footer import AppFooter

STATUS_STYLE = {"delivered": "green", "failed": "bold red", "pending": "yellow"}


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))


class DeliveryScreen(AppModal[bool]):
    """Dismisses with True when a redelivery was asked for here (the log should refresh)."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="delivery.back"),
        Binding("R", "redeliver", "Redeliver", id="delivery.redeliver"),
    ]

    def __init__(self, queue_id: int, delivery: Delivery, current_target: str | None = None) -> None:
        super().__init__()
        self.queue_id = queue_id
        self.delivery = delivery
        self.current_target = current_target  # the queue's target now, if known
        self.attempts: list[DeliveryAttempt] | None = None  # None until read
        self.redelivered = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="delivery-box"):
            yield Static(self._heading(), id="delivery-heading")
            yield Static("Reading the attempts…", id="delivery-attempts")
        yield AppFooter()

    def on_mount(self) -> None:
        self._load()

    def _heading(self) -> Text:
        d = self.delivery
        text = Text()
        text.append(f"Delivery {d.id}", style="bold")
        text.append(f" of task {d.task_id} · ")
        text.append_text(status_text(d.status))
        text.append(f" after {d.attempts} attempt{'s' if d.attempts != 1 else ''}")
        text.append(f"\nto {d.target}\nevent {d.event_id} · created {short_time(d.created_at, self.clock)}")
        if d.delivered_at is not None:
            text.append(f" · delivered {short_time(d.delivered_at, self.clock)}")
        if d.next_attempt_at is not None and d.status == "pending":
            text.append(f" · next attempt {short_time(d.next_attempt_at, self.clock)}")
        return text

    def _table(self) -> Table | Text:
        if self.attempts is None:
            return Text("Reading the attempts…")
        if not self.attempts:
            return Text("Not attempted yet.", style="dim")
        table = Table(box=None, expand=True, header_style="bold", padding=(0, 1))
        table.add_column("Attempted", no_wrap=True)
        table.add_column("Code", no_wrap=True)
        table.add_column("Took", justify="right", no_wrap=True)
        table.add_column("Error", ratio=1)
        for attempt in self.attempts:
            code = attempt.status_code
            ok = code is not None and 200 <= code < 300
            table.add_row(
                short_time(attempt.attempted_at, self.clock),
                Text("—" if code is None else str(code), style="green" if ok else "red"),
                f"{attempt.duration_ms:,} ms",
                Text(shown(attempt.error or "—")),  # the receiver's words: never read as markup
            )
        return table

    @work(exclusive=True, group="delivery")
    async def _load(self) -> None:
        try:
            detail = await self.session.client.delivery(self.queue_id, self.delivery.id)
        except Exception as exc:
            self.query_one("#delivery-attempts", Static).update("The attempts could not be read.")
            self.qd.report(exc, doing=f"Reading delivery {self.delivery.id}")
            return
        self.delivery, self.attempts = detail, detail.attempt_log
        self.query_one("#delivery-heading", Static).update(self._heading())
        self.query_one("#delivery-attempts", Static).update(self._table())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "redeliver":
            return self.qd.session is not None and self.qd.session.is_admin
        return True

    def action_redeliver(self) -> None:
        ask_where(self, self.delivery, self.current_target, self._redeliver)

    @work(exclusive=True, group="redeliver")
    async def _redeliver(self, to_current: bool) -> None:
        try:
            again = await self.session.client.redeliver(
                self.queue_id, self.delivery.id, to_current_target=to_current
            )
        except Exception as exc:
            self.qd.report(exc, doing=f"Redelivering {self.delivery.id}")
            return
        self.redelivered = True
        self.delivery = again
        self.notify(
            f"Delivery {again.id} is pending again and goes out now, to {again.target}.", title="Redelivering"
        )
        self._load()

    def action_close(self) -> None:
        self.dismiss(self.redelivered)


def ask_where(
    asker: Widget | Screen[Any], delivery: Delivery, current_target: str | None, go: Callable[[bool], object]
) -> None:
    """`go(to_current)` at once when there is one target to send to, else after the dialog's choice."""
    from queuedesk.tui.modals.redeliver import CURRENT, RedeliverScreen, needs_choice

    if current_target is None or not needs_choice(delivery, current_target):
        go(False)
        return

    def chosen(choice: str | None) -> None:
        if choice is not None:
            go(choice == CURRENT)

    asker.app.push_screen(RedeliverScreen(delivery, current_target), chosen)
