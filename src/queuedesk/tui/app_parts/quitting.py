"""Leaving the app: what waits for the undo grace is sent and claims held for work are given back.
Work the server did not take (it does not answer) is not left behind without a word: the worker
chooses to send it and wait, keep it for the next start, or discard it."""

import contextlib
from typing import TYPE_CHECKING, cast

from textual.app import App

from queuedesk.api import errors
from queuedesk.tui.app_parts.holds_work import HoldsWork
from queuedesk.tui.work.outbox import Outbox

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost
    from queuedesk.tui.modals.quit_unsent import Choice


class Quitting:
    def __init__(self, app: App[None]) -> None:
        self.app = app
        self.qd = cast("AppHost", app)

    async def quit(self) -> None:
        from queuedesk.tui.modals.quit_unsent import QuitUnsentScreen

        if isinstance(self.app.screen, QuitUnsentScreen):
            return
        outbox = self.qd.outbox
        if outbox is None or not outbox.journal.in_state("unsent"):
            await self.leave_work(send=True)
            if outbox is not None:
                await outbox.send_held_now()
            if outbox is None or not outbox.journal.in_state("held", "unsent"):
                self.app.exit()
                return
        self.ask_before_quitting(outbox)

    def ask_before_quitting(self, outbox: Outbox) -> None:
        from queuedesk.tui.modals.quit_unsent import QuitUnsentScreen

        def chosen(choice: "Choice | None") -> None:
            if choice is not None:
                self.app.run_worker(self.quit_with(outbox, choice), group="quit", exit_on_error=False)

        held, unsent = len(outbox.journal.in_state("held")), len(outbox.journal.in_state("unsent"))
        self.app.push_screen(QuitUnsentScreen(held, unsent, persist=outbox.journal.persist), chosen)

    async def quit_with(self, outbox: Outbox, choice: str) -> None:
        waiting = outbox.journal.in_state("held", "unsent")
        if choice == "discard":
            for entry in waiting:
                outbox.discard(entry.id)
            await self.leave_work(send=False)
            for entry in waiting:  # still claimed by this worker: back to the queue
                with contextlib.suppress(errors.QueueDeskError):
                    await outbox.client.release(entry.queue_id, entry.task_id)
            self.app.exit()
            return
        await self.leave_work(send=choice == "send")
        if choice == "send":
            self.qd.notify(f"Sending {len(waiting)} submission(s)…", timeout=4)
            await outbox.send_held_now()
            left = outbox.journal.in_state("held", "unsent")
            if left:
                self.qd.notify(
                    f"The server still did not take {len(left)} submission(s): it does not answer.",
                    title="Not sent",
                    severity="warning",
                    timeout=8,
                )
                self.ask_before_quitting(outbox)
                return
        self.app.exit()

    async def leave_work(self, *, send: bool) -> None:
        """Every screen holding a task leaves it (asked by shape: no screen is imported for it)."""
        for screen in self.app.screen_stack:
            if isinstance(screen, HoldsWork):
                await screen.leave(send=send)
