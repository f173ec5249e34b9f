"""The last keys the app read from the terminal: whether a key was typed twice in a row, quickly."""

from dataclasses import dataclass

# The keys of one read of the terminal are made into events within this long of the first (the input
# thread may give the interpreter to the main thread between two of them).
ONE_READ_SECONDS = 0.03


@dataclass
class KeysRead:
    """The last two keys the app read from the terminal, in order, each with the time its event was made
    (`Message.time`, monotonic seconds: keys read together after a stall share it)."""

    last: tuple[str, float] | None = None
    before: tuple[str, float] | None = None
    continued_at: float | None = None  # when the app was last continued after being stopped
    waiting_at_continue = False  # the terminal held keys typed while the app was stopped
    first_read_after_continue: float | None = None  # when the first of them was read

    def continued(self, at: float, *, keys_waiting: bool = True) -> None:
        """The app was stopped (SIGSTOP: a debugger, a supervisor, a test) and continued at `at`;
        `keys_waiting`: the terminal held input typed meanwhile (they are read in the next read)."""
        self.continued_at = at
        self.waiting_at_continue = keys_waiting
        self.first_read_after_continue = None

    def typed_by(self, read_at: float) -> float:
        """When a key read at `read_at` was typed at the latest: the keys of the first read after a
        continue were typed while the app was stopped, however late its input thread stamped them
        (on SIGCONT the main thread may paint the next task before that thread reads them)."""
        first, continued = self.first_read_after_continue, self.continued_at
        if first is not None and continued is not None and first <= read_at <= first + ONE_READ_SECONDS:
            return continued
        return read_at

    def stopped_between(self) -> bool:
        """The app was stopped between reading the key before and the key just read: keys typed
        during the stop are read when it ends, so how far apart the two were typed is not known."""
        if self.last is None or self.before is None or self.continued_at is None:
            return False
        return self.before[1] <= self.continued_at <= self.last[1]

    def read(self, key: str, at: float) -> None:
        self.before, self.last = self.last, (key, at)
        continued = self.continued_at
        if self.waiting_at_continue and continued is not None and at >= continued:
            self.waiting_at_continue = False
            self.first_read_after_continue = at

    def read_within(self, seconds: float, of: float) -> bool:
        """The key just read was read less than `seconds` after the moment `of` (same clock)."""
        return self.last is not None and self.last[1] - of < seconds

    def repeated(self, key: str) -> bool:
        """The key just read is `key` again, with no other key between."""
        return self.last is not None and self.before is not None and self.last[0] == self.before[0] == key

    def repeated_within(self, key: str, seconds: float) -> bool:
        """The key just read is `key` again, read less than `seconds` after the one before it."""
        if self.last is None or self.before is None or self.last[0] != key or self.before[0] != key:
            return False
        return self.last[1] - self.before[1] < seconds


def key_time() -> float:
    """Now, on the clock key events carry (`Message.time`), read from a message made for the purpose."""
    from textual.message import Message

    return Message().time
