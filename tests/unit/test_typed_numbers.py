"""`typed_number`: numbers as people type them; a decimal comma read as such, unclear marks refused."""

import pytest

from queuedesk.api.numbers import UNCLEAR_DECIMAL, UNCLEAR_THOUSANDS, NotANumber, typed_number


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("12", 12),
        ("-3", -3),
        ("+4", 4),
        ("12.5", 12.5),
        ("12,5", 12.5),
        ("-0,25", -0.25),
        (",5", 0.5),
        ("1_000", 1000),
        (" 7 ", 7),
        ("1e3", 1000.0),
        ("12,50", 12.5),
        ("12,5000", 12.5),
    ],
)
def test_what_people_type_is_read_as_the_number_they_mean(text: str, number: float) -> None:
    read = typed_number(text)
    assert read == number and type(read) is type(number)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1.234,5", UNCLEAR_DECIMAL),
        ("1,234.5", UNCLEAR_DECIMAL),
        ("1,2,3", UNCLEAR_DECIMAL),
        ("1,234", UNCLEAR_THOUSANDS),
        ("-12,500", UNCLEAR_THOUSANDS),
        ("twelve", "must be a number"),
        ("nan", "must be a finite number"),
        ("inf", "must be a finite number"),
        ("\uff11\uff12", "must be a number"),  # fullwidth digits
        ("12,a", "must be a number"),
    ],
)
def test_what_could_mean_two_numbers_or_none_is_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(NotANumber) as refused:
        typed_number(text)
    assert str(refused.value) == why
