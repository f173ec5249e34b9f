"""The pure parts of the key mechanism (the private Textual name it still uses is checked with the
others, tests/unit/test_private_names.py)."""

from textual.widgets import Input

from queuedesk.tui.forms.fields import FieldArea, FieldInput
from queuedesk.tui.keys.keys_read import KeysRead
from queuedesk.tui.keys.ordered_keys import OrderedInput, own_bindings


def test_a_field_runs_its_own_bindings_and_stays_focusable() -> None:
    bindings = own_bindings(OrderedInput)
    assert bindings["backspace"] == "delete_left" and bindings["left"] == "cursor_left"
    assert "tab" not in bindings  # the screen moves the focus
    for field in (OrderedInput, FieldInput, FieldArea):  # Textual copies can_focus from the first base
        assert field.can_focus, field
    assert issubclass(FieldInput, Input)


def test_a_key_repeated_quickly_is_told_from_one_after_another_key() -> None:
    keys = KeysRead()
    keys.read("enter", 100.0)
    assert not keys.repeated_within("enter", 0.3)
    keys.read("enter", 100.08)
    assert keys.repeated_within("enter", 0.3)
    keys.read("enter", 100.5)
    assert not keys.repeated_within("enter", 0.3)
    keys.read("1", 100.55)
    keys.read("enter", 100.56)
    assert not keys.repeated_within("enter", 0.3)
