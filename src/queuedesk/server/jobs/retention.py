"""Pruning old delivery logs and completed tasks without holding up a running server.

Each batch is one short write transaction (1,000 rows by default) followed by a pause at least as
long as the batch took, so the server always gets the database for at least half the time: on
SQLite a write holds the whole file, and a request that must write waits for the batch to end.
Finding the next batch is a read (in SQLite's reader processes inside a server), which blocks nobody.

`DeliveryRetention` runs the delivery prune inside `queuedesk serve --retain-deliveries`: first a
minute after the start, then daily.
"""

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from queuedesk.api.timestamps import utcnow
from queuedesk.server.store import audit, retention
from queuedesk.server.store.database import Database

log = logging.getLogger("queuedesk.retention")

BATCH = 1000
MIN_PAUSE = 0.01  # seconds between batches, at the least
EVERY = timedelta(days=1)
FIRST_RUN_AFTER = timedelta(minutes=1)
# Seconds between runs (and before the first), instead of a day: for tests.
EVERY_ENV = "QUEUEDESK_RETENTION_EVERY"


@dataclass
class Pruned:
    rows: int = 0
    attempts: int = 0  # deliveries' attempts removed with them
    batches: int = 0
    seconds: float = 0.0
    held: float = 0.0  # seconds inside write transactions, all batches together
    longest: float = 0.0  # the longest batch's write transaction, in seconds

    def batch_took(self, seconds: float) -> None:
        self.batches += 1
        self.held += seconds
        self.longest = max(self.longest, seconds)

    @property
    def rate(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else 0.0


Progress = Callable[[Pruned], None]


async def _pause(batch_seconds: float) -> None:
    await asyncio.sleep(max(MIN_PAUSE, batch_seconds))


async def _batch_done(
    done: "Pruned", started: float, removed: int, took: float, progress: "Progress | None"
) -> None:
    """Count one batch, say so, and pause as long as it took (others' requests go between)."""
    done.rows += removed
    done.batch_took(took)
    done.seconds = time.perf_counter() - started
    if progress is not None:
        progress(done)
    await _pause(took)


async def prune_deliveries(
    db: Database, cutoff: datetime, *, batch: int = BATCH, progress: Progress | None = None
) -> Pruned:
    """Remove finished deliveries older than `cutoff`, with their attempts, batch by batch."""
    done = Pruned()
    started = time.perf_counter()
    after = 0
    while ids := await db.scan(retention.old_deliveries, cutoff, after, batch):
        began = time.perf_counter()
        removed, attempts = await db.write(retention.delete_deliveries, after, ids[-1], cutoff)
        took = time.perf_counter() - began
        done.attempts += attempts
        after = ids[-1]
        await _batch_done(done, started, removed, took, progress)
    done.seconds = time.perf_counter() - started
    return done


async def prune_completed(
    db: Database, cutoff: datetime, *, batch: int = BATCH, progress: Progress | None = None
) -> Pruned:
    """Remove tasks completed before `cutoff`, queue by queue, each batch with its counter."""
    done = Pruned()
    started = time.perf_counter()
    for queue_id in await db.scan(retention.queues_with_old_completions, cutoff):
        removed = batch
        while removed == batch:  # a short batch was the queue's last
            began = time.perf_counter()
            removed = await db.write(retention.delete_completed, queue_id, cutoff, batch)
            took = time.perf_counter() - began
            await _batch_done(done, started, removed, took, progress)
    done.seconds = time.perf_counter() - started
    return done


async def prune_audit(
    db: Database, cutoff: datetime, *, batch: int = BATCH, progress: Progress | None = None
) -> Pruned:
    """Remove audit events written before `cutoff`, batch by batch, oldest first."""
    done = Pruned()
    started = time.perf_counter()
    after = 0
    traces: dict[int, audit.PruneTrace] = {}  # each organization's `audit.prune` event of this prune
    now = utcnow()
    while ids := await db.scan(audit.old_events, cutoff, after, batch):
        began = time.perf_counter()
        removed, traces = await db.write(audit.delete_events, after, ids[-1], cutoff, traces, now)
        took = time.perf_counter() - began
        after = ids[-1]
        await _batch_done(done, started, removed, took, progress)
    done.seconds = time.perf_counter() - started
    return done


class DeliveryRetention:
    """The server's daily delivery prune, a background task beside the webhook dispatcher."""

    def __init__(self, db: Database, older_than: timedelta) -> None:
        self.db = db
        self.older_than = older_than
        every = os.environ.get(EVERY_ENV)
        self.every = timedelta(seconds=float(every)) if every else EVERY
        self.first_run_after = min(FIRST_RUN_AFTER, self.every)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="queuedesk-retention")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        await asyncio.sleep(self.first_run_after.total_seconds())
        while True:
            await self.run_once()
            await asyncio.sleep(self.every.total_seconds())

    async def run_once(self) -> None:
        cutoff = utcnow() - self.older_than
        try:
            pruned = await prune_deliveries(self.db, cutoff)
        except Exception:
            log.exception("retention: pruning the delivery log failed; trying again at the next run")
            return
        if pruned.rows:
            log.info(
                "retention: removed %d deliveries (%d attempts) created before %s in %d batches, %.1f s",
                pruned.rows,
                pruned.attempts,
                cutoff.strftime("%Y-%m-%d %H:%M UTC"),
                pruned.batches,
                pruned.seconds,
            )
