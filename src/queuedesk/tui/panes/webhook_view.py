"""The Webhook tab: the target (set and removed by admins), the signing secret, a test ping, and the
delivery log with each delivery's attempts.

Supervisors read the target and the log; on a server with only the basic Task Queue API there is
just the target. The queue screen's live refresh calls `fetch` while the tab is shown.

The tab composes its parts (`panes/webhook/`): `WebhookTarget`, `WebhookSecret` (with the test ping)
and `DeliveryLog`. It holds the keys, so that they work wherever the focus is in the tab, and hands
each to its part; the parts tell it what changed by messages (`WebhookTarget.Changed`, `Saved`,
`Left`), and it passes on what another part shows.
"""

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from queuedesk.tui.panes.webhook.access import WebhookAccess
from queuedesk.tui.panes.webhook.delivery_log import DeliveryLog
from queuedesk.tui.panes.webhook.secret import WebhookSecret
from queuedesk.tui.panes.webhook.target import WebhookTarget
from queuedesk.tui.widgets.paged_table import PagedTable


class WebhookView(WebhookAccess, Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="webhook.edit"),
        Binding("D", "remove", "Remove", id="webhook.remove"),
        Binding("s", "secret", "Secret", id="webhook.secret"),
        Binding("S", "rotate", "Rotate", id="webhook.rotate"),
        Binding("t", "test", "Test", id="webhook.test"),
        Binding("R", "redeliver", "Redeliver", id="webhook.redeliver"),
        Binding("o", "order", "Oldest first", show=False, id="webhook.order"),
        Binding("l", "sort_log", "Sort log", show=False, id="webhook.sort_log"),
        Binding("escape", "leave", "Cancel", id="webhook.leave"),
    ]

    def __init__(self, queue_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.target_part = WebhookTarget(queue_id)
        self.secret_part = WebhookSecret(queue_id)
        self.log_part = DeliveryLog(queue_id)

    def compose(self) -> ComposeResult:
        yield self.target_part
        yield self.secret_part
        yield self.log_part

    def on_mount(self) -> None:
        # With no delivery log to focus, the view itself holds the focus so that its keys work.
        self.can_focus = not self.extensions

    # --- what the tests and the queue screen read ----------------------------------------------------

    @property
    def target(self) -> str | None:
        """None until read; "" when the queue has none."""
        return self.target_part.target

    @property
    def problem(self) -> str | None:
        return self.target_part.problem

    @property
    def editing(self) -> bool:
        return self.target_part.editing

    @property
    def secret(self) -> str | None:
        return self.secret_part.secret

    @property
    def has_secret(self) -> bool | None:
        return self.secret_part.has_secret

    @property
    def deliveries(self) -> PagedTable:
        return self.log_part.deliveries

    # --- data ----------------------------------------------------------------------------------------

    async def fetch(self) -> None:
        """Read the target (unless it is being edited) and refresh the log's rows in view."""
        webhook = await self.session.client.webhook(self.queue_id)
        self.target_part.read(webhook.target)
        if self.extensions:
            self.log_part.refresh_log()

    def refresh_now(self) -> None:
        self.run_worker(self._fetch_now(), exclusive=True, group="webhook-fetch", exit_on_error=False)

    async def _fetch_now(self) -> None:
        try:
            await self.fetch()
        except Exception as exc:
            self.qd.report(exc, doing="Reading the webhook")

    # --- what the parts tell -------------------------------------------------------------------------

    @on(WebhookTarget.Changed)
    def _target_changed(self, event: WebhookTarget.Changed) -> None:
        event.stop()
        self.log_part.target = event.target  # a delivery that went elsewhere is marked, R offers it

    @on(WebhookTarget.Saved)
    def _target_saved(self, event: WebhookTarget.Saved) -> None:
        event.stop()
        if self.extensions and not self.secret_part.has_secret:
            self.secret_part.ask_for_secret()  # the first target brought one

    @on(WebhookTarget.Left)
    def _field_left(self, event: WebhookTarget.Left) -> None:
        event.stop()
        if self.extensions:
            self.deliveries.focus()
        else:
            self.focus()

    # --- keys ------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.qd.session is None:
            return True
        if action == "leave":
            return self.editing
        if self.editing:
            return False  # letters are typed into the field: the footer shows what the field does
        if action == "edit":
            return self.can_change
        if action == "remove":
            return self.can_change and bool(self.target)
        if action in ("secret", "rotate", "test"):
            return self.can_change and self.extensions
        if action == "redeliver":
            return self.can_change and self.extensions
        if action in ("order", "sort_log"):
            return self.extensions
        return True

    def action_edit(self) -> None:
        self.target_part.edit()

    def action_leave(self) -> None:
        self.target_part.leave()

    def action_remove(self) -> None:
        self.target_part.remove_target()

    def action_secret(self) -> None:
        self.secret_part.show_or_hide()

    def action_rotate(self) -> None:
        self.secret_part.rotate()

    def action_test(self) -> None:
        self.secret_part.test(self.target)

    def action_redeliver(self) -> None:
        self.log_part.redeliver()

    def action_order(self) -> None:
        self.log_part.flip_order()

    def action_sort_log(self) -> None:
        self.log_part.next_sort()
