"""Text an attacker puts in task data or (in rows written before the server refused it) in names:
each row of issue 26's table, what a terminal would obey if it were written raw."""

HOSTILE = {
    "wipe": "\x1b[2J\x1b[H",
    "leave_alternate_screen": "\x1b[?1049l",
    "title_bel": "\x1b]0;pwned-title\x07",
    "title_st": "\x1b]2;pwned-title-st\x1b\\",
    "clipboard": "\x1b]52;c;cHduZWQtY2xpcA==\x1b\\",
    "hidden_link": "\x1b]8;;file:///etc/passwd\x1b\\click me\x1b]8;;\x1b\\",
    "nul_del_bidi": "\x00\x7f\u202eabc",
    "c1_csi": "\x9b2J",
}
ALL_HOSTILE = "".join(f"<{name}:{text}>" for name, text in HOSTILE.items())

# Byte sequences that must never reach a terminal: each would act rather than show.
OBEYED = (
    b"\x1b[2J",
    b"\x1b[H",
    b"\x1b[?1049l",
    b"\x1b]0;",
    b"\x1b]2;",
    b"\x1b]52;",
    b"\x1b]8;;file",
    b"\x00",
    b"\x7f",
    "\x9b".encode(),
    "\u202e".encode(),
)
# How the display rule shows them (api/terminal_text.py): as symbols, with the text after them.
SHOWN = (
    "␛[2J",
    "␛]0;pwned-title␇",
    "␛]52;c;cHduZWQtY2xpcA==␛\\",
    "␛]8;;file:///etc/passwd",
    "␀␡⟪U+202E⟫abc",
    "\\x9b2J",
)


def sqlite_text(text: str) -> str:
    """`text` as an SQLite expression (control characters included), for rows written behind the
    server's back."""
    codes = [str(ord(char)) for char in text]
    return " || ".join(f"char({','.join(codes[at : at + 50])})" for at in range(0, len(codes), 50))


def obeyed_in(raw: bytes) -> list[bytes]:
    """The hostile sequences found raw in what was written to a terminal."""
    return [sequence for sequence in OBEYED if sequence in raw]
