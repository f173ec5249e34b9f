"""Live refresh: poll, then schedule the next poll only after this one finished, so polls never overlap.

A slow or dead server never freezes typing (each poll is a worker) and never piles up requests.
The "updated N s ago" text and the staleness warning come from the same clock as the schedule.
"""

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.widget import Widget
from textual.worker import WorkType

from queuedesk.tui.clock import Cancellable, Clock, seconds_ago

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost

MISSED_BEFORE_STALE = 2


class Poller:
    def __init__(
        self,
        owner: Widget,
        host: "AppHost",
        clock: Clock,
        interval: float,
        fetch: Callable[[], Awaitable[None]],
        on_status: Callable[[], None],
    ) -> None:
        self.owner = owner
        self.host = host  # told when the server answered, and of the first failure of an outage
        self.clock = clock
        self.interval = interval
        self.fetch = fetch
        self.on_status = on_status
        self.paused = False
        self.running = False
        self.last_success: datetime | None = None
        self.last_error: BaseException | None = None
        self.failures = 0
        self.polls = 0  # refreshes that succeeded (the memory bench counts them)
        self._next: Cancellable | None = None
        self._ticker: Cancellable | None = None
        self._asked = False

    def start(self) -> None:
        self.poll_now()
        self._tick()

    def stop(self) -> None:
        for timer in (self._next, self._ticker):
            if timer is not None:
                timer.stop()
        self._next = self._ticker = None

    def poll_now(self, *, asked: bool = False) -> None:
        """`asked`: a person asked for it (r): a failure is said even in an outage already said."""
        if asked:
            self._asked = True
        if self.running:
            return
        if self._next is not None:
            self._next.stop()
            self._next = None
        self.running = True
        # The method, not `self._poll()`: a coroutine made here and never started (the worker
        # cancelled before its first step: the app quit, the screen left, a newer poll) was never
        # awaited, and Python warned so as the app ended. The worker makes it when it runs.
        poll: WorkType[None] = self._poll
        self.owner.run_worker(poll, exclusive=True, group="poll", exit_on_error=False)

    def toggle_pause(self) -> bool:
        self.paused = not self.paused
        if self.paused and self._next is not None:
            self._next.stop()
            self._next = None
        elif not self.paused:
            self.poll_now()
        self.on_status()
        return self.paused

    async def _poll(self) -> None:
        asked, self._asked = self._asked, False
        try:
            if isinstance(self.owner, Screen) and not self.owner.is_current:
                return  # a screen under another one: nobody looks at it, and its errors would be noise
            await self.fetch()
        except Exception as exc:
            self.failures += 1
            self.last_error = exc
            if self.failures == 1:
                self.owner.app.call_later(self.host.report, exc, doing="Refreshing")  # once per outage
            elif asked:  # r in an outage already said: the key answers, with what it found
                self.owner.notify(
                    f"Tried again: still no answer ({exc}). "
                    + (
                        "Nothing was read yet"
                        if self.last_success is None
                        else f"The view is as it was {seconds_ago(self.last_success, self.clock.now())}"
                    )
                    + f"; it is tried again every {self.interval:g} s.",
                    title="Still not answering",
                    severity="warning",
                    timeout=5,
                )
        else:
            if self.failures and getattr(self.last_error, "status", None) is None:
                # Only after an outage: a refusal (a 403 before a role change was seen) was an answer.
                self.owner.notify("The server answers again.", title="Back online", timeout=4)
            self.failures = 0
            self.polls += 1
            self.last_error = None
            self.last_success = self.clock.now()
            self.host.server_answered()
        finally:
            self.running = False
            if not self.paused and self.owner.is_attached:
                self._next = self.clock.call_later(self.owner, self.interval, self.poll_now)
            self.on_status()

    def _tick(self) -> None:
        self.on_status()
        if self.owner.is_attached:
            self._ticker = self.clock.call_later(self.owner, 1.0, self._tick)

    @property
    def stale(self) -> bool:
        if self.paused:
            return False
        if self.last_success is None:
            return self.failures > 0
        age = (self.clock.now() - self.last_success).total_seconds()
        return age > self.interval * (MISSED_BEFORE_STALE + 1) or self.failures >= MISSED_BEFORE_STALE

    def _why_stale(self) -> str:
        if not self.failures:
            return "late"
        status = getattr(self.last_error, "status", None)
        return f"refused ({status})" if status is not None else "not answering"  # it answers, with a no

    def status(self) -> str:
        every = f"every {self.interval:g} s"
        if self.paused:
            return f"paused (p resumes) · updated {seconds_ago(self.last_success, self.clock.now())}"
        updated = f"updated {seconds_ago(self.last_success, self.clock.now())}"
        if self.stale:  # the warning, not the interval, is the news (and must fit at 80 columns)
            return f"{updated} · {self._why_stale()}"
        return f"{every} · {updated}"
