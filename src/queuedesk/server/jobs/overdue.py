"""B24's overdue job: notices the due dates that have passed, so that `n_overdue` counts them and each
task's `task.overdue` event is queued once (see rules/schedule.py).

Every server sharing a database runs it; the mark that makes "once" (the task's armed due date,
cleared by a conditional update in the transaction that queues the event) holds whichever server
gets there first. A pass notices up to BATCH tasks per transaction until none is left, then sleeps
until the next armed due date or EVERY, whichever comes first; a creation or a PATCH that sets a
date already passed wakes it at once.
"""

import asyncio
import contextlib
import logging
import os
from datetime import timedelta

from queuedesk.api.timestamps import utcnow
from queuedesk.server.jobs.dispatcher import Dispatcher
from queuedesk.server.rules import schedule
from queuedesk.server.store.database import Database

log = logging.getLogger("queuedesk.overdue")

BATCH = 250  # tasks noticed per transaction (short: on SQLite a write holds the loop)
EVERY = timedelta(seconds=20)  # at the longest between passes: n_overdue is at most a minute behind
EVERY_ENV = "QUEUEDESK_OVERDUE_EVERY"  # seconds, instead of EVERY: for tests
RETRY_AFTER = 5.0  # seconds after a pass failed (the database away)


class OverdueJob:
    def __init__(self, db: Database, dispatcher: Dispatcher) -> None:
        self.db = db
        self.dispatcher = dispatcher
        every = os.environ.get(EVERY_ENV)
        self.every = float(every) if every else EVERY.total_seconds()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="queuedesk-overdue")

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def run_once(self) -> int:
        """Notice every passed due date now; the events queued."""
        queued = 0
        while True:
            found, sent = await self.db.write(schedule.notice_due, utcnow(), BATCH)
            queued += sent
            if found < BATCH:
                return queued

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                if await self.run_once():
                    self.dispatcher.wake()
                wait = await self._until_next()
            except Exception:
                log.exception("the overdue job's pass failed; trying again in %.0f s", RETRY_AFTER)
                wait = RETRY_AFTER
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait)

    async def _until_next(self) -> float:
        """Seconds until the soonest armed due date (at most `every`)."""
        soonest = await self.db.read(schedule.next_due)
        if soonest is None:
            return self.every
        return min(self.every, max(0.05, (soonest - utcnow()).total_seconds()))
