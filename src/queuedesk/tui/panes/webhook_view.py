"""The Webhook tab: the target (set and removed by admins), the signing secret, a test ping, and the
delivery log with each delivery's attempts.

Supervisors read the target and the log; on a server with only the basic Task Queue API there is
just the target. The queue screen's live refresh calls `fetch` while the tab is shown.
"""

from datetime import UTC, datetime
from typing import ClassVar, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Label, Static

from queuedesk.api import errors, terminal_text
from queuedesk.api.client import DeliverySort
from queuedesk.api.models import Delivery, WebhookTestResult
from queuedesk.tui.admin.webhook_target import EXAMPLE, target_problem
from queuedesk.tui.base import AppAccess
from queuedesk.tui.clock import zone_name
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.delivery import DeliveryScreen, ask_where, status_text
from queuedesk.tui.present import short_time, when
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
HIDDEN_SECRET = "whsec_" + "*" * 16
BASIC_SERVER = (
    "This server offers only the basic Task Queue API: the target can be set and removed here, and "
    "the server calls it on each completion. Signing secrets, test pings and the delivery log need a "
    "QueueDesk server."
)
READ_ONLY = "Read only: admins change the target, see the secret, send test pings and redeliver."
EDITING = "enter saves · escape puts the saved target back · an empty address removes the target"


class WebhookView(AppAccess, Vertical):
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
        self.target: str | None = None  # None until read; "" when the queue has none
        self.secret: str | None = None  # shown only while revealed
        self.problem: str | None = None  # what is wrong with the address in the field
        self.said: str | None = None  # what was last done to the target ("Saved: ...")
        self.has_secret: bool | None = None  # None until asked (admins on a QueueDesk server)
        self.loaded = False
        self.oldest_first = False  # o: the log read from its other end
        self.log_sort: DeliverySort = "id"  # l: the column the log is sorted by

    # --- what the role and the server allow -----------------------------------------------------

    @property
    def can_change(self) -> bool:
        session = self.qd.session
        return session is not None and session.is_admin

    @property
    def extensions(self) -> bool:
        session = self.qd.session
        return session is not None and session.extensions

    @property
    def editing(self) -> bool:
        return self.can_change and self.screen.focused is self.query_one("#webhook-target", Input)

    def compose(self) -> ComposeResult:
        with Horizontal(id="webhook-target-row"):
            yield Label("Target", id="webhook-target-label")
            yield Input(placeholder=f"{EXAMPLE}  (enter saves)", id="webhook-target")
            yield Static("", id="webhook-target-text")
        yield Static("", id="webhook-field-note")
        yield Static(HIDDEN_SECRET, id="webhook-secret")
        yield Static("", id="webhook-test")
        yield Static("", id="webhook-log-note")
        yield PagedTable(delivery_columns(zone_name(self.clock)), self._delivery_cells, _key, id="deliveries")
        yield Static("", id="delivery-detail", classes="row-detail", markup=False)

    def on_mount(self) -> None:
        admin = self.can_change
        # With no delivery log to focus, the view itself holds the focus so that its keys work.
        self.can_focus = not self.extensions
        self.query_one("#webhook-target").display = admin
        self.query_one("#webhook-target-text").display = not admin
        for part in ("#webhook-secret", "#webhook-test"):
            self.query_one(part).display = admin and self.extensions
        self.query_one("#webhook-log-note").display = self.extensions
        self.query_one("#deliveries").display = self.extensions
        self.query_one("#delivery-detail").display = self.extensions
        self._show_secret()
        self._show_note()
        if self.extensions and admin:
            self._ask_for_secret()
            self.query_one("#webhook-test", Static).update(
                Text("Test     t sends a signed ping to the target now", style="dim")
            )

    @property
    def deliveries(self) -> PagedTable:
        return self.query_one("#deliveries", PagedTable)

    # --- data --------------------------------------------------------------------------------------

    async def fetch(self) -> None:
        """Read the target (unless it is being edited) and refresh the log's rows in view."""
        webhook = await self.session.client.webhook(self.queue_id)
        if self.target == webhook.target:
            pass  # as shown: redrawing it rebuilt the footer's keys on every refresh (memory grew)
        elif not self.editing and (self.target is None or self.field_value == self.target):
            self._show_target(webhook.target)
        else:
            self.target = webhook.target
        if not self.extensions:
            return
        if not self.loaded:
            self.loaded = True
            self._read_log()
        elif self.deliveries.items or self.deliveries.total == 0:
            self.deliveries.refresh_window()

    def refresh_now(self) -> None:
        self.run_worker(self._fetch_now(), exclusive=True, group="webhook-fetch", exit_on_error=False)

    async def _fetch_now(self) -> None:
        try:
            await self.fetch()
        except Exception as exc:
            self.qd.report(exc, doing="Reading the webhook")

    async def _delivery_page(self, offset: int, limit: int) -> Page:
        order: Literal["asc"] | None = "asc" if self.oldest_first else None
        sort: DeliverySort | None = None if self.log_sort == "id" else self.log_sort
        page = await self.session.client.deliveries(
            self.queue_id, offset=offset, limit=limit, order=order, sort=sort
        )
        return Page(page.count, page.deliveries)

    @property
    def field_value(self) -> str:
        return self.query_one("#webhook-target", Input).value.strip()

    def _show_target(self, target: str) -> None:
        self.target = target
        self.query_one("#webhook-target", Input).value = target
        shown = (
            Text(terminal_text.shown(target))
            if target
            else Text("none: completions are not sent anywhere", style="dim")
        )
        self.query_one("#webhook-target-text", Static).update(shown)
        self._set_problem(None)
        self.screen.refresh_bindings()

    # --- rendering --------------------------------------------------------------------------------

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

    def _set_problem(self, problem: str | None) -> None:
        self.problem = problem
        self.query_one("#webhook-target", Input).set_class(problem is not None, "-invalid")
        self._show_note()

    def _show_note(self, said: str | None = None) -> None:
        """The line under the target: its problem, else what was just done, else what the keys do."""
        if said is not None:
            self.said = said
        note = self.query_one("#webhook-field-note", Static)
        note.set_class(self.problem is not None, "problem")
        if self.problem is not None:
            note.update(Text(self.problem))
        elif self.said is not None and not self.editing:
            note.update(Text(self.said))
        elif not self.extensions:
            note.update(Text(BASIC_SERVER, style="dim"))
        elif not self.can_change:
            note.update(Text(READ_ONLY, style="dim"))
        elif self.editing:
            note.update(Text(EDITING, style="dim"))
        else:
            note.update(Text("e edits the target · D removes it", style="dim"))

    @work(exclusive=True, group="webhook-secret")
    async def _ask_for_secret(self) -> None:
        """Whether the queue has a secret at all (a 404 before its first target): never shown masked
        when there is none. The value is not kept: `s` reads it again to show it."""
        try:
            await self.session.client.webhook_secret(self.queue_id)
        except errors.NotFound:
            self.has_secret = False
        except Exception:
            return  # the refresh says what is wrong with the server
        else:
            self.has_secret = True
        self._show_secret()

    def _show_secret(self) -> None:
        text = Text("Secret   ")
        if self.secret is None and self.has_secret is False:
            text.append("none yet: the queue gets one when a target is first set", style="dim")
        elif self.secret is None:
            text.append(HIDDEN_SECRET)
            text.append("   s shows it · S rotates it", style="dim")
        else:
            text.append(self.secret, style="bold")
            text.append("   s hides it · S rotates it", style="dim")
        self.query_one("#webhook-secret", Static).update(text)

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

    # --- the target ----------------------------------------------------------------------------------

    @on(Input.Changed, "#webhook-target")
    def _typed(self) -> None:
        if self.problem is not None:  # once a problem was said, it goes away as soon as it is fixed
            self._set_problem(
                target_problem(self.field_value, signed=self.extensions) if self.field_value else None
            )

    @on(Input.Submitted, "#webhook-target")
    def _submitted(self) -> None:
        typed = self.field_value
        if not typed:
            if self.target:
                self.action_remove()
            else:
                self._set_problem(f"Type the address that should receive completions, like {EXAMPLE}.")
            return
        problem = target_problem(typed, signed=self.extensions)
        if problem is not None:
            self._set_problem(problem)
            return
        if typed == self.target:
            self._leave_field()
            self._show_note("That is the target already: nothing to save.")
            return
        self._save(typed)

    @work(exclusive=True, group="webhook-save")
    async def _save(self, target: str) -> None:
        self.query_one("#webhook-field-note", Static).update("Saving…")
        try:
            await self.session.client.set_webhook(self.queue_id, target)
        except errors.ValidationError as exc:
            # The server's word on the field (e.g. an address it may not call from there).
            self._set_problem(exc.fields.get("target") or str(exc))
            return
        except Exception as exc:
            self._show_note()
            self.qd.report(exc, doing="Saving the webhook target")
            return
        self._show_target(target)
        self._leave_field()
        self._show_note("Saved: every completion from now on is sent there.")
        if self.extensions and not self.has_secret:
            self._ask_for_secret()  # the first target brought one
        self.notify(f"Completions of this queue are sent to {target}.", title="Webhook target saved")

    def action_edit(self) -> None:
        self.query_one("#webhook-target", Input).focus()

    def action_leave(self) -> None:
        self.query_one("#webhook-target", Input).value = self.target or ""
        self._set_problem(None)
        self._leave_field()

    def _leave_field(self) -> None:
        if self.extensions:
            self.deliveries.focus()
        else:
            self.focus()
        self._show_note()

    def on_descendant_focus(self) -> None:
        if self.editing:
            self.said = None  # what was done before is old news once the address is edited again
        self._show_note()

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self._show_note)

    def action_remove(self) -> None:
        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove()

        self.app.push_screen(
            ConfirmScreen(
                "Remove the webhook target?",
                f"Completions are no longer sent to {self.target}. Deliveries already queued still go "
                "there; the signing secret is kept for when a target is set again."
                if self.extensions
                else f"Completions are no longer sent to {self.target}.",
                "Remove",
            ),
            confirmed,
        )

    @work(exclusive=True, group="webhook-save")
    async def _remove(self) -> None:
        try:
            await self.session.client.remove_webhook(self.queue_id)
        except Exception as exc:
            self.qd.report(exc, doing="Removing the webhook target")
            return
        self._show_target("")
        self.said = "Removed: completions are no longer sent anywhere."
        self._leave_field()
        self.notify("Completions of this queue are no longer sent anywhere.", title="Webhook target removed")

    # --- secret, test, redelivery ------------------------------------------------------------------

    @work(exclusive=True, group="webhook-secret")
    async def action_secret(self) -> None:
        if self.secret is not None:
            self.secret = None
            self._show_secret()
            return
        try:
            self.secret = await self.session.client.webhook_secret(self.queue_id)
        except errors.NotFound:
            self.has_secret = False
            self._show_secret()
            self.notify(
                "This queue has no signing secret yet: it gets one when a target is first set.",
                title="No secret yet",
                severity="warning",
            )
            return
        except Exception as exc:
            self.qd.report(exc, doing="Reading the webhook secret")
            return
        self._show_secret()

    @work(exclusive=True, group="webhook-secret")
    async def action_rotate(self) -> None:
        earlier = await self._rotation_still_overlapping()
        if earlier is None:
            explanation = (
                "A new secret signs every delivery from now on. The old one keeps signing beside it for "
                "24 hours, so receivers have a day to switch; after that they must check the new one."
            )
        else:
            explanation = (
                f"The secret was already rotated at {when(earlier, self.clock)} {zone_name(self.clock)}, less than 24 hours "
                "ago: the original secret (the one before that rotation) STOPS SIGNING NOW. Only the "
                "current secret keeps signing beside the new one, for 24 hours. Receivers still checking "
                "the original fail from the next delivery."
            )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._rotate(ends_original=earlier is not None)

        self.app.push_screen(ConfirmScreen("Rotate the signing secret?", explanation, "Rotate"), confirmed)

    async def _rotation_still_overlapping(self) -> datetime | None:
        """When the last rotation was, if the secret before it still signs (from the audit log, B20);
        None when it does not, or the server keeps no log to tell."""
        try:
            page = await self.session.client.audit(action="webhook.rotate", queue_id=self.queue_id, limit=1)
        except errors.QueueDeskError:
            return None
        if not page.events:
            return None
        event = page.events[0]
        until = event.detail.get("previous_signs_until")
        if not isinstance(until, str):
            return None
        # The server's times against the real time, not the app's clock (a test's clock stands still).
        still = datetime.fromisoformat(until.replace("Z", "+00:00")) > datetime.now(UTC)
        return event.at if still else None

    @work(exclusive=True, group="webhook-secret")
    async def _rotate(self, ends_original: bool = False) -> None:
        try:
            self.secret = await self.session.client.rotate_webhook_secret(self.queue_id)
        except Exception as exc:
            self.qd.report(exc, doing="Rotating the webhook secret")
            return
        self.has_secret = True
        self._show_secret()
        if ends_original:
            self.notify(
                "The new secret is shown. The original secret no longer signs; the previous one signs "
                "beside the new one for 24 hours.",
                title="Secret rotated again",
                severity="warning",
                timeout=15,
            )
        else:
            self.notify(
                "The new secret is shown; the old one still signs for 24 hours.", title="Secret rotated"
            )

    @work(exclusive=True, group="webhook-test")
    async def action_test(self) -> None:
        line = self.query_one("#webhook-test", Static)
        if not self.target:
            line.update(Text("Test     set a target first: there is nothing to send a ping to", style="bold"))
            return
        line.update(Text(f"Test     sending a signed ping to {self.target}…"))
        started = self.clock.now()
        try:
            result = await self.session.client.test_webhook(self.queue_id)
        except errors.NotFound:
            line.update(
                Text(
                    "Test     this server cannot send test pings (a QueueDesk from before them)", style="dim"
                )
            )
            return
        except Exception as exc:
            line.update(Text("Test     not sent (see the notification)", style="dim"))
            self.qd.report(exc, doing="Sending a test ping")
            return
        self.show_test(result, started)

    def show_test(self, result: WebhookTestResult, at: datetime) -> None:
        ok = result.status_code is not None and 200 <= result.status_code < 300
        text = Text("Test     ")
        text.append(f"{short_time(at, self.clock)} ")
        if ok:
            text.append(f"✓ answered {result.status_code}", style="bold green")
        elif result.status_code is not None:
            text.append(f"✗ answered {result.status_code}", style="bold red")
        else:
            text.append("✗ no answer", style="bold red")
        text.append(f" in {result.duration_ms:,} ms")
        if result.error and not ok:
            text.append(f": {result.error}")
        self.query_one("#webhook-test", Static).update(text)

    def action_redeliver(self) -> None:
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

    def action_order(self) -> None:
        self.oldest_first = not self.oldest_first
        self._read_log()

    def action_sort_log(self) -> None:
        """l: by creation, by status, by tries, by task, and round again."""
        self.log_sort = next_sort(list(LOG_SORT_COLUMNS), self.log_sort)
        self.oldest_first = self.log_sort == "status"  # failed, pending, sent: a to z
        self._read_log()

    def _read_log(self) -> None:
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
