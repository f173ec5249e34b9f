"""Task creations that arrive together are written together (SQLite).

On SQLite each unit of work runs on the event loop's thread, so a create-task request used to begin,
insert, move the queue's pending count and commit on its own. The count's row and the commit cost
about as much as the insert itself. Here a creation waits for the end of the loop's turn: every
creation that arrived in that turn is written in one transaction — each INSERT, one count update
per queue, one COMMIT — and only then does each request get its answer. If that transaction fails,
each creation is tried again in a transaction of its own, so one creation's failure is its own.
"""

import asyncio
from datetime import datetime
from typing import Any

from queuedesk.server.store import tasks
from queuedesk.server.store.database import Database
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.tasks import NewTask

Waiting = tuple[NewTask, "asyncio.Future[dict[str, Any]]"]


class Creations:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._waiting: list[Waiting] = []
        self._batches: set[asyncio.Task[None]] = set()  # kept until done (the loop holds tasks weakly)

    async def create(
        self, queue: QueueRecord, data: dict[str, Any], source: str, now: datetime
    ) -> dict[str, Any]:
        """The created task's row, once it is committed."""
        if self._db.dialect != "sqlite":  # units of work there are truly concurrent: no batching
            return await self._db.write(tasks.create_task, queue, data, source, now)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting.append((NewTask(queue, data, source, now), answer))
        if len(self._waiting) == 1:  # the first of this turn: write them all once the turn is over
            batch = asyncio.get_running_loop().create_task(self._write())
            self._batches.add(batch)
            batch.add_done_callback(self._batches.discard)
        return await answer

    async def _write(self) -> None:
        waiting, self._waiting = self._waiting, []
        try:
            try:
                rows = await self._db.write(tasks.create_tasks, [new for new, _ in waiting])
            except Exception as exc:
                if len(waiting) == 1:
                    _settle(waiting[0][1], exc)
                else:  # nothing was written: each on its own, so that only the failing one fails
                    await self._one_by_one(waiting)
                return
            for (_, answer), row in zip(waiting, rows, strict=True):
                _settle(answer, row)
        finally:
            for _, answer in waiting:  # cancelled itself (the server stopping): nobody waits for ever
                if not answer.done():
                    answer.cancel()

    async def _one_by_one(self, waiting: list[Waiting]) -> None:
        for new, answer in waiting:
            try:
                row = await self._db.write(tasks.create_task, *new)
            except Exception as exc:
                _settle(answer, exc)
            else:
                _settle(answer, row)


def _settle(answer: "asyncio.Future[dict[str, Any]]", outcome: dict[str, Any] | Exception) -> None:
    """The answer for a request still waiting (one that went away has cancelled its own)."""
    if answer.done():
        return
    if isinstance(outcome, Exception):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)
