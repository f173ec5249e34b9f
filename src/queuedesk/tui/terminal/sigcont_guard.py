"""A stopped app that is continued keeps one input thread (Textual 8.2's Linux driver starts another).

Textual's driver restarts its application mode on every SIGCONT, also one that follows a plain
SIGSTOP (a debugger, `kill -STOP`, a supervisor pausing the process) rather than its own SIGTSTP
suspend: it then starts a second thread reading the terminal beside the first. Keys are shared out
between the two readers from then on: typed `tab 2` can arrive as `2 tab`, and an escape sequence
(`shift+tab` is ESC [ Z) is cut in two. docs/textual-sigcont.md has a reproduction.

The guard passes SIGCONT on to Textual only after Textual's own SIGTSTP handler ran (a ctrl+z). It
uses the handlers Textual installed, read with `signal.getsignal`: no private name.
"""

import signal
import struct
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any


def guard_sigcont(when_continued: Callable[[], None] | None = None) -> bool:
    """Install the guard (in the main thread, once the driver has set its handlers); False when
    there is nothing to guard (no terminal driver, not the main thread, another platform).
    `when_continued` is called at every SIGCONT: the process was stopped, for how long is not known."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTSTP"):
        return False
    on_suspend, on_continue = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    if not callable(on_suspend) or not callable(on_continue):
        return False
    suspended = False

    def suspend(signum: int, frame: FrameType | None) -> Any:
        nonlocal suspended
        suspended = True
        return on_suspend(signum, frame)

    def resume(signum: int, frame: FrameType | None) -> Any:
        nonlocal suspended
        if when_continued is not None:
            when_continued()
        if not suspended:
            return None  # a plain SIGSTOP: the terminal was never given up, nothing to restart
        suspended = False
        return on_continue(signum, frame)

    signal.signal(signal.SIGTSTP, suspend)
    signal.signal(signal.SIGCONT, resume)
    return True


def terminal_input_waiting(fd: int | None = None) -> bool:
    """Whether the terminal holds input the app has not read yet (keys typed while it was stopped);
    True when that cannot be told."""
    try:
        import fcntl  # POSIX only, as the guard
        import termios

        if fd is None:
            if sys.__stdin__ is None:
                return True
            fd = sys.__stdin__.fileno()
        waiting = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        return bool(struct.unpack("i", waiting)[0])
    except (OSError, ValueError, ImportError):
        return True
