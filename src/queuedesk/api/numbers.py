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


UNCLEAR_DECIMAL = "use one decimal mark, a point or a comma (12.5 or 12,5), and no thousands separator"
UNCLEAR_THOUSANDS = "is unclear: a comma before three digits may separate thousands; write 1234 or 1.234"


class NotANumber(ValueError):
    """`typed_number` cannot read the text as one number; the message says why."""


def typed_number(text: str) -> int | float:
    """The number `text` spells as a person types it: `12`, `-3`, `12.5`, and `12,5` (a decimal
    comma, read as 12.5); `_` between digits is allowed. Never guessed: marks that mean different
    things in different places (`1.234,5`, `1,234,5`, `1,234.5`, and `1,234`, a thousand or one
    and a bit) are refused (`NotANumber` says why), as is anything but a finite number in ASCII."""
    cleaned = text.strip().replace("_", "")
    if "," in cleaned:
        if cleaned.count(",") > 1 or "." in cleaned:
            raise NotANumber(UNCLEAR_DECIMAL)
        whole, _, fraction = cleaned.partition(",")
        if len(fraction) == 3 and fraction.isdigit() and whole.lstrip("+-"):
            raise NotANumber(UNCLEAR_THOUSANDS)
        cleaned = f"{whole}.{fraction}"
    if not cleaned.isascii():
        raise NotANumber("must be a number")
    if cleaned.lstrip("+-").isdigit():
        return int(cleaned)
    try:
        number = float(cleaned)
    except ValueError:
        raise NotANumber("must be a number") from None
    if not math.isfinite(number):
        raise NotANumber("must be a finite number")
    return number
