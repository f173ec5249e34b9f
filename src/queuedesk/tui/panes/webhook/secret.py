"""The webhook's signing secret (shown on `s`, rotated on `S` with what the rotation ends said first)
and the test ping that shows a receiver answers a signed call: admins, on a QueueDesk server."""

from datetime import UTC, datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from queuedesk.api import errors
from queuedesk.api.models import WebhookTestResult
from queuedesk.tui.clock import zone_name
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.panes.webhook.access import WebhookAccess
from queuedesk.tui.present import short_time, when

HIDDEN_SECRET = "whsec_" + "*" * 16


class WebhookSecret(WebhookAccess, Vertical):
    def __init__(self, queue_id: int) -> None:
        super().__init__()
        self.queue_id = queue_id
        self.secret: str | None = None  # shown only while revealed
        self.has_secret: bool | None = None  # None until asked (admins on a QueueDesk server)

    def compose(self) -> ComposeResult:
        yield Static(HIDDEN_SECRET, id="webhook-secret")
        yield Static("", id="webhook-test")

    def on_mount(self) -> None:
        shown = self.can_change and self.extensions
        for part in ("#webhook-secret", "#webhook-test"):
            self.query_one(part).display = shown
        self._show_secret()
        if shown:
            self.ask_for_secret()
            self.query_one("#webhook-test", Static).update(
                Text("Test     t sends a signed ping to the target now", style="dim")
            )

    @work(exclusive=True, group="webhook-secret")
    async def ask_for_secret(self) -> None:
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

    @work(exclusive=True, group="webhook-secret")
    async def show_or_hide(self) -> None:
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
    async def rotate(self) -> None:
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
    async def test(self, target: str | None) -> None:
        """A signed ping to `target` now, and what it answered."""
        line = self.query_one("#webhook-test", Static)
        if not target:
            line.update(Text("Test     set a target first: there is nothing to send a ping to", style="bold"))
            return
        line.update(Text(f"Test     sending a signed ping to {target}…"))
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
