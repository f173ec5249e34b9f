"""A plain SIGSTOP/SIGCONT leaves the terminal driver alone; a ctrl+z (SIGTSTP) and its SIGCONT still
suspend and resume it (tui/terminal/sigcont_guard.py)."""

import os
import signal
import time
from collections.abc import Iterator

import pytest

from queuedesk.tui.terminal.sigcont_guard import guard_sigcont

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTSTP"), reason="POSIX signals only")


@pytest.fixture
def driver_handlers() -> Iterator[list[str]]:
    """Handlers standing in for the ones Textual's Linux driver installs; what they were called for."""
    calls: list[str] = []
    before = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    signal.signal(signal.SIGTSTP, lambda *_: calls.append("suspend"))
    signal.signal(signal.SIGCONT, lambda *_: calls.append("resume"))
    yield calls
    signal.signal(signal.SIGTSTP, before[0])
    signal.signal(signal.SIGCONT, before[1])


def deliver(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.05)  # Python runs the handler between bytecodes of the main thread


def test_sigcont_without_a_suspend_is_not_passed_on(driver_handlers: list[str]) -> None:
    deliver(signal.SIGCONT)
    assert driver_handlers == ["resume"]  # unguarded: Textual would start a second input thread
    driver_handlers.clear()
    assert guard_sigcont()
    deliver(signal.SIGCONT)
    assert driver_handlers == []
    deliver(signal.SIGTSTP)
    deliver(signal.SIGCONT)
    assert driver_handlers == ["suspend", "resume"]
    deliver(signal.SIGCONT)
    assert driver_handlers == ["suspend", "resume"]


def test_nothing_to_guard_without_a_driver() -> None:
    before = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    signal.signal(signal.SIGCONT, signal.SIG_DFL)
    try:
        assert not guard_sigcont()
    finally:
        signal.signal(signal.SIGTSTP, before[0])
        signal.signal(signal.SIGCONT, before[1])


def test_every_sigcont_is_told_whether_passed_on_or_not(driver_handlers: list[str]) -> None:
    continued: list[str] = []
    assert guard_sigcont(when_continued=lambda: continued.append("continued"))
    deliver(signal.SIGCONT)  # a plain SIGSTOP's: not passed on, but the app was stopped
    deliver(signal.SIGTSTP)
    deliver(signal.SIGCONT)
    assert continued == ["continued", "continued"]
    assert driver_handlers == ["suspend", "resume"]
