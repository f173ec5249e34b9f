"""B21's equality and judgment, table-driven, without a server."""

import pytest

from queuedesk.server.rules.agreement import Settings, equal, judge

EQUALITY = [
    # (block type, left, right, equal)
    ("number", 3, 3.0, True),
    ("number", 3, 3.5, False),
    ("number", 0, False, False),  # true is not 1, false is not 0
    ("binary", True, 1, False),
    ("binary", True, True, True),
    ("binary", None, False, False),
    ("single_selection", None, None, True),  # null is a value like any other
    ("single_selection", "red", "red", True),
    ("single_selection", "red", "Red", False),
    ("multiple_selection", ["a", "b"], ["b", "a"], True),
    ("multiple_selection", ["a", "b"], ["a", "a", "b"], True),
    ("multiple_selection", ["a"], ["a", "b"], False),
    ("multiple_selection", [], None, False),
    ("date", "2026-01-02", "2026-01-02", True),
    ("date", "2026-01-02T10:00:00Z", "2026-01-02T11:00:00+01:00", True),
    ("date", "2026-01-02T10:00:00Z", "2026-01-02T10:00:00.000+00:00", True),
    ("date", "2026-01-02T10:00:00", "2026-01-02T10:00:00Z", True),  # no zone: UTC
    ("date", "2026-01-02", "2026-01-02T00:00:00Z", False),  # a day is not an instant
    ("date", "2026-01-02", "2026-01-03", False),
    ("text", {"a": 1, "b": [1, 2.0]}, {"b": [1.0, 2], "a": 1}, True),
    ("text", [1, 2], [2, 1], False),
]


@pytest.mark.parametrize(("block_type", "left", "right", "same"), EQUALITY)
def test_equality(block_type, left, right, same) -> None:
    assert equal(block_type, left, right) is same
    assert equal(block_type, right, left) is same


TYPES = {"c": "single_selection", "n": "number", "note": "text"}
TWO = Settings(answers=2, max_answers=3, agreement=0.5, blocks=("c",))
JUDGMENTS = [
    # (settings, answers, state, chosen)
    (TWO, [{"c": "red"}], "collecting", None),
    (TWO, [{"c": "red"}, {"c": "red"}], "settled", 0),
    (TWO, [{"c": "red"}, {"c": "blue"}], "collecting", None),  # a tie never settles
    (TWO, [{"c": "red"}, {"c": "blue"}, {"c": "blue"}], "settled", 1),
    (TWO, [{"c": "red"}, {"c": "blue"}, {"c": "green"}], "disputed", None),
    (TWO, [{"c": None}, {"c": None}], "settled", 0),
    (
        Settings(2, 4, 0.75, ("c",)),
        [{"c": "red"}, {"c": "blue"}, {"c": "red"}],
        "collecting",  # 2/3 < 0.75
        None,
    ),
    (Settings(2, 4, 0.75, ("c",)), [{"c": "red"}, {"c": "blue"}, {"c": "red"}, {"c": "red"}], "settled", 0),
    (Settings(2, 2, 1.0, ("c", "n")), [{"c": "red", "n": 3}, {"c": "red", "n": 3.0}], "settled", 0),
    (Settings(2, 2, 1.0, ("c", "n")), [{"c": "red", "n": 3}, {"c": "red", "n": 4}], "disputed", None),
    # each block agreed, but no single answer holds both agreed values: not settled
    (
        Settings(4, 4, 0.5, ("c", "n")),
        [{"c": "red", "n": 1}, {"c": "red", "n": 2}, {"c": "blue", "n": 5}, {"c": "green", "n": 5}],
        "disputed",
        None,
    ),
    # the earliest answer holding every agreed value is chosen
    (Settings(3, 3, 0.5, ("c",)), [{"c": "blue"}, {"c": "red"}, {"c": "red"}], "settled", 1),
]


@pytest.mark.parametrize(("settings", "answers", "state", "chosen"), JUDGMENTS)
def test_judgment(settings, answers, state, chosen) -> None:
    judged = judge(settings, TYPES, answers)
    assert (judged.state, judged.chosen) == (state, chosen)


def test_agreement_is_the_share_of_the_most_common_value() -> None:
    judged = judge(TWO, TYPES, [{"c": "red"}, {"c": "blue"}, {"c": "blue"}])
    assert judged.agreement == {"c": pytest.approx(2 / 3)}
