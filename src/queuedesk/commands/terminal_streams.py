"""What a client command prints to a terminal goes through the display rule (api/terminal_text.py).

Every line a command prints may hold text from the server (names, task data, a receiver's error):
while a command runs, standard output and standard error, where they are terminals, are wrapped so
that every write shows control characters as symbols. Where they are files or pipes, nothing is
wrapped: a CSV or JSON-lines export to a file stays byte-exact.

Rich writes its own escape sequences (bold headers, the progress bar), so a Rich console is given
the terminal underneath (`terminal_of`) and only literal, already-shown `Text`. Every command's Rich
console is made by `console()`: one whose reader has gone (`| head`) raises BrokenPipeError like
any other write, which `queuedesk` ends quietly (cli.main), where Rich's own would exit with 1.
"""

import functools
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    from rich.console import Console

from queuedesk.api.terminal_text import shown


class ShownStream(io.TextIOBase):
    """A terminal's text stream that writes every string by the display rule."""

    def __init__(self, terminal: TextIO) -> None:
        super().__init__()
        self.terminal = terminal

    def write(self, text: str) -> int:
        self.terminal.write(shown(text))
        return len(text)

    def flush(self) -> None:
        self.terminal.flush()

    def isatty(self) -> bool:
        return self.terminal.isatty()

    def fileno(self) -> int:
        return self.terminal.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.terminal.encoding

    def __getattr__(self, name: str) -> Any:
        return getattr(self.terminal, name)


def terminal_of(stream: TextIO) -> TextIO:
    """The stream under a `ShownStream`, for a writer that applies the rule itself (Rich, given
    `Text`); any other stream as it is."""
    return stream.terminal if isinstance(stream, ShownStream) else stream


def console(**options: Any) -> "Console":
    """A Rich console for a command's output (Rich's own options)."""
    return _console_class()(**options)


@functools.cache
def _console_class() -> "type[Console]":
    from rich.console import Console

    class CommandConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return CommandConsole


def _shown_if_terminal(stream: TextIO) -> TextIO:
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced by something without isatty
        return stream
    return cast(TextIO, ShownStream(stream)) if terminal and not isinstance(stream, ShownStream) else stream


@contextmanager
def shown_streams() -> Iterator[None]:
    """Standard output and error, where they are terminals, written by the display rule meanwhile."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _shown_if_terminal(sys.stdout), _shown_if_terminal(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, ShownStream):
                stream.flush()
        sys.stdout, sys.stderr = saved
