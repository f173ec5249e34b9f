"""Durations on the command line: `30d`, `12h`, `90m`, `2w` — a whole number and one unit."""

import argparse
import re
from datetime import timedelta

UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
LONGEST = timedelta(days=36_500)
_DURATION = re.compile(r"(\d{1,9})([smhdw])")
_EXAMPLE = "a whole number and a unit: 30d, 12h, 90m, 2w (units: s, m, h, d, w)"


def parse_duration(text: str) -> timedelta:
    """`30d` -> 30 days; ValueError saying what is wrong and what is meant."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None:
        raise ValueError(f"{text!r} is not a duration: write {_EXAMPLE}")
    amount, unit = int(match.group(1)), match.group(2)
    if amount == 0:
        raise ValueError(f"{text!r}: the duration must be more than 0")
    duration = timedelta(**{UNITS[unit]: amount})
    if duration > LONGEST:
        raise ValueError(f"{text!r}: at most {LONGEST.days} days")
    return duration


def duration_argument(text: str) -> timedelta:
    """`parse_duration` for argparse, whose message then reads `argument --x: <ours>`."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
