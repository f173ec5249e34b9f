"""Which requests are tried again, and after how long."""

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from queuedesk.api.numbers import plain_int

RETRY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of idempotent requests only: the server's `Retry-After` when it sends one (at most
    `max_retry_after` seconds), else exponential backoff with full jitter."""

    attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0
    max_retry_after: float = 30.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        asked = retry_after_seconds(retry_after) if retry_after is not None else None
        if asked is not None:
            return min(asked, self.max_retry_after)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


def retry_after_seconds(value: str, now: datetime | None = None) -> float | None:
    """A `Retry-After` header's wait in seconds: a number of seconds or an HTTP date; None when it
    is neither."""
    seconds = plain_int(value)
    if seconds is not None:
        return float(seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


NO_RETRY = RetryPolicy(attempts=1)
DEFAULT_RETRY = RetryPolicy()
