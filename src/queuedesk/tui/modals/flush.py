"""The flush guard: what would be deleted, fetched fresh, and the queue's name typed before anything runs."""

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, LoadingIndicator, Static

from queuedesk.api.models import Queue
from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.present import tasks

BASIC_FLUSH = (
    "Every task that is not completed is deleted for good, including tasks people are working on now. "
    "Completed tasks stay. This server does not check who may flush: any key of the organization can, "
    "whatever its role."
)


def flush_explanation(extensions: bool) -> str:
    if not extensions:
        return BASIC_FLUSH
    return (
        "Every task that is not completed is deleted for good: new, open and in progress, "
        "including tasks people are working on now. Completed tasks and their webhook deliveries stay."
    )


class FlushScreen(AppModal[bool]):
    """Dismisses with True only after the server flushed the queue."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="flush.cancel")]

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        self.counted = False
        self.flushing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="flush-box"):
            yield Label(f"Flush “{self.queue.name}”?", id="flush-title", markup=False)
            yield Static(flush_explanation(self.session.extensions), id="flush-explain")
            yield LoadingIndicator(id="flush-loading")
            yield Static("", id="flush-counts")
            yield Label("Type the queue's name to confirm:")
            # Not the name itself as the placeholder: an empty field would look filled in.
            yield Input(placeholder="the name, exactly as above", id="flush-name")
            with Horizontal(id="flush-actions"):
                yield Button("Cancel", id="flush-cancel")
                yield Button("Flush", variant="error", id="flush-run", disabled=True)

    def on_mount(self) -> None:
        # The name field first, so the name can be typed at once; enter there flushes nothing
        # until the name is exactly right, and says so.
        self.query_one("#flush-name", Input).focus()
        self._count()

    @work(exclusive=True, group="flush-count")
    async def _count(self) -> None:
        client = self.session.client
        try:
            queue = await client.queue(self.queue.id)
            number, noun = tasks(queue.n_tasks).split(" ", 1)
            counts = Content.assemble((number, "bold"), f" {noun} will be deleted")
            if self.session.extensions:
                by_status = []
                for status in ("new", "open", "in_progress"):
                    count = (await client.pending_tasks(queue.id, status=[status], limit=1)).count
                    by_status.append(f"{count:,} {status.replace('_', ' ')}")
                counts += f" ({', '.join(by_status)})"
            active = ", ".join(queue.active_users)
            who = (
                Content.assemble("working in it now: ", (active, "bold"))
                if active
                else "nobody is working in it now"
            )
            self.query_one("#flush-counts", Static).update(Content("\n").join([counts, who]))
            self.counted = True
        except Exception as exc:
            self.query_one("#flush-counts", Static).update(
                "Could not count the tasks, so flushing is not offered. Escape and try again."
            )
            self.qd.report(exc, doing="Counting tasks to flush")
        finally:
            self.query_one("#flush-loading").display = False
            self._update_button()

    @on(Input.Changed, "#flush-name")
    def _update_button(self) -> None:
        typed = self.query_one("#flush-name", Input).value
        self.query_one("#flush-run", Button).disabled = not (self.counted and typed == self.queue.name)

    @on(Input.Submitted, "#flush-name")
    def _submitted(self) -> None:
        typed = self.query_one("#flush-name", Input).value
        if self.flushing:
            self.notify("Already flushing: the queue's tasks are being deleted.", severity="warning")
        elif not self.counted:
            self.notify("The counts are not loaded yet: nothing was deleted.", severity="warning")
        elif typed != self.queue.name:
            self.notify(
                f"That is not the queue's name (type {self.queue.name!r} exactly). Nothing was deleted.",
                title="Not flushed",
                severity="warning",
            )
        else:
            self.flushing = True  # now, not when the worker starts: an enter queued behind this one
            self._flush()

    @on(Button.Pressed, "#flush-run")
    def _pressed_flush(self) -> None:
        self._submitted()

    @on(Button.Pressed, "#flush-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)

    @work(exclusive=True, group="flush")
    async def _flush(self) -> None:
        # A flush can take seconds (a busy server): it says so, and enter meanwhile starts no second one.
        run = self.query_one("#flush-run", Button)
        run.disabled, run.label = True, "Flushing…"
        self.query_one("#flush-loading").display = True
        try:
            before = await self.session.client.queue(self.queue.id)
            await self.session.client.flush(self.queue.id)
        except Exception as exc:
            self.qd.report(exc, doing="Flushing")
            return
        finally:
            self.flushing = False
            self.query_one("#flush-loading").display = False  # first: on a gone dialog, this ends it
            run.label = "Flush"
            self._update_button()
        self.notify(f"Deleted {tasks(before.n_tasks)} from {self.queue.name}.", title="Queue flushed")
        self.dismiss(True)
