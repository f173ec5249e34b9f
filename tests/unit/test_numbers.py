"""Typed numbers: digits `int()` refuses are refused, never a traceback."""

import argparse
import math

import pytest

from queuedesk.api.client import retry_after_seconds
from queuedesk.api.numbers import plain_int, positive_seconds
from queuedesk.commands.export import page_size
from queuedesk.commands.importing import chunk_rows, start_row
from queuedesk.commands.service import _positive, _rate


@pytest.mark.parametrize(("text", "expected"), [("0", 0), ("42", 42), (" 7 ", 7), ("007", 7)])
def test_ascii_digits_are_a_number(text: str, expected: int) -> None:
    assert plain_int(text) == expected


@pytest.mark.parametrize("text", ["", " ", "²", "٣", "①", "-1", "+1", "1.5", "1e3", "12a"])
def test_anything_else_is_not(text: str) -> None:
    assert plain_int(text) is None


@pytest.mark.parametrize("parse", [page_size, start_row, chunk_rows, _positive, _rate])
@pytest.mark.parametrize("text", ["²", "٣", "0", "-3", "x"])
def test_command_line_numbers_refuse_with_a_usage_error(parse: object, text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse(text)  # type: ignore[operator]


def test_a_retry_after_of_superscript_digits_is_not_a_number() -> None:
    assert retry_after_seconds("²") is None
    assert retry_after_seconds("3") == 3.0


@pytest.mark.parametrize(
    ("text", "below", "expected"),
    [
        ("2", math.inf, 2.0),
        ("0.5", math.inf, 0.5),
        (" 3 ", math.inf, 3.0),
        ("0", math.inf, None),
        ("-1", math.inf, None),
        ("nan", math.inf, None),
        ("inf", math.inf, None),
        ("two", math.inf, None),
        ("", math.inf, None),
        ("86399", 86_400, 86_399.0),
        ("86400", 86_400, None),
    ],
)
def test_positive_seconds_are_finite_and_above_zero(text: str, below: float, expected: float | None) -> None:
    assert positive_seconds(text, below) == expected
