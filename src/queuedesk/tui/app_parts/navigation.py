"""Where the app goes: one place, so the palette and every screen open screens and dialogs the same
way. Each screen's module is imported when it is first opened (a start loads only the queue list)."""

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.app import App

from queuedesk.api.models import Queue

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost
    from queuedesk.tui.said import SaidLog

NO_CLAIMING = (
    "This server offers only the basic Task Queue API: it cannot hand out tasks to work on. "
    "Creating tasks (n) still works."
)
NO_QUEUE_EDITING = (
    "This server offers only the basic Task Queue API: queues are made and changed in its own interface."
)


class Navigation:
    """Opens what the app offers on top of the screen shown, or says why it cannot here."""

    def __init__(self, app: App[None], said: "SaidLog", outbox_changed: Callable[[], None]) -> None:
        self.app = app
        self.qd = cast("AppHost", app)
        self.said = said  # the session's notifications, for "Messages"
        self.outbox_changed = outbox_changed  # what waits may have changed when the refusals close

    def open_queue(self, queue: Queue) -> None:
        from queuedesk.tui.screens.queue import QueueScreen

        self.app.push_screen(QueueScreen(queue))

    def open_work(self, queue: Queue) -> None:
        session = self.qd.session
        if session is None or not session.extensions:
            self.qd.notify(NO_CLAIMING, title="No claiming on this server", severity="warning")
            return
        from queuedesk.tui.screens.work import WorkScreen

        self.app.push_screen(WorkScreen(queue))

    def open_review(self, queue: Queue) -> None:
        """The review loop (B19), or a word on why there is none here."""
        from queuedesk.tui.review.review_access import review_refusal

        refusal = review_refusal(self.qd.session, queue)
        if refusal is not None:
            self.qd.notify(refusal, title="No review here", severity="warning")
            return
        from queuedesk.tui.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(queue))

    def open_flush(self, queue: Queue, on_done: Callable[[], None]) -> None:
        from queuedesk.tui.modals.flush import FlushScreen

        def finished(flushed: bool | None) -> None:
            if flushed:
                on_done()

        self.app.push_screen(FlushScreen(queue), finished)

    def open_create_task(self, queue: Queue) -> None:
        from queuedesk.tui.screens.create import CreateTaskScreen

        self.app.push_screen(CreateTaskScreen(queue))

    def open_queue_editor(self, queue: Queue | None) -> None:
        """Create a queue (`queue` None) or edit one: admins, on a server with queue management."""
        session = self.qd.session
        if session is None or not session.is_admin:
            return
        if not session.extensions:
            self.qd.notify(NO_QUEUE_EDITING, title="No queue editing on this server", severity="warning")
            return
        from queuedesk.tui.screens.queue_editor import QueueEditorScreen

        self.app.push_screen(QueueEditorScreen(queue))

    def open_refused(self) -> None:
        """The submissions the server refused for good (R on the queue list)."""
        outbox = self.qd.outbox
        if outbox is None:
            return
        from queuedesk.tui.modals.refused import RefusedScreen

        self.app.push_screen(RefusedScreen(outbox.journal), lambda _: self.outbox_changed())

    def open_people(self) -> None:
        from queuedesk.tui.screens.people_screen import PeopleScreen

        self.app.push_screen(PeopleScreen())

    def show_said(self) -> None:
        """Every notification of this session again, newest first (the palette's "Messages")."""
        from queuedesk.tui.modals.messages import MessagesScreen

        if not isinstance(self.app.screen, MessagesScreen):
            self.app.push_screen(MessagesScreen(self.said.newest_first()))

    def show_keys(self) -> None:
        """The keys of the screen shown (f1, ?), those the footer hides too."""
        from queuedesk.tui.modals.keys import KeysScreen

        if not isinstance(self.app.screen, KeysScreen):
            self.app.push_screen(KeysScreen(self.app.screen))
