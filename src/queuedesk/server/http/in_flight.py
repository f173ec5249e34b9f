"""Reads in flight per API key: how many answers one key may have the server working on at once.

Only reads (GET, HEAD) are counted: their answers are what a key can make large (pages of up to
4 MiB), while a write's answer is one object and its body is bounded on the way in, and an
integration that creates tasks over many connections at once is ordinary use. A key's read takes a slot once the key is known (after the rate limits) and gives it back when
its answer has been sent: for an answer larger than the transport's buffer, once the buffer is
back under its low-water mark (the client took the answer, or the connection was lost or cut off
by the send check), not when it was handed to the transport. So a key can make the server hold at most
`per_key` answers (each page at most 4 MiB) however many connections it opens, and a client that
never reads holds its slot until the send check cuts it off. The slot is given back in the ASGI
core's `finally`, on every path: an answer, an error, a client gone.

The counts live in the process's memory: several processes each count on their own.
"""

from collections.abc import Callable, MutableMapping
from typing import Any

from queuedesk.server.http.rate_limits import too_many

SLOT = "queuedesk.in_flight"  # the scope's key for the release of the request's slot
RETRY_AFTER_SECONDS = 1.0
READS = frozenset({"GET", "HEAD"})


class InFlight:
    """One process's count of requests in flight per key hash; `per_key` None: no cap."""

    def __init__(self, per_key: int | None) -> None:
        self.per_key = per_key
        self._counts: dict[str, int] = {}

    def enter(self, scope: MutableMapping[str, Any], key_hash: str) -> None:
        """Take a slot for the request (429 when the key holds them all); once per request."""
        if self.per_key is None or SLOT in scope or scope.get("method") not in READS:
            return
        count = self._counts.get(key_hash, 0)
        if count >= self.per_key:
            raise too_many(
                f"Too many requests in flight with this API key (at most {self.per_key} at once); "
                "wait for an answer before sending more.",
                RETRY_AFTER_SECONDS,
            )
        self._counts[key_hash] = count + 1
        scope[SLOT] = self._release(key_hash)

    def _release(self, key_hash: str) -> Callable[[], None]:
        def release() -> None:
            count = self._counts.pop(key_hash) - 1
            if count:
                self._counts[key_hash] = count

        return release

    def held(self, key_hash: str) -> int:
        return self._counts.get(key_hash, 0)


def release(scope: MutableMapping[str, Any]) -> None:
    """Give back the request's slot, if it took one."""
    slot: Callable[[], None] | None = scope.pop(SLOT, None)
    if slot is not None:
        slot()
