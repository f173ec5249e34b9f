"""Priority, due dates (B24) and reservations (B25) as the client reads, checks and says them.

Nothing here talks to a server: the command line and the app parse `--due +2h`, refuse a priority
out of range and say "due in 3 h" / "overdue 2 d" the same way. Every function takes the moment it
calls "now", so the app's clock (and the tests' fixed one) decides what is overdue.
"""

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from queuedesk.api.models import PRIORITY_MAX, PRIORITY_MIN, QUEUE_ORDERS
from queuedesk.api.numbers import plain_int
from queuedesk.api.timestamps import format_timestamp

# What a queue's `order` means, in one sentence each (the command line and the queue editor).
ORDER_MEANINGS = {
    "oldest": "higher priority first, then the earliest due date (tasks without one last), then the oldest",
    "least_confident": "higher priority first, then the task whose lowest suggestion score is lowest "
    "(tasks without a scored suggestion after), then the earliest due date, then the oldest",
}

# Words that clear a due date where one is typed.
NO_DUE = ("", "none", "null", "-")

_RELATIVE = re.compile(r"^([+-])\s*(\d{1,6})\s*(s|sec|m|min|h|d|w)$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def priority_problem(value: int) -> str | None:
    """Why `value` cannot be a task's priority, or None."""
    if not PRIORITY_MIN <= value <= PRIORITY_MAX:
        return f"a priority is a whole number from {PRIORITY_MIN} to {PRIORITY_MAX}, not {value}"
    return None


def parse_priority(text: str) -> int:
    """A priority typed as text; ValueError saying what to type."""
    said = text.strip()
    sign = -1 if said.startswith("-") else 1
    digits = plain_int(said[1:] if said[:1] in "+-" and said[1:2] != " " else said)
    value = None if digits is None else sign * digits
    if value is None:
        raise ValueError(
            f"a priority is a whole number from {PRIORITY_MIN} to {PRIORITY_MAX} (higher first), "
            f"not {text.strip()!r}"
        )
    if problem := priority_problem(value):
        raise ValueError(problem)
    return value


def parse_due(text: str, now: datetime) -> datetime | None:
    """A due date typed as text: an ISO 8601 date-time (UTC when it names no zone), a date (its
    midnight, UTC), a moment relative to `now` (`+30m`, `+2h`, `+1d`, `-1h`), or `none` (no due
    date: None). ValueError saying what to type."""
    said = text.strip()
    if said.lower() in NO_DUE:
        return None
    if match := _RELATIVE.match(said):
        sign, amount, unit = match.groups()
        seconds = int(amount) * _UNIT_SECONDS[unit.lower()]
        return now + timedelta(seconds=seconds if sign == "+" else -seconds)
    try:
        moment = datetime.fromisoformat(said.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        try:
            day = date.fromisoformat(said)
        except ValueError:
            raise ValueError(
                f"{said!r} is not a due date: give a time such as 2026-12-24T17:00Z, a date such as "
                "2026-12-24, a moment from now such as +30m, +2h or +1d, or none"
            ) from None
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def span_text(seconds: float) -> str:
    """A length of time in one short unit: "45 s", "12 min", "3 h", "2 d", "3 y"."""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    if seconds < 365 * 86400:
        return f"{int(seconds // 86400)} d"
    return f"{int(seconds // (365 * 86400))} y"


def is_overdue(due_at: datetime | None, now: datetime) -> bool:
    return due_at is not None and due_at <= now


def due_text(due_at: datetime | None, now: datetime) -> str:
    """ "due in 3 h", "overdue 2 d", "due now", or "" for no due date."""
    if due_at is None:
        return ""
    seconds = (due_at - now).total_seconds()
    if seconds <= 0:
        return "overdue " + span_text(seconds) if seconds <= -60 else "due now"
    return "due in " + span_text(seconds) if seconds >= 60 else "due now"


def short_due(due_at: datetime | None, now: datetime) -> str:
    """The due date for a narrow column: "in 3 h", "overdue 2 d", "now", or "" for none."""
    said = due_text(due_at, now)
    return said.removeprefix("due ") if said else ""


def priority_text(priority: int) -> str:
    """A priority as a column shows it: "" for the default 0, else signed ("+5", "-10")."""
    return "" if priority == 0 else f"{priority:+d}"


def order_problem(order: str) -> str | None:
    if order not in QUEUE_ORDERS:
        return f"a queue's order is one of {', '.join(QUEUE_ORDERS)}, not {order!r}"
    return None


def placement(
    priority: int | None = None, due_at: datetime | None = None, reserved_for: str | None = None
) -> dict[str, Any]:
    """The keys A1 and B8 take beside `data` for these (only those given)."""
    body: dict[str, Any] = {}
    if priority is not None:
        body["priority"] = priority
    if due_at is not None:
        body["due_at"] = format_timestamp(due_at)
    if reserved_for is not None:
        body["reserved_for"] = reserved_for
    return body


def features_for(entry: Mapping[str, Any]) -> list[str]:
    """The Part B sections a task entry (A1's or B8's body for one task) needs from the server."""
    needed = []
    if "gold" in entry:
        needed.append("B22")
    if "priority" in entry or "due_at" in entry:
        needed.append("B24")
    if "reserved_for" in entry:
        needed.append("B25")
    return needed
