"""When each key was last used and its user last seen, recorded at most once a minute per key.

A write on every request would cost more than the request itself, so each process remembers when
it last recorded each key and writes again only once that is a minute old. The columns written are
ones the access-version triggers ignore, so recording a use never empties any process's cache.

While a long write runs (on SQLite another organization's import commit, seconds for a million
rows, which every other write waits for) the request does not wait for the use to be written: it
is written once the long write is done.
"""

import asyncio
import logging
import time
from datetime import datetime

from queuedesk.api.timestamps import utcnow
from queuedesk.server.store import users
from queuedesk.server.store.database import Database
from queuedesk.server.store.records import Principal
from queuedesk.server.store.types import to_micros

INTERVAL_SECONDS = 60.0
log = logging.getLogger("queuedesk.server")
DEFAULT_LIMIT = 100_000  # keys remembered; past that the memory starts over (a few extra writes)


class UsageRecorder:
    def __init__(self, interval: float = INTERVAL_SECONDS, limit: int = DEFAULT_LIMIT) -> None:
        self.interval = interval
        self.limit = limit
        self._recorded: dict[int, float] = {}  # key id -> monotonic time of its last write
        self._writing: set[asyncio.Task[None]] = set()

    def due(self, key_id: int, now: float) -> bool:
        """Whether the key's use should be written now; if so, it counts as written."""
        last = self._recorded.get(key_id)
        if last is not None and now - last < self.interval:
            return False
        if len(self._recorded) >= self.limit:
            self._recorded.clear()
        self._recorded[key_id] = now
        return True

    def due_for(self, principal: Principal) -> bool:
        """Whether the principal's key use should be written now (then `record` it)."""
        return bool(principal.key_id) and self.due(principal.key_id, time.monotonic())

    async def record(self, db: Database, principal: Principal) -> None:
        if db.writes_wait():
            self._record_later(db, principal)
        else:
            await db.write(users.record_use, principal.key_id, principal.user_id, to_micros(utcnow()))

    def _record_later(self, db: Database, principal: Principal) -> None:
        task = asyncio.get_running_loop().create_task(self._record_after(db, principal, utcnow()))
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def _record_after(self, db: Database, principal: Principal, at: datetime) -> None:
        try:
            await db.write(users.record_use, principal.key_id, principal.user_id, to_micros(at))
        except Exception:  # a use not recorded is written again with the key's next request
            self._recorded.pop(principal.key_id, None)
            log.warning("could not record the use of key %s", principal.key_id, exc_info=True)

    async def finish(self) -> None:
        """Wait for the uses still being written (the server is stopping)."""
        if self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)
