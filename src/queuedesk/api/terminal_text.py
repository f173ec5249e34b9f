"""The display rule: how text from outside (the server, a file, a person) is shown on a terminal.

Task data usually comes from outside the organization, and names, descriptions and URLs are typed
by people. A terminal obeys what it is written, so text is never written as it came:

- C0 control characters (U+0000 to U+001F) other than line feed and tab are shown as their Control
  Pictures (ESC as `␛`, NUL as `␀`), DEL as `␡`;
- C1 control characters (U+0080 to U+009F) as a visible escape, `\\x9b`;
- the bidirectional controls that reorder the text after them (U+202A to U+202E, U+2066 to U+2069, and
  the marks U+200E, U+200F, U+061C) as `⟪U+202E⟫`-like tags, so they read and do not act;
- U+200D ZERO WIDTH JOINER is dropped, so each part of a sequence is drawn on its own (👨‍👩‍👧 as
  👨👩👧, 6 cells): Rich counts the character after any joiner as 0 cells (`a` ZWJ `b` is 1 cell to it,
  2 in tmux), and a terminal joins as it can (tmux 3.3a only what one write holds), so cells moved;
- U+FE0F (the emoji presentation selector) is dropped, so a symbol is drawn in its 1-cell text
  presentation (`❤️` as `❤`): Rich counts the selector as widening it to 2 cells, tmux 3.3a draws 1.

Markup is not this module's concern: what it returns is plain text, and every caller puts it on the
terminal as text (Rich `Text`, never markup). `shown` is on the paint path of every table cell, so
most text is returned after one check in C (`isprintable`, or one regex search), and only text that
needs it goes through one `str.translate` with a table built once.
"""

import re

KEPT = frozenset("\n\t")
BIDI_CONTROLS = (
    *(chr(code) for code in range(0x202A, 0x202F)),
    *(chr(code) for code in range(0x2066, 0x206A)),
    "\u200e",
    "\u200f",
    "\u061c",
)


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0x80 <= code <= 0x9F:
        return f"\\x{code:02x}"
    return f"⟪U+{code:04X}⟫"


SHOWN_CHARS = [
    chr(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(code) not in KEPT
] + list(BIDI_CONTROLS)
# Dropped, not shown: what makes a terminal draw several characters in other cells than Rich counts.
ZWJ = "\u200d"
EMOJI_PRESENTATION = "\ufe0f"
DROPPED = (ZWJ, EMOJI_PRESENTATION)
_DROP = dict.fromkeys(DROPPED)
_TABLE = str.maketrans({**{char: _visible(char) for char in SHOWN_CHARS}, **_DROP})
# The same, with line feed and tab shown too: for one-line places (a table cell, a title).
_ONE_LINE_TABLE = str.maketrans({**{char: _visible(char) for char in (*SHOWN_CHARS, "\n", "\t")}, **_DROP})
_BIDI_CLASS = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
# Most text holds nothing to show: one regex search (in C) finds that, and `translate` (a lookup per
# character, several times slower) only runs on text that needs it.
_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI_CLASS}]")
_NOT_IN_A_LINK = re.compile(f"[\\s\\x00-\\x1f\\x7f-\\x9f{_BIDI_CLASS}]")
_CHANGED = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI_CLASS}{ZWJ}{EMOJI_PRESENTATION}]")
_CHANGED_ON_ONE_LINE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI_CLASS}{ZWJ}{EMOJI_PRESENTATION}]")


def shown(text: str) -> str:
    """`text` as the terminal may be given it: every control character visible, none obeyed, and
    no joiner that would make the terminal draw it in other cells than counted."""
    # isprintable (a loop in C) is False for every character shown here and for ZWJ, and True for
    # most text; U+FE0F is printable, and `in` is immediate on text with no character beyond U+00FF.
    if (text.isprintable() and EMOJI_PRESENTATION not in text) or _CHANGED.search(text) is None:
        return text
    return text.translate(_TABLE)


def shown_on_one_line(text: str) -> str:
    """Like `shown`, with line feeds and tabs made visible too (`␊`, `␉`)."""
    if (text.isprintable() and EMOJI_PRESENTATION not in text) or _CHANGED_ON_ONE_LINE.search(text) is None:
        return text
    return text.translate(_ONE_LINE_TABLE)


def is_safe(text: str) -> bool:
    """Whether `text` holds nothing a terminal would obey (nothing `shown` would make visible). The
    joiners `shown` drops are not counted: the terminal guard runs this on text Rich has already
    measured, and dropping one there would move the cells after it."""
    return text.isprintable() or _UNSAFE.search(text) is None


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def control_character(text: str, *, lines: bool = False) -> str | None:
    """The first C0/C1 control character or DEL in `text` (with `lines`, tab and line feed are
    allowed), or None. The server refuses these in names, ids and URLs. Bidi controls are not
    counted: they are legitimate in right-to-left text, and the display rule neutralises them."""
    found = (_CONTROL_BUT_LINES if lines else _CONTROL).search(text)
    return None if found is None else found.group()


def described(char: str) -> str:
    """A character as a message names it: "U+001B"."""
    return f"U+{ord(char):04X}"


def link_target(url: str | None) -> str | None:
    """A URL fit to be drawn as a terminal hyperlink (OSC 8), or None: a URL holding any control or
    bidi character, or a space, is never made a link (its text is still shown by the rule)."""
    return url if url and _NOT_IN_A_LINK.search(url) is None else None
