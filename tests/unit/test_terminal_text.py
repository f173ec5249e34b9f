"""The display rule: nothing `shown` returns is a control character a terminal would obey."""

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from queuedesk.api.terminal_text import (
    BIDI_CONTROLS,
    control_character,
    is_safe,
    link_target,
    shown,
    shown_on_one_line,
)
from tests.unit.strategies import PROPERTY

ANY_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)
HOSTILE = st.text(
    st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0xA0),
        st.sampled_from(BIDI_CONTROLS),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=200,
)


def obeyed(char: str) -> bool:
    """A character a terminal acts on rather than shows: C0/C1 controls, DEL, and bidi controls."""
    return (
        (unicodedata.category(char) == "Cc" and char not in "\n\t")
        or unicodedata.bidirectional(char)
        in (
            "LRE",
            "RLE",
            "LRO",
            "RLO",
            "PDF",
            "LRI",
            "RLI",
            "FSI",
            "PDI",
        )
        or char in "\u200e\u200f\u061c"
    )


@PROPERTY
@given(HOSTILE)
def test_no_output_character_is_obeyed(text):
    assert not any(obeyed(char) for char in shown(text))
    assert is_safe(shown(text))


@PROPERTY
@given(HOSTILE)
def test_one_line_output_has_no_line_breaks_either(text):
    out = shown_on_one_line(text)
    assert not any(obeyed(char) or char in "\n\t" for char in out)


@PROPERTY
@given(ANY_TEXT.filter(lambda text: not any(obeyed(char) for char in text)))
def test_text_without_controls_is_unchanged(text):
    assert shown(text) == text
    assert is_safe(text)


def test_each_kind_is_shown_visibly():
    assert shown("a\x1b[2Jb") == "a␛[2Jb"
    assert shown("\x00\x07\x7f") == "␀␇␡"
    assert shown("\x9b31m") == "\\x9b31m"
    assert shown("abc\u202edef") == "abc⟪U+202E⟫def"
    assert shown("line\nnext\tcell") == "line\nnext\tcell"
    assert shown_on_one_line("line\nnext\tcell") == "line␊next␉cell"
    assert shown("[red]x[/red]") == "[red]x[/red]"  # markup is the caller's: kept as written


def test_the_rule_reports_control_characters_for_the_server():
    assert control_character("Orders") is None
    assert control_character("a\x1bb") == "\x1b"
    assert control_character("a\nb") == "\n"
    assert control_character("a\r\nb\tc", lines=True) == "\r"
    assert control_character("a\nb\tc", lines=True) is None
    assert control_character("\x85") == "\x85"
    assert control_character("\x7f") == "\x7f"
    assert control_character("abc\u202edef") is None  # right-to-left text may hold bidi controls


def test_a_url_with_a_control_character_is_no_link():
    assert link_target("https://example.com/a?b=c") == "https://example.com/a?b=c"
    assert link_target("https://example.com/\x1b]52;c;cHduZWQ=\x07") is None
    assert link_target("https://example.com/\u202e") is None
    assert link_target("https://example.com/ x") is None
    assert link_target("") is None
    assert link_target(None) is None
