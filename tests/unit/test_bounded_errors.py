"""Error answers stay small whatever the input (`queuedesk.server.http.http_errors`, `queuedesk.api.blocks`):
at most 100 errors, each message and field clipped, the answer's text within a budget, and the
envelope's `truncated` counting what was left out; messages that list a queue's blocks or a block's
options name a few and say how many more."""

import itertools
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.api.blocks import Findings, Problem, first_problems, listing, task_data_problems
from queuedesk.api.models import Block
from queuedesk.server.http.http_errors import (
    MAX_ERRORS,
    MAX_ERRORS_TEXT,
    MAX_FIELD,
    MAX_MESSAGE,
    ServiceError,
    invalid,
)
from tests.unit.strategies import PROPERTY


def problem(index: int, message: str = "wrong", field: str | None = None) -> Problem:
    return Problem("invalid_value", field or f"data.k{index}", message)


def wide_queue(width: int) -> list[Block]:
    return [Block.model_validate({"id": f"block_{i}", "name": f"B{i}", "type": "text"}) for i in range(width)]


def test_an_answer_lists_at_most_100_errors_and_counts_the_rest():
    envelope = invalid(problem(i) for i in range(10_000)).envelope()
    assert len(envelope["errors"]) == MAX_ERRORS == 100
    assert envelope["truncated"] == 9_900


def test_an_answer_within_the_cap_has_no_truncated():
    assert "truncated" not in invalid([problem(1), problem(2)]).envelope()


def test_long_messages_and_fields_are_clipped():
    envelope = invalid([problem(0, "m" * 100_000, "data." + "k" * 100_000)]).envelope()
    [item] = envelope["errors"]
    assert len(item["message"]) == MAX_MESSAGE and item["message"].endswith("\u2026")
    assert len(item["field"]) == MAX_FIELD


def test_the_answer_text_has_a_budget():
    envelope = invalid(problem(i, "m" * 5_000, "f" * 5_000) for i in range(100)).envelope()
    text = sum(len(e["message"]) + len(e["field"]) for e in envelope["errors"])
    assert text <= MAX_ERRORS_TEXT + MAX_MESSAGE + MAX_FIELD
    assert len(envelope["errors"]) + envelope["truncated"] == 100
    assert len(orjson.dumps(envelope)) < 20_000


@PROPERTY
@given(st.integers(min_value=0, max_value=3_000), st.integers(min_value=0, max_value=2_000))
def test_the_errors_shown_and_left_out_add_up(found, message_length):
    envelope = ServiceError(400, (problem(i, "x" * (message_length + 1)) for i in range(found))).envelope()
    assert len(envelope["errors"]) + envelope.get("truncated", 0) == found
    assert len(orjson.dumps(envelope)) < 25_000


def test_findings_carry_the_count_of_problems_never_kept():
    consumed = itertools.count()
    findings = first_problems(problem(next(consumed)) for _ in range(5_000))
    assert len(findings.first) == 100 and findings.more == 4_900 and next(consumed) == 5_000
    assert invalid(findings).envelope()["truncated"] == 4_900
    assert not Findings([])


def test_listing_names_a_few_and_says_how_many_more():
    assert listing(["a", "b"]) == "a, b"
    assert listing([f"b{i}" for i in range(1000)]) == "b0, b1, b2, b3, b4 and 995 more"
    assert listing([]) == ""


def test_an_unknown_key_against_a_wide_queue_is_a_short_message():
    [found] = list(task_data_problems(wide_queue(2_000), {"k" * 50_000: 1}))
    assert found.code == "unknown_field"
    assert len(found.message) < 500 and "and 1995 more" in found.message


def test_an_option_outside_ten_thousand_is_a_short_message():
    options = [{"id": f"o{i}", "name": f"O{i}"} for i in range(10_000)]
    blocks = [
        Block.model_validate(
            {"id": "s", "name": "S", "type": "single_selection", "single_selection": {"options": options}}
        ),
        Block.model_validate(
            {"id": "m", "name": "M", "type": "multiple_selection", "multiple_selection": {"options": options}}
        ),
    ]
    data: dict[str, Any] = {"s": "nope", "m": [f"x{i}" for i in range(10_000)]}
    found = list(task_data_problems(blocks, data))
    assert [p.field for p in found] == ["data.s", "data.m"]
    assert all(len(p.message) < 500 for p in found), [len(p.message) for p in found]
    assert "and 9995 more" in found[0].message
