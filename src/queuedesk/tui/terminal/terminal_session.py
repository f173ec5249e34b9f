"""The terminal is left as the app found it: its title, and its screen after SIGTERM (or SIGHUP).

- Importing textual-image asks the terminal whether it speaks Kitty's graphics protocol with an APC
  sequence; tmux takes any APC string for a pane title, so the pane was left titled
  `Gi=…,a=q,t=d,f=24;AAAA`. The title is pushed on the terminal's title stack (XTWINOPS 22) before
  the question and popped (23) after it, and again around the app's run, so whatever changes the
  title meanwhile is undone at exit. Terminals without a title stack ignore both.
- SIGTERM and SIGHUP quit the app the way ctrl+q does (what was typed kept, claims given back, held
  work sent), so Textual leaves the alternate screen and restores the terminal's modes; SIGTERM used
  to kill the process in place, SIGHUP (the terminal closed) lost the typing and left the claims.
"""

import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App, ScreenStackError
from textual.screen import ModalScreen

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


QUIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""Signals that end the app as ctrl+q does: SIGTERM (a stop asked for), SIGHUP (the terminal closed)."""


async def quit_unattended(app: App[Any], quit_action: Callable[[], Awaitable[object]]) -> None:
    """ctrl+q with nobody at the terminal: work the server did not take is kept for the next start
    (in the journal) rather than asked about on a screen no one sees."""
    before = app.screen
    await quit_action()
    try:
        asked = app.screen
    except ScreenStackError:  # the app has ended
        return
    if asked is not before and isinstance(asked, ModalScreen):  # the quit's question: send, keep, discard?
        asked.dismiss("keep")


@contextmanager
def quits_on_sigterm(app: App[Any]) -> Iterator[None]:
    """While the app runs, SIGTERM or SIGHUP runs its quit action (ctrl+q: what was typed kept as a
    draft or in the journal, claims given back); a second one exits at once.

    SIGHUP is the terminal closing (its window, an SSH link dropped): nothing can be shown any more,
    but the quit action needs no terminal, and without it the typing was lost and the claims held
    for the whole lease."""

    def quit_app(signum: int, frame: FrameType | None) -> None:
        loop = app._loop
        if loop is None:  # not running yet, or any more
            raise SystemExit(128 + signum)
        for number in QUIT_SIGNALS:
            signal.signal(number, lambda *_: loop.call_soon_threadsafe(app.exit, None, 128 + signum))
        action = getattr(app, "action_quit", None)
        if action is None:
            loop.call_soon_threadsafe(app.exit, None, 128 + signum)
        elif signum == getattr(signal, "SIGHUP", None):
            loop.call_soon_threadsafe(app.call_later, quit_unattended, app, action)
        else:
            loop.call_soon_threadsafe(app.call_later, action)

    previous = {number: signal.signal(number, quit_app) for number in QUIT_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
