"""What the app said: every notification, kept after its toast has gone (toasts last seconds; a
person who looked away reads them again from the palette's "Messages")."""

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from textual.notifications import SeverityLevel

KEPT = 200  # the most recent; older ones are forgotten


@dataclass(frozen=True)
class Said:
    at: datetime
    severity: SeverityLevel
    title: str
    message: str

    def __str__(self) -> str:
        return f"{self.title}: {self.message}"


class SaidLog:
    def __init__(self, kept: int = KEPT) -> None:
        self._said: deque[Said] = deque(maxlen=kept)

    def add(self, said: Said) -> None:
        self._said.append(said)

    def __iter__(self) -> Iterator[Said]:
        """Oldest first."""
        return iter(self._said)

    def __len__(self) -> int:
        return len(self._said)

    def newest_first(self) -> list[Said]:
        return list(reversed(self._said))
