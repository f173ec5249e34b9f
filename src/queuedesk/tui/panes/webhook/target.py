"""The webhook's target: shown to everyone who reads it, set and removed by admins in its field, each
problem said under it before anything is sent."""

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from queuedesk.api import errors, terminal_text
from queuedesk.tui.admin.webhook_target import EXAMPLE, target_problem
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.panes.webhook.access import WebhookAccess

BASIC_SERVER = (
    "This server offers only the basic Task Queue API: the target can be set and removed here, and "
    "the server calls it on each completion. Signing secrets, test pings and the delivery log need a "
    "QueueDesk server."
)
READ_ONLY = "Read only: admins change the target, see the secret, send test pings and redeliver."
EDITING = "enter saves · escape puts the saved target back · an empty address removes the target"


class WebhookTarget(WebhookAccess, Vertical):
    class Changed(Message):
        """The target is another (read, saved or removed): "" when there is none."""

        def __init__(self, target: str) -> None:
            super().__init__()
            self.target = target

    class Saved(Message):
        """An admin saved a target (the first one brings the queue a signing secret)."""

    class Left(Message):
        """The field was left (saved, or escape): the focus goes back to where the tab's keys work."""

    def __init__(self, queue_id: int) -> None:
        super().__init__()
        self.queue_id = queue_id
        self.target: str | None = None  # None until read; "" when the queue has none
        self.problem: str | None = None  # what is wrong with the address in the field
        self.said: str | None = None  # what was last done to the target ("Saved: ...")

    def compose(self) -> ComposeResult:
        with Horizontal(id="webhook-target-row"):
            yield Label("Target", id="webhook-target-label")
            yield Input(placeholder=f"{EXAMPLE}  (enter saves)", id="webhook-target")
            yield Static("", id="webhook-target-text")
        yield Static("", id="webhook-field-note")

    def on_mount(self) -> None:
        self.query_one("#webhook-target").display = self.can_change
        self.query_one("#webhook-target-text").display = not self.can_change
        self.show_note()

    @property
    def field(self) -> Input:
        return self.query_one("#webhook-target", Input)

    @property
    def editing(self) -> bool:
        return self.can_change and self.screen.focused is self.field

    @property
    def field_value(self) -> str:
        return self.field.value.strip()

    def read(self, target: str) -> None:
        """The target as the server has it now: shown, unless an admin is editing the field."""
        if self.target == target:
            return  # as shown: redrawing it rebuilt the footer's keys on every refresh (memory grew)
        if not self.editing and (self.target is None or self.field_value == self.target):
            self._show_target(target)
        else:
            self._set_target(target)

    def _set_target(self, target: str) -> None:
        if target != self.target:
            self.target = target
            self.post_message(self.Changed(target))

    def _show_target(self, target: str) -> None:
        self._set_target(target)
        self.field.value = target
        shown = (
            Text(terminal_text.shown(target))
            if target
            else Text("none: completions are not sent anywhere", style="dim")
        )
        self.query_one("#webhook-target-text", Static).update(shown)
        self._set_problem(None)
        self.screen.refresh_bindings()

    def _set_problem(self, problem: str | None) -> None:
        self.problem = problem
        self.field.set_class(problem is not None, "-invalid")
        self.show_note()

    def show_note(self, said: str | None = None) -> None:
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
                self.remove_target()
            else:
                self._set_problem(f"Type the address that should receive completions, like {EXAMPLE}.")
            return
        problem = target_problem(typed, signed=self.extensions)
        if problem is not None:
            self._set_problem(problem)
            return
        if typed == self.target:
            self._leave_field()
            self.show_note("That is the target already: nothing to save.")
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
            self.show_note()
            self.qd.report(exc, doing="Saving the webhook target")
            return
        self._show_target(target)
        self._leave_field()
        self.show_note("Saved: every completion from now on is sent there.")
        self.post_message(self.Saved())
        self.notify(f"Completions of this queue are sent to {target}.", title="Webhook target saved")

    def edit(self) -> None:
        self.field.focus()

    def leave(self) -> None:
        """escape: the saved target back in the field, its problem gone."""
        self.field.value = self.target or ""
        self._set_problem(None)
        self._leave_field()

    def _leave_field(self) -> None:
        self.post_message(self.Left())
        self.show_note()

    def on_descendant_focus(self) -> None:
        if self.editing:
            self.said = None  # what was done before is old news once the address is edited again
        self.show_note()

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self.show_note)

    def remove_target(self) -> None:
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
