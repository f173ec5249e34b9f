"""Time for the app: every time shown and every timer goes through a `Clock`.

The app runs on `SystemClock`. Tests use `ManualClock`: time stands still until the test advances
it, and timers fire exactly when it is advanced past them, so no test waits in real time and every
snapshot shows the same "updated 3 s ago".
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Protocol

from textual.timer import Timer
from textual.widget import Widget


class Cancellable(Protocol):
    def stop(self) -> None: ...


class Clock(Protocol):
    zone: tzinfo | None
    """The zone times are shown in and days are read in: None is the system's local zone."""

    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    def call_later(self, owner: Widget, delay: float, callback: Callable[[], object]) -> Cancellable:
        """Run `callback` once after `delay` seconds, on `owner`'s timer (stopped with it)."""
        ...


SHORTEST_TIMER = 0.001  # seconds


def local(clock: Clock, moment: datetime) -> datetime:
    """`moment` in the zone the clock shows times in."""
    return moment.astimezone(clock.zone)


def zone_name(clock: Clock) -> str:
    """The shown zone's short name now ("UTC", "CET", "EDT"); its offset when it has no name."""
    return local(clock, clock.now()).strftime("%Z") or local(clock, clock.now()).strftime("UTC%z")


def day_start(clock: Clock, day: date) -> datetime:
    """Midnight at the start of `day` in the shown zone, as an aware date-time."""
    moment = datetime.combine(day, time.min)
    return moment.replace(tzinfo=clock.zone) if clock.zone is not None else moment.astimezone()


def filter_day(moment: datetime) -> str:
    """A filter's bound as typed: the day (the filter takes whole days), never a Python repr."""
    return moment.date().isoformat()


def typed_day(text: str) -> tuple[date | None, bool]:
    """The day typed as YYYY-MM-DD (None when nothing is), and whether what was typed is a day at all."""
    if not text:
        return None, True
    try:
        return date.fromisoformat(text), True
    except ValueError:
        return None, False


def day_end(clock: Clock, day: date) -> datetime:
    """The last microsecond of `day` in the shown zone (a DST day is 23 or 25 hours long)."""
    return day_start(clock, day + timedelta(days=1)) - timedelta(microseconds=1)


class SystemClock:
    def __init__(self, *, utc: bool = False) -> None:
        self.zone: tzinfo | None = UTC if utc else None

    def now(self) -> datetime:
        return datetime.now(UTC)

    def call_later(self, owner: Widget, delay: float, callback: Callable[[], object]) -> Timer:
        # Textual's timer of 0 s never fires (it divides by its interval and its task ends silently).
        return owner.set_timer(max(delay, SHORTEST_TIMER), callback)


@dataclass
class _Pending:
    due: datetime
    callback: Callable[[], object]
    owner: Widget
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class ManualClock:
    """A clock that moves only when told to (tests, snapshots, benchmarks)."""

    current: datetime = field(default_factory=lambda: datetime(2026, 11, 23, 9, 30, tzinfo=UTC))
    zone: tzinfo | None = UTC  # the pictures' zone, whatever the machine's
    _pending: list[_Pending] = field(default_factory=list)

    def now(self) -> datetime:
        return self.current

    def call_later(self, owner: Widget, delay: float, callback: Callable[[], object]) -> _Pending:
        pending = _Pending(self.current + timedelta(seconds=delay), callback, owner)
        self._pending.append(pending)
        return pending

    def advance(self, seconds: float) -> None:
        """Move time forward, running every timer that falls due, in order (also ones they start)."""
        target = self.current + timedelta(seconds=seconds)
        while True:
            due = [p for p in self._pending if not p.stopped and p.due <= target]
            if not due:
                break
            first = min(due, key=lambda p: p.due)
            self._pending.remove(first)
            self.current = max(self.current, first.due)
            if first.owner.is_attached:
                first.callback()
        self.current = target

    @property
    def waiting(self) -> int:
        return sum(1 for p in self._pending if not p.stopped)


def seconds_ago(then: datetime | None, now: datetime) -> str:
    if then is None:
        return "never"
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 48 * 3600:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} d ago"


def duration(seconds: float) -> str:
    """A short length of time: 42 s, 3 min 05 s, 2 h 10 min."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
