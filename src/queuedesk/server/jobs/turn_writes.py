"""Claims and completions that arrive together are written together (SQLite).

On SQLite every unit of work runs on the event loop's thread, and a worker's claim or completion
used to begin, do its few statements and commit on its own: the BEGIN and the COMMIT (which writes
every page the unit touched to the WAL: the task, its indexes, the queue's counters and, for a
completion, a row in each of the stats rollups) cost more than the unit's own statements. Here a
unit waits for the end of the loop's turn; every unit that arrived in that turn runs, in arrival
order, in one transaction — each in a savepoint of its own — and only once that transaction has
committed does each request get its answer.

Each unit still sees the ones before it, as it would have in a transaction of its own one after
the other, so nothing a unit guarantees changes (a task is handed out once and completed once, the
review draw, the event and the counts commit with their completion or not at all). A unit refused
by the rules of work (`DomainError`) rolls back to its savepoint: only its own statements are
undone, and its request gets its refusal. Any other failure rolls the whole transaction back and
each unit is tried again in a transaction of its own, so that one unit's failure stays its own.
PostgreSQL runs units truly side by side: each keeps its own transaction there.
"""

import asyncio
from collections.abc import Callable
from typing import Any, NamedTuple

from sqlalchemy import Connection

from queuedesk.server.rules.refusals import DomainError
from queuedesk.server.store.database import Database


class _Unit(NamedTuple):
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    answer: "asyncio.Future[Any]"


class TurnWrites:
    """`write(fn, *args)` as `Database.write`, with every unit of one turn in one transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._waiting: list[_Unit] = []
        self._batches: set[asyncio.Task[None]] = set()  # kept until done (the loop holds tasks weakly)

    async def write(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(conn, *args)`'s result once its transaction has committed; its refusal, if refused."""
        if self._db.dialect != "sqlite":
            return await self._db.write(fn, *args)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        self._waiting.append(_Unit(fn, args, answer))
        if len(self._waiting) == 1:  # the first of this turn: write them all once the turn is over
            batch = loop.create_task(self._write())
            self._batches.add(batch)
            batch.add_done_callback(self._batches.discard)
        return await answer

    async def _write(self) -> None:
        arrived, self._waiting = self._waiting, []
        # A request gone before its turn ended (its client went away) has its unit left undone, as
        # it was when each unit ran at once in its own handler.
        waiting = [unit for unit in arrived if not unit.answer.done()]
        try:
            if not waiting:
                return
            if len(waiting) == 1:
                await self._alone(waiting[0])
                return
            try:
                outcomes = await self._db.write(each_in_a_savepoint, [(u.fn, u.args) for u in waiting])
            except Exception:  # nothing was written: each on its own, so that only a failing one fails
                for unit in waiting:
                    await self._alone(unit)
                return
            for unit, outcome in zip(waiting, outcomes, strict=True):
                _settle(unit.answer, outcome)
        finally:
            for unit in waiting:  # cancelled itself (the server stopping): nobody waits for ever
                if not unit.answer.done():
                    unit.answer.cancel()

    async def _alone(self, unit: _Unit) -> None:
        try:
            result = await self._db.write(unit.fn, *unit.args)
        except Exception as exc:
            _settle(unit.answer, exc)
        else:
            _settle(unit.answer, result)


class Refused(NamedTuple):
    refusal: DomainError


def each_in_a_savepoint(
    conn: Connection, units: list[tuple[Callable[..., Any], tuple[Any, ...]]]
) -> list[Any]:
    """Every unit in turn, each in a savepoint: its result, or `Refused` with what refused it (its
    statements undone). Any other exception leaves the transaction to be rolled back whole."""
    driver = conn.connection.dbapi_connection
    assert driver is not None
    outcomes: list[Any] = []
    for fn, args in units:
        driver.execute("SAVEPOINT unit")
        try:
            result = fn(conn, *args)
        except DomainError as refusal:
            driver.execute("ROLLBACK TO unit")
            driver.execute("RELEASE unit")
            outcomes.append(Refused(refusal))
            continue
        driver.execute("RELEASE unit")
        outcomes.append(result)
    return outcomes


def _settle(answer: "asyncio.Future[Any]", outcome: Any) -> None:
    """The answer for a request still waiting (one that went away has cancelled its own)."""
    if answer.done():
        return
    if isinstance(outcome, Refused):
        answer.set_exception(outcome.refusal)
    elif isinstance(outcome, BaseException):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)
