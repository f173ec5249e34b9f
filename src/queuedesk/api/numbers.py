"""Whole numbers as people type them: ASCII digits only.

`str.isdigit()` also accepts superscripts and other digits `int()` refuses ("²"), so a check with it
followed by `int()` can still raise.
"""


def plain_int(text: str) -> int | None:
    """The non-negative whole number `text` spells in ASCII digits, or None."""
    text = text.strip()
    if text and text.isascii() and text.isdigit():
        return int(text)
    return None
