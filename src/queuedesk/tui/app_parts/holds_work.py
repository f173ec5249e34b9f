"""What the app asks of a screen that holds a task (the work and the review screens) when the outbox
reports or the app quits.

The screens carry it by shape (a `Protocol`): the app asks `isinstance(screen, HoldsWork)` without
importing them, so quitting from the queue list does not load the work and review screens with their
forms and panes (≈0.26 s) only to learn that neither is open.
"""

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from queuedesk.api.models import AssignedTask, Queue
    from queuedesk.tui.work.journal import Entry


@runtime_checkable
class HoldsWork(Protocol):
    queue: "Queue"

    @property
    def last_submission(self) -> "tuple[str, AssignedTask] | None":
        """The entry id and task of the last submission, while the screen says "Task N sent." itself."""

    def take_back(self, entry: "Entry") -> None:
        """The server refused `entry`: the task goes back on screen (a review takes back no verdict)."""

    async def leave(self, *, send: bool = True) -> None:
        """The app quits: what waits out its grace is sent (`send`) or not, claims are given back."""
