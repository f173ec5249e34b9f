"""Rate limits of one server process: requests per API key and per user, and failed authentications
per client network.

All are token buckets. A key's bucket holds twice `rate` requests and refills at `rate` per second;
a user's, over all their keys, `USER_FACTOR` times as much, so that minting keys does not multiply
what one user may send. Failures are counted per IPv4 address and per IPv6 /64 (one host usually
holds a whole /64: counted per address it would have 2^64 buckets); a network's bucket of failures
holds five times its rate (by default 50) and refills at that rate (10 per second). While a
network has no
failures left, a request from it is refused with 429 *before* its key is looked up, unless that key
has already authenticated from the same address: so guessing keys from one address goes at most as
fast as its failures refill, the guesses beyond it cost the database nothing, and people already
working from that address (a shared office address, a proxy) are not locked out by the guesser.

The limits live in the process's memory: several processes each count on their own.
"""

import functools
import ipaddress
import math
import time
from collections.abc import Hashable, Mapping
from typing import Any

from queuedesk.server.http.http_errors import ServiceError, error

FAILURE_BURST_SECONDS = 5  # an address's bucket of failures holds this many seconds of its rate
KEYS_PER_ADDRESS = 32  # keys remembered as good per address (the most recent)
MAX_ENTRIES = 100_000  # buckets (or addresses) remembered before the idle ones are forgotten
USER_FACTOR = 2  # a user's limit over all their keys, in multiples of one key's
IPV6_NETWORK = 64  # failed authentications are counted per this prefix of an IPv6 address
NETWORKS_CACHED = 4096  # client addresses whose network is remembered


class Buckets:
    """Token buckets by key, in memory; a key not seen holds a full bucket."""

    def __init__(self, rate: float, burst: float, max_entries: int = MAX_ENTRIES) -> None:
        self.rate = rate
        self.burst = burst
        self._max = max_entries
        self._state: dict[Hashable, tuple[float, float]] = {}  # key: (tokens, when counted)

    def _tokens(self, key: Hashable, now: float) -> float:
        state = self._state.get(key)
        if state is None:
            return self.burst
        tokens, then = state
        return min(self.burst, tokens + (now - then) * self.rate)

    def wait(self, key: Hashable, now: float) -> float:
        """Seconds until `key` has a token (0 when it has one now); takes nothing."""
        if key not in self._state:  # a full bucket: the usual case, without the arithmetic
            return 0.0
        tokens = self._tokens(key, now)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def counts(self, key: Hashable) -> bool:
        """Whether `key` has taken a token not yet known to be back (a bucket not known full)."""
        return key in self._state

    def take(self, key: Hashable, now: float) -> float:
        """Take a token: 0 when there was one, else the seconds until there is (nothing taken)."""
        tokens = self._tokens(key, now)
        if tokens < 1:
            return (1 - tokens) / self.rate
        if len(self._state) >= self._max and key not in self._state:
            self._forget_full(now)
        self._state[key] = (tokens - 1, now)
        return 0.0

    def _forget_full(self, now: float) -> None:
        """A full bucket is the same as none: forget those, else the oldest half."""
        full = [key for key in self._state if self._tokens(key, now) >= self.burst]
        for key in full:
            del self._state[key]
        if len(self._state) >= self._max:
            for key in list(self._state)[: self._max // 2]:
                del self._state[key]


def too_many(message: str, wait: float) -> ServiceError:
    refusal = error(429, "rate_limited", message)
    refusal.headers["Retry-After"] = str(max(1, math.ceil(wait)))
    return refusal


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's address: the peer, or what a trusted proxy's X-Forwarded-For names (uvicorn
    rewrites `client` for the addresses `--forwarded-allow-ips` trusts)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


@functools.lru_cache(maxsize=NETWORKS_CACHED)
def failure_network(address: str) -> str:
    """Where failed authentications are counted: the IPv4 address, or the IPv6 address's /64 (an
    IPv4-mapped IPv6 address counts as its IPv4 one). Cached: parsing an address costs more than
    the rest of the limits' work on a request."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_NETWORK), strict=False))
    return str(parsed)


class RateLimits:
    """One process's limits. `admit` before a key is looked up, `settle` after."""

    def __init__(
        self, per_key: int | None, failures_per_address: int = 10, clock: Any = time.monotonic
    ) -> None:
        self._keys = Buckets(per_key, 2 * per_key) if per_key else None
        per_user = USER_FACTOR * per_key if per_key else 0
        self._users = Buckets(per_user, 2 * per_user) if per_user else None
        self._failures = Buckets(failures_per_address, FAILURE_BURST_SECONDS * failures_per_address)
        self._good: dict[str, dict[str, None]] = {}  # address: key hashes that authenticated from it
        self._clock = clock

    def admit(self, address: str, key_hash: str) -> None:
        """429 when the address's network has used up its failures and the key is not known good
        from there."""
        address = failure_network(address)
        if not self._failures.counts(address):  # no failure from there: nothing to work out
            return
        wait = self._failures.wait(address, self._clock())
        if wait and key_hash not in self._good.get(address, ()):
            raise too_many(
                "Too many failed authentications from this address; wait before trying again.", wait
            )

    def settle(self, address: str, key_hash: str, user_id: int | None) -> None:
        """Count a failure against the address's network (`user_id` None: not authenticated); or
        remember the key as good there and spend one of its requests and one of its user's (429
        when either has none left)."""
        address = failure_network(address)
        if user_id is None:
            self._failures.take(address, self._clock())
            return
        self._remember(address, key_hash)
        if self._keys is None and self._users is None:  # the limits are off: no buckets to count
            return
        now = self._clock()
        if self._keys is not None and (wait := self._keys.wait(key_hash, now)):
            raise too_many(
                f"Too many requests with this API key (at most {self._keys.rate:g} a second, "
                f"bursts of {self._keys.burst:g}); slow down.",
                wait,
            )
        if self._users is not None and (wait := self._users.take(user_id, now)):
            raise too_many(
                f"Too many requests from this user over all their API keys (at most "
                f"{self._users.rate:g} a second, bursts of {self._users.burst:g}); slow down.",
                wait,
            )
        if self._keys is not None:
            self._keys.take(key_hash, now)

    def _remember(self, address: str, key_hash: str) -> None:
        keys = self._good.get(address)
        if keys is None:
            if len(self._good) >= MAX_ENTRIES:
                for old in list(self._good)[: MAX_ENTRIES // 2]:
                    del self._good[old]
            keys = self._good[address] = {}
        elif key_hash in keys:
            return
        keys[key_hash] = None
        if len(keys) > KEYS_PER_ADDRESS:
            del keys[next(iter(keys))]
