"""The terminal is left as the app found it: its title, and its screen after SIGTERM.

- Importing textual-image asks the terminal whether it speaks Kitty's graphics protocol with an APC
  sequence; tmux takes any APC string for a pane title, so the pane was left titled
  `Gi=…,a=q,t=d,f=24;AAAA`. The title is pushed on the terminal's title stack (XTWINOPS 22) before
  the question and popped (23) after it, and again around the app's run, so whatever changes the
  title meanwhile is undone at exit. Terminals without a title stack ignore both.
- SIGTERM quits the app the way ctrl+q does (claims given back, held work sent), so Textual leaves
  the alternate screen and restores the terminal's modes; it used to kill the process in place.
"""

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App

SAVE_TITLE = b"\x1b[22;0t"
RESTORE_TITLE = b"\x1b[23;0t"


def _terminal_fd() -> int | None:
    for stream in (sys.__stderr__, sys.__stdout__):  # Textual draws on stderr
        try:
            if stream is not None and stream.isatty():
                return stream.fileno()
        except (ValueError, OSError):  # closed
            continue
    return None


@contextmanager
def title_kept() -> Iterator[None]:
    """The terminal's title (and icon name) as it was before, once this ends."""
    fd = _terminal_fd()
    if fd is None:
        yield
        return
    os.write(fd, SAVE_TITLE)
    try:
        yield
    finally:
        os.write(fd, RESTORE_TITLE)


@contextmanager
def quits_on_sigterm(app: App[Any]) -> Iterator[None]:
    """While the app runs, SIGTERM runs its quit action (ctrl+q); a second one exits at once."""

    def quit_app(signum: int, frame: FrameType | None) -> None:
        loop = app._loop
        if loop is None:  # not running yet, or any more
            raise SystemExit(128 + signum)
        signal.signal(signal.SIGTERM, lambda *_: loop.call_soon_threadsafe(app.exit, None, 128 + signum))
        action = getattr(app, "action_quit", None)
        if action is None:
            loop.call_soon_threadsafe(app.exit, None, 128 + signum)
        else:
            loop.call_soon_threadsafe(app.call_later, action)

    previous = signal.signal(signal.SIGTERM, quit_app)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
