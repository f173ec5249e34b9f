"""Timestamps on the wire: ISO 8601 UTC with microseconds and a `Z` suffix."""

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """`2026-11-21T04:38:42.564772Z` — always six fractional digits, always UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
