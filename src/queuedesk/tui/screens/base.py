"""What every screen of the app shares: the app, its session and its clock, typed."""

from typing import TYPE_CHECKING, TypeVar, cast

from textual.screen import ModalScreen, Screen

from queuedesk.tui.clock import Clock
from queuedesk.tui.session import Session

if TYPE_CHECKING:
    from queuedesk.tui.app import QueueDeskApp


class AppAccess:
    @property
    def qd(self) -> "QueueDeskApp":
        return cast("QueueDeskApp", self.app)  # type: ignore[attr-defined]

    @property
    def session(self) -> Session:
        session = self.qd.session
        assert session is not None, "screens after Connect always have a session"
        return session

    @property
    def clock(self) -> Clock:
        return self.qd.clock


class AppScreen(AppAccess, Screen[None]):
    pass


T = TypeVar("T")


class AppModal(AppAccess, ModalScreen[T]):
    pass
