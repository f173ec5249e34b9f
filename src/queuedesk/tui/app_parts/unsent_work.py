"""The work on its way to the server, as the app tells of it: the outbox is opened for a session (what
an earlier run left is sent now), and what reaches the server late or is refused for good is said
once, for every screen; a screen that holds the refused task takes it back."""

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.app import App

from queuedesk.tui.app_parts.holds_work import HoldsWork
from queuedesk.tui.session import Session
from queuedesk.tui.work.journal import Entry, Journal, journal_path
from queuedesk.tui.work.outbox import Outbox

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost

MAX_LISTED = 5  # tasks named in one notification
REFUSED_LIST_HINT = "R on the queue list shows what was refused, to copy the values or dismiss it."


class UnsentWork:
    def __init__(self, app: App[None], on_change: Callable[[], None]) -> None:
        self.app = app
        self.qd = cast("AppHost", app)
        self.on_change = on_change  # what waits in the outbox changed

    def open_outbox(self, session: Session) -> Outbox:
        """The person's outbox on this server, sending now what an earlier run left in its journal."""
        assert session.me is not None
        journal = Journal(journal_path(session.url, session.me.email))
        if journal.load_error:
            self.qd.notify(journal.load_error, title="Unsent work file", severity="warning", timeout=15)
        outbox = Outbox(
            self.app,
            session.client,
            journal,
            self.qd.clock,
            self.submission_refused,
            on_sent_late=self.sent_late,
            on_key_refused=lambda exc: self.qd.report(exc, doing="Sending your work"),
            on_change=self.on_change,
        )
        outbox.resume()  # what a crash or a closed app left behind goes now (refusals: `tell_refused`)
        failed = journal.in_state("failed")
        if failed:
            self.qd.notify(
                f"{len(failed)} earlier submission(s) were refused by the server. {REFUSED_LIST_HINT}",
                title="Refused submissions",
                severity="warning",
                timeout=15,
            )
        return outbox

    def sent_late(self, entries: list[Entry], left_before: bool) -> None:
        """Work that had waited reached the server: said once, also on screens without the count."""
        screen = self.app.screen
        if not left_before and isinstance(screen, HoldsWork) and screen.last_submission is not None:
            # The work screen's status line says "Task N sent." of its last submission itself.
            last = screen.last_submission[0]
            entries = [e for e in entries if e.id != last]
        if not entries:
            return
        shown = [f"task {e.task_id} ({e.queue_name})" for e in entries[:MAX_LISTED]]
        if len(entries) > MAX_LISTED:
            shown.append(f"{len(entries) - MAX_LISTED} more")
        if all(e.extra.get("key_refused") for e in entries):
            said = f"Kept when the server refused the key, now sent with this one: {', '.join(shown)}."
        elif left_before:
            said = f"Left unsent when QueueDesk last closed, now sent: {', '.join(shown)}."
        else:
            said = f"Sent now that the server answers again: {', '.join(shown)}."
        self.qd.notify(said, title="Unsent work sent", timeout=10)

    def submission_refused(self, entry: Entry) -> None:
        for screen in self.app.screen_stack:
            if isinstance(screen, HoldsWork) and screen.queue.id == entry.queue_id:
                screen.take_back(entry)  # (the review screen is one: it takes back no verdict)
        self.tell_refused(entry)

    def tell_refused(self, entry: Entry) -> None:
        values = ", ".join(f"{key}={value!r}" for key, value in entry.data.items() if value is not None)
        self.qd.notify(
            f"Task {entry.task_id} in {entry.queue_name} was not accepted: {(entry.error or '').rstrip('.')}. "
            f"What you entered: {values or 'nothing'}. {REFUSED_LIST_HINT}",
            title="Submission refused",
            severity="error",
            timeout=30,
        )
