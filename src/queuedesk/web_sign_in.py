"""`queuedesk web`'s sign-in state: the sessions' cookies and the limit on guesses.

A browser that gave the secret (the key in the printed address, or `--password`) gets a cookie of
its own, a random token: never the secret, so a cookie seen in a proxy's log or a browser's store
does not give the password away, and tokens can be counted and dropped.

Guesses are limited per client: after `FREE_GUESSES` wrong answers in a row, each further attempt
must wait twice as long as the last (1 s, 2 s, 4 s… up to `LONGEST_WAIT`), and until then even the
right answer is refused (429) unchecked. A right answer clears the count. Tables are bounded: the
oldest entries go first.
"""

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FREE_GUESSES = 5
FIRST_WAIT = 1.0  # seconds after the first guess beyond the free ones
LONGEST_WAIT = 300.0
MAX_CLIENTS = 10_000  # clients whose wrong guesses are remembered
MAX_SESSIONS = 1_000  # cookies remembered (signed-in browsers)


@dataclass
class _Guesses:
    wrong: int = 0
    next_allowed: float = 0.0


class GuessLimit:
    """Wrong answers per client, and how long a client must wait before the next one counts."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._clients: OrderedDict[str, _Guesses] = OrderedDict()

    def wait(self, client: str) -> float:
        """Seconds `client` must wait before a guess is checked (0: now)."""
        found = self._clients.get(client)
        return 0.0 if found is None else max(0.0, found.next_allowed - self.clock())

    def wrong(self, client: str) -> None:
        found = self._clients.pop(client, None) or _Guesses()
        found.wrong += 1
        beyond = found.wrong - FREE_GUESSES
        if beyond >= 0:
            found.next_allowed = self.clock() + min(LONGEST_WAIT, FIRST_WAIT * 2**beyond)
        self._clients[client] = found
        while len(self._clients) > MAX_CLIENTS:
            self._clients.popitem(last=False)

    def right(self, client: str) -> None:
        self._clients.pop(client, None)


class SessionTokens:
    """The cookies handed to signed-in browsers: random, new at each sign-in, bounded in number."""

    def __init__(self) -> None:
        self._tokens: OrderedDict[str, None] = OrderedDict()

    def new(self) -> str:
        token = secrets.token_urlsafe(32)
        self._tokens[token] = None
        while len(self._tokens) > MAX_SESSIONS:
            self._tokens.popitem(last=False)
        return token

    def valid(self, token: str | None) -> bool:
        return bool(token) and token in self._tokens
