"""Numbers as people type them.

Whole numbers in ASCII digits only: `str.isdigit()` also accepts superscripts and other digits
`int()` refuses ("²"), so a check with it followed by `int()` can still raise. Seconds as a finite
number above 0: `float()` also reads "nan" and "inf".
"""

import math


def plain_int(text: str) -> int | None:
    """The non-negative whole number `text` spells in ASCII digits, or None."""
    text = text.strip()
    if text and text.isascii() and text.isdigit():
        return int(text)
    return None


def positive_seconds(text: str, below: float = math.inf) -> float | None:
    """The seconds `text` spells when finite, above 0 and below `below`; else None."""
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and 0 < seconds < below else None
