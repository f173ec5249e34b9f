"""`KeysRead` around a stop of the app (SIGSTOP/SIGCONT), and whether the terminal holds input."""

import os
import time
import tty

from queuedesk.tui.keys.keys_read import ONE_READ_SECONDS, KeysRead
from queuedesk.tui.terminal.sigcont_guard import terminal_input_waiting


def test_the_keys_of_the_first_read_after_a_continue_were_typed_while_stopped() -> None:
    keys = KeysRead()
    assert keys.typed_by(10.0) == 10.0  # never stopped: when it was read
    keys.continued(20.0, keys_waiting=True)
    keys.read("1", 20.05)  # the first read after the continue, late (the input thread was slow)
    assert keys.typed_by(20.05) == 20.0
    keys.read("tab", 20.05 + ONE_READ_SECONDS)  # the same read
    assert keys.typed_by(20.05 + ONE_READ_SECONDS) == 20.0
    later = 20.05 + ONE_READ_SECONDS + 0.01
    keys.read("2", later)  # typed after: a read of its own
    assert keys.typed_by(later) == later


def test_with_nothing_waiting_at_the_continue_a_key_read_after_it_counts_as_read() -> None:
    keys = KeysRead()
    keys.continued(20.0, keys_waiting=False)
    keys.read("enter", 20.01)  # typed after the continue (and after a paint that followed it)
    assert keys.typed_by(20.01) == 20.01


def test_two_keys_read_across_a_stop_are_told_apart() -> None:
    keys = KeysRead()
    keys.read("enter", 1.0)
    keys.continued(5.0)
    keys.read("enter", 5.01)
    assert keys.stopped_between() and keys.repeated("enter")


def test_the_terminal_says_whether_input_waits() -> None:
    master, slave = os.openpty()
    try:
        tty.setraw(slave)  # as the app's terminal is: keys readable as typed, no line to wait for
        assert not terminal_input_waiting(slave)
        os.write(master, b"1\t")
        deadline = time.monotonic() + 5
        while not terminal_input_waiting(slave) and time.monotonic() < deadline:
            time.sleep(0.01)  # the terminal's line discipline passes them on
        assert terminal_input_waiting(slave)
    finally:
        os.close(master)
        os.close(slave)
    assert terminal_input_waiting(-1)  # cannot tell: as if keys waited
