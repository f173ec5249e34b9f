"""The private Textual names the key handling relies on still exist (a Textual upgrade that renames one
fails here, not in a worker's hands), and the pure parts of the key mechanism."""

import importlib

import pytest
from textual.widgets import Input

from queuedesk.tui.forms.fields import FieldArea, FieldInput
from queuedesk.tui.keys_read import KeysRead
from queuedesk.tui.ordered_keys import PRIVATE_TEXTUAL_NAMES, OrderedInput, own_bindings


@pytest.mark.parametrize(("owner", "name"), PRIVATE_TEXTUAL_NAMES)
def test_every_private_textual_name_used_still_exists(owner: str, name: str) -> None:
    module, _, cls = owner.rpartition(".")
    assert hasattr(getattr(importlib.import_module(module), cls), name), f"{owner}.{name} is gone"


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
