"""Timestamps on the wire: ISO 8601 UTC with microseconds and a `Z` suffix."""

import time
from datetime import UTC, datetime
from functools import lru_cache


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """`2026-11-21T04:38:42.564772Z` — always six fractional digits, always UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@lru_cache(maxsize=65536)
def _second(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def format_micros(micros: int) -> str:
    """The same form from microseconds since the epoch, without making a datetime (hot paths)."""
    seconds, fraction = divmod(micros, 1_000_000)
    return f"{_second(seconds)}.{fraction:06d}Z"
