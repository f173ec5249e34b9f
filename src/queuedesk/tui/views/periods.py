"""The stats periods the app offers, and the window of buckets each covers at a moment.

Buckets are aligned to the clock (a 15-minute bucket starts at :00, :15, :30 or :45 UTC), so the
last bucket is the one in progress and a bar does not change meaning from one refresh to the next.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


@dataclass(frozen=True)
class Period:
    label: str  # "8 h"
    hours: int
    bucket_minutes: int

    @property
    def buckets(self) -> int:
        return self.hours * 60 // self.bucket_minutes

    @property
    def bucket_label(self) -> str:
        minutes = self.bucket_minutes
        return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h"

    @property
    def half_label(self) -> str:
        """How long ago the middle of the period was: "4 h ago"."""
        minutes = self.hours * 30
        if minutes < 120:
            return f"{minutes} min ago"
        if minutes < 48 * 60:
            return f"{minutes // 60} h ago"
        return f"{minutes // 1440} d {minutes % 1440 // 60} h ago"

    def since(self, now: datetime) -> datetime:
        """The start of the first bucket: the last one is the bucket `now` falls in."""
        step = self.bucket_minutes * 60
        seconds = int(now.timestamp())
        current = datetime.fromtimestamp(seconds - seconds % step, UTC)
        return current - timedelta(minutes=self.bucket_minutes * (self.buckets - 1))

    def bucket_start(self, since: datetime, index: int) -> datetime:
        return since + timedelta(minutes=self.bucket_minutes * index)


PERIODS = (
    Period("1 h", 1, 5),
    Period("8 h", 8, 15),
    Period("24 h", 24, 60),
    Period("7 d", 24 * 7, 6 * 60),
)
DEFAULT_PERIOD = 1  # 8 h in 15-minute buckets, as the server's default
