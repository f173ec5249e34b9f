"""The display rule: nothing `shown` returns is a control character a terminal would obey, nor a
joiner that makes the terminal draw it in other cells than Rich counts."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len, get_character_cell_size

from queuedesk.api.terminal_text import (
    BIDI_CONTROLS,
    DROPPED,
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
# Text with emoji sequences: parts, joiners and selectors in any order (a list joined, so that each
# kind is drawn as often as the others: `st.text` would draw from the union of their characters).
EMOJI = st.lists(
    st.one_of(
        st.sampled_from(["\U0001f468", "\U0001f469", "\u2764", "\U0001f3f3", "\U0001f308", "1", "a"]),
        st.sampled_from([*DROPPED, "\u20e3", "\ufe0e", "\u200c"]),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=50,
).map("".join)


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
@given(EMOJI)
def test_rich_counts_each_character_of_the_output_on_its_own(text):
    # As a terminal draws what holds no joiner: no sequence joined, nothing widened by a selector.
    for out in (shown(text), shown_on_one_line(text)):
        assert not any(char in DROPPED for char in out)
        assert cell_len(out) == sum(map(get_character_cell_size, out))


@PROPERTY
@given(ANY_TEXT.filter(lambda text: not any(obeyed(char) or char in DROPPED for char in text)))
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


# (text, what `shown` gives, the cells tmux 3.3a draws for that): measured with a `|` written after
# it in one write (tests/tui/test_tmux_emoji_width.py draws them in tmux, at their place in a table).
DRAWN = [
    # family (man, woman, girl): Rich said 2, and tmux draws 2 or 6 as the writes fall
    ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f468\U0001f469\U0001f467", 6),
    ("a\u200db", "ab", 2),  # Rich said 1: the character after a joiner was not counted
    ("\U0001f469\u200d\U0001f4bb", "\U0001f469\U0001f4bb", 4),  # woman technologist
    ("\u2764\ufe0f", "\u2764", 1),  # red heart: Rich said 2
    ("\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f3f3\U0001f308", 3),  # rainbow flag: Rich said 2
    ("1\ufe0f\u20e3", "1\u20e3", 1),  # keycap 1: Rich said 2
    ("\u2764\ufe0e", "\u2764\ufe0e", 1),  # the text presentation selector: both said 1, kept
    ("a\u200cb", "a\u200cb", 2),  # ZERO WIDTH NON-JOINER: both said 2, kept
]


@pytest.mark.parametrize(("text", "out", "drawn"), DRAWN)
def test_an_emoji_sequence_takes_the_cells_the_terminal_draws(text, out, drawn):
    assert shown(text) == out
    assert shown_on_one_line(text) == out
    assert cell_len(shown(text) + "|") == drawn + 1  # the border after it where the terminal draws it
    assert shown(f"\x1b{text}\n") == f"␛{out}\n"  # dropped on the path that shows controls too
    assert shown_on_one_line(f"{text}\n") == f"{out}␊"


def test_joiners_are_no_unsafe_text():
    # The server accepts them (a URL, a name), and the terminal guard must not drop them from text
    # Rich has measured already: only `shown`, before measuring, does.
    assert is_safe("\U0001f468\u200d\U0001f469 \u2764\ufe0f")


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
