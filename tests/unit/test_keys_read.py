"""`KeysRead`: when a key was typed at the latest, around a stop of the app (SIGSTOP/SIGCONT)."""

from queuedesk.tui.keys_read import READ_AFTER_CONTINUE_SECONDS, KeysRead


def test_a_key_read_just_after_a_continue_was_typed_while_stopped() -> None:
    keys = KeysRead()
    assert keys.typed_by(10.0) == 10.0  # never stopped: when it was read
    keys.continued(20.0)
    assert keys.typed_by(20.05) == 20.0  # waiting in the terminal while stopped
    assert keys.typed_by(20.0 + READ_AFTER_CONTINUE_SECONDS) == 20.0
    assert keys.typed_by(20.0 + READ_AFTER_CONTINUE_SECONDS + 0.01) == 20.21  # typed after
    assert keys.typed_by(19.5) == 19.5  # read before the stop


def test_two_keys_read_across_a_stop_are_told_apart() -> None:
    keys = KeysRead()
    keys.read("enter", 1.0)
    keys.continued(5.0)
    keys.read("enter", 5.01)
    assert keys.stopped_between() and keys.repeated("enter")
