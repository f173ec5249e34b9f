"""The filters of a completed-task listing, applied here when the server cannot, and the
once-only walk of newest-first pages."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from queuedesk.api import models
from queuedesk.api.client.results import Moment
from queuedesk.api.timestamps import format_timestamp


def _moment(value: Moment | None, name: str) -> datetime | date | None:
    """A date filter as a date or an aware date-time (naive ones are UTC); ValueError if unreadable."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        pass
    try:
        return _moment(datetime.fromisoformat(value.strip()), name)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not an ISO 8601 date or date-time") from None


MAX_PAGE = 1000


def _day(value: datetime | date) -> date:
    return value.astimezone(UTC).date() if isinstance(value, datetime) else value


def _on_the_wire(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    return format_timestamp(value) if isinstance(value, datetime) else value.isoformat()


@dataclass(frozen=True)
class Wanted:
    """The filters of a completed-task listing, as a QueueDesk server takes them or applied here."""

    completed_by: str | None = None
    start: datetime | date | None = None
    end: datetime | date | None = None

    @classmethod
    def of(cls, completed_by: str | None, start_date: Moment | None, end_date: Moment | None) -> "Wanted":
        return cls(completed_by or None, _moment(start_date, "start_date"), _moment(end_date, "end_date"))

    @property
    def any(self) -> bool:
        return self.completed_by is not None or self.start is not None or self.end is not None

    def params(self, on_server: bool, bound: datetime | None) -> dict[str, str | None]:
        if on_server:
            end = bound or self.end
            return {
                "completed_by": self.completed_by,
                "start_date": _on_the_wire(self.start),
                "end_date": _on_the_wire(end),
            }
        # The original service answers 500 to a date-time and ignores completed_by: it gets plain
        # days, a day wider on each side in case its days are not UTC's, and the rest is done here.
        return {
            "start_date": _on_the_wire(_day(self.start) - timedelta(days=1)) if self.start else None,
            "end_date": _on_the_wire(_day(self.end) + timedelta(days=1)) if self.end else None,
        }

    def matches(self, task: models.Task) -> bool:
        if (
            self.completed_by is not None
            and (task.completed_by or "").casefold() != self.completed_by.casefold()
        ):
            return False
        at = task.completed_at
        if at is None:
            return self.start is None and self.end is None
        return _not_before(at, self.start) and _not_after(at, self.end)


def _not_before(at: datetime, start: datetime | date | None) -> bool:
    if start is None:
        return True
    return at >= start if isinstance(start, datetime) else _day(at) >= start


def _not_after(at: datetime, end: datetime | date | None) -> bool:
    if end is None:
        return True
    return at <= end if isinstance(end, datetime) else _day(at) <= end


class Unseen:
    """Which tasks of a newest-first walk come for the first time.

    Offset paging repeats a task when newer completions push the list down between two pages. A
    repeat is never older than the oldest task already passed, so only the ids at that one moment
    need remembering: memory stays flat however many tasks the walk meets.
    """

    def __init__(self) -> None:
        self.oldest: datetime | None = None
        self.ids_at_oldest: set[int] = set()

    def first_time(self, task: models.Task) -> bool:
        at = task.completed_at
        if at is None:
            return True
        if self.oldest is None or at < self.oldest:
            self.oldest, self.ids_at_oldest = at, {task.id}
            return True
        if at > self.oldest or task.id in self.ids_at_oldest:
            return False
        self.ids_at_oldest.add(task.id)
        return True
