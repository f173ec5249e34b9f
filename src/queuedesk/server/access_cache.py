"""What authorization read about API keys and queues, kept while the access version stands still.

Every request still reads the access version (one primary-key lookup); when it moved — a key
revoked by `queuedesk admin-keys` or by an admin through another process, a queue changed by any server — everything kept
here is dropped before it can be used, so a revocation takes effect on the very next request.
Misses (unknown keys, queues that do not exist) are never kept.

On SQLite the version read is also kept for the rest of the event loop's turn it was read in: the
requests handled later in that turn had all arrived before it was read, so a version read after
they arrived serves them as well as one of their own would (a revocation answered in that turn is
concurrent with them). On a loaded server that is one read for the many requests of a turn.
"""

import asyncio

from queuedesk.server.store.records import Principal, QueueRecord

DEFAULT_LIMIT = 10_000


class AccessCache:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.version: int | None = None
        self._principals: dict[str, Principal] = {}
        self._queues: dict[tuple[int, int], QueueRecord] = {}
        self.version_this_turn: int | None = None

    def keep_for_this_turn(self, version: int) -> None:
        """`version_this_turn` is `version` until the event loop's next turn (read it within the
        turn it was read in, never across an await that yields)."""
        self.version_this_turn = version
        asyncio.get_running_loop().call_soon(self._turn_ended)

    def _turn_ended(self) -> None:
        self.version_this_turn = None

    def sync(self, version: int) -> None:
        """Forget everything unless it was read at `version`, the access version now."""
        if version != self.version:
            self._principals.clear()
            self._queues.clear()
            self.version = version

    def principal(self, key_hash: str) -> Principal | None:
        return self._principals.get(key_hash)

    def queue(self, organization_id: int, queue_id: int) -> QueueRecord | None:
        return self._queues.get((organization_id, queue_id))

    def remember(self, version: int, key_hash: str, principal: Principal, queue: QueueRecord | None) -> None:
        """Keep what was read at `version`, if that is still the version the cache holds."""
        if version != self.version:
            return
        if len(self._principals) >= self.limit or len(self._queues) >= self.limit:
            self._principals.clear()
            self._queues.clear()
        self._principals[key_hash] = principal
        if queue is not None:
            self._queues[(queue.organization_id, queue.id)] = queue
