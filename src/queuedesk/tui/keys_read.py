"""The last keys the app read from the terminal: whether a key was typed twice in a row, quickly."""

from dataclasses import dataclass
from datetime import datetime


@dataclass
class KeysRead:
    """The last two keys the app read from the terminal, in order, each with the time it was read."""

    last: tuple[str, datetime] | None = None
    before: tuple[str, datetime] | None = None

    def read(self, key: str, at: datetime) -> None:
        self.before, self.last = self.last, (key, at)

    def repeated_within(self, key: str, seconds: float) -> bool:
        """The key just read is `key` again, read less than `seconds` after the one before it."""
        if self.last is None or self.before is None or self.last[0] != key or self.before[0] != key:
            return False
        return (self.last[1] - self.before[1]).total_seconds() < seconds
