"""The keys the queue list and a queue's own screen both give for the queue at hand (the chosen row,
or the queue shown). Each opens another screen, so each is a priority binding: the screen opens as
the key is read, and the keys typed after it go there (`opens_a_screen` in `tui/base.py`)."""

from collections.abc import Callable

from textual.binding import Binding, BindingType

from queuedesk.api.models import Queue
from queuedesk.tui.base import AppScreen, opens_a_screen
from queuedesk.tui.views.live import Poller


def keys_for_a_queue(scope: str) -> list[BindingType]:
    """Work, review, a new task and flush, with the binding ids `<scope>.work` and so on."""
    return [
        Binding("w", "work", "Work", id=f"{scope}.work", priority=True),
        Binding("w", "no_claiming", show=False, priority=True),  # a basic server: says why, never shown
        Binding("v", "review", "Review", id=f"{scope}.review", priority=True),
        Binding("v", "no_review", show=False, priority=True),  # no review here: says why, never shown
        Binding("n", "create", "New task", id=f"{scope}.create", priority=True),
        Binding("F", "flush", "Flush", id=f"{scope}.flush", priority=True),
    ]


class QueueKeys(AppScreen):
    """The actions of `keys_for_a_queue` (and `E`) for a screen that says which queue is at hand, and
    the live refresh such a screen runs (`poller`, made as it mounts): a base of the queue list and
    the queue screen, like AppScreen, that composes nothing."""

    poller: Poller

    def on_unmount(self) -> None:
        if hasattr(self, "poller"):  # taken down before it was mounted (the app quit while it opened)
            self.poller.stop()

    def on_screen_resume(self) -> None:
        if hasattr(self, "poller"):
            self.poller.poll_now()  # back on top: fresh figures at once

    def action_pause(self) -> None:
        paused = self.poller.toggle_pause()
        self.notify("Live refresh paused: p resumes." if paused else "Live refresh on.", timeout=3)

    def queue_at_hand(self) -> Queue | None:
        raise NotImplementedError

    def after_flush(self) -> None:
        """What the screen reads again once the queue was flushed."""

    def _offers_review(self) -> bool:
        raise NotImplementedError

    def queue_key_allowed(self, action: str) -> bool | None:
        """Whether the session's role and server allow one of these actions (None: not one of them)."""
        session = self.qd.session
        if session is None:
            return True
        if action in ("flush", "create", "new_queue", "edit_queue"):
            return session.is_admin
        if action == "work":
            return session.can_work and session.extensions
        if action == "no_claiming":
            return not session.extensions
        if action in ("review", "no_review"):
            return self._offers_review() == (action == "review")
        return None

    def _open(self, opener: Callable[[Queue], None]) -> None:
        queue = self.queue_at_hand()
        if queue is not None:
            opener(queue)

    @opens_a_screen("w")
    def action_work(self) -> None:
        self._open(self.qd.open_work)

    @opens_a_screen("w")
    def action_no_claiming(self) -> None:
        self._open(self.qd.open_work)  # on a basic server: says there is no claiming there

    @opens_a_screen("v")
    def action_review(self) -> None:
        self._open(self.qd.open_review)

    @opens_a_screen("n")
    def action_create(self) -> None:
        self._open(self.qd.open_create_task)

    @opens_a_screen("E")
    def action_edit_queue(self) -> None:
        self._open(self.qd.open_queue_editor)

    @opens_a_screen("F")
    def action_flush(self) -> None:
        self._open(lambda queue: self.qd.open_flush(queue, on_done=self.after_flush))
