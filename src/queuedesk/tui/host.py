"""What screens, dialogs and the command palette ask of the app.

`QueueDeskApp` is the one app that has all this (app.py checks it), but the screens name only this
`Protocol`: the app imports every screen, so a screen importing the app would tie them all into
one circle of imports.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.signal import Signal

    from queuedesk.api.config import AppSettings
    from queuedesk.api.models import Queue
    from queuedesk.tui.clock import Clock
    from queuedesk.tui.keys.keys_read import KeysRead
    from queuedesk.tui.session import Session
    from queuedesk.tui.settings import SaveProfile, Target
    from queuedesk.tui.work.outbox import Outbox


@runtime_checkable
class KeepsTime(Protocol):
    """An app whose clock the widgets' timers follow (QueueDeskApp; a bare test app has none)."""

    clock: "Clock"


class AppHost(Protocol):
    settings: "AppSettings"
    clock: "Clock"
    session: "Session | None"
    outbox: "Outbox | None"
    known_queues: "list[Queue]"  # the last list the queues screen saw (for the palette)
    outbox_changed: "Signal[None]"  # published when what waits in the outbox changed
    save_profile: "SaveProfile | None"
    profile_name: str  # the name the Connect screen offers for saving the connection
    keys_read: "KeysRead"  # the last keys read from the terminal (the work screen's double enter)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: "SeverityLevel" = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def report(self, exc: BaseException, *, doing: str = "") -> None:
        """The one place failures become notifications."""

    def server_answered(self) -> None:
        """A refresh got an answer (the next outage is said again; the role is read again)."""

    async def connect(self, target: "Target") -> "Session": ...

    async def start_session(self, session: "Session") -> None: ...

    def outbox_task_ids(self, queue_id: int) -> list[int]: ...

    def open_queue(self, queue: "Queue") -> None: ...

    def open_work(self, queue: "Queue") -> None: ...

    def open_review(self, queue: "Queue") -> None: ...

    def open_flush(self, queue: "Queue", on_done: Callable[[], None]) -> None: ...

    def open_create_task(self, queue: "Queue") -> None: ...

    def open_queue_editor(self, queue: "Queue | None") -> None: ...

    def open_people(self) -> None: ...

    def open_refused(self) -> None: ...

    def remember(self, key: str, value: object) -> None:
        """An app setting changed in the app, kept for the next start."""
