"""`escape` and the key typed after it, read together from the terminal, are two keys
(tui/keys/escape_prefix.py); the sequences terminals send for keys are read as before."""

import time

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from queuedesk.tui.keys import escape_prefix


def keys_read(data: str) -> list[str]:
    """The keys Textual's parser makes of `data` read at once (and of its escape delay running out)."""
    parser = XTermParser()
    made = list(parser.feed(data))
    time.sleep(0.15)  # past the parser's escape delay (100 ms): a lone ESC is read as escape
    made += list(parser.tick())
    return [event.key for event in made if isinstance(event, events.Key)]


@pytest.fixture(autouse=True)
def installed() -> None:
    escape_prefix.install()
    escape_prefix.install()  # idempotent: wrapped once
    assert escape_prefix.installed()


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("\x1b\t", ["escape", "tab"]),  # Textual alone: shift+tab
        ("\x1b\tabc", ["escape", "tab", "a", "b", "c"]),
        ("\x1bs", ["escape", "s"]),  # Textual alone: alt+s, typed as "s" by a text field
        ("\x1b2", ["escape", "2"]),  # Textual alone: "™"
        ("\x1b\r", ["escape", "enter"]),  # Textual alone: enter, the escape lost
        ("\x1b ", ["escape", "space"]),
        ("\x1b\x1b\t", ["escape", "escape", "tab"]),
        ("\x1b", ["escape"]),
    ],
)
def test_escape_and_the_key_after_it_read_together_are_two_keys(typed: str, read: list[str]) -> None:
    assert keys_read(typed) == read


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("\x1b[Z", ["shift+tab"]),
        ("\x1b[A", ["up"]),
        ("\x1bOP", ["f1"]),
        ("\x1b[1;5C", ["ctrl+right"]),
        ("\x1b[27u", ["escape"]),  # the kitty keyboard protocol's escape
        ("\x1b\x1b", ["escape", "escape"]),
        ("\x1b\x7f", ["ctrl+w"]),  # alt+backspace: a word deleted, as Textual reads it
    ],
)
def test_the_sequences_terminals_send_for_keys_are_read_as_before(typed: str, read: list[str]) -> None:
    assert keys_read(typed) == read


def test_a_paste_and_a_mouse_click_are_not_keys() -> None:
    parser = XTermParser()
    made = list(parser.feed("\x1b[200~pasted text\x1b[201~\x1b[<0;10;5M"))
    assert [type(e) for e in made] == [events.Paste, events.MouseDown], made
