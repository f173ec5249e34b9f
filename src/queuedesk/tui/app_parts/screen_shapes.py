"""What the app asks of some of its screens, by shape (each a `Protocol` the screen carries without
naming it): the app asks `isinstance(screen, ...)` and imports no screen for it."""

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual import events


@runtime_checkable
class RefusesEarlyKeys(Protocol):
    def refuses_key(self, event: "events.Key") -> bool:
        """Whether `event` was read before what it would act on was shown (the screen says so)."""


@runtime_checkable
class LimitedByRole(Protocol):
    def allowed_for_role(self) -> bool:
        """Whether the session's role may still use the screen (it closes when not)."""


@runtime_checkable
class FollowsRole(Protocol):
    async def follow_role(self) -> None:
        """The session's role changed: headers, tabs and keys follow it."""
