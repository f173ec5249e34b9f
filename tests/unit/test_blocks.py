"""The block rules (`queuedesk.api.blocks`): definitions of a queue's blocks and the values of a task.

The server, the import command and the terminal app's forms all check with these rules, so each
property here holds for all three.
"""

import copy
import math
import re
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from queuedesk.api.blocks import (
    BLOCK_TYPES,
    MAX_URL_LENGTH,
    Problem,
    block_type,
    is_empty,
    is_http_url,
    validate_blocks,
    validate_task_data,
)
from queuedesk.api.models import Block
from tests.unit.strategies import (
    FREE_TYPES,
    PROPERTY,
    TEXT,
    URL_TYPES,
    block_definitions,
    block_lists,
    blocks_with_values,
    emails,
    http_urls,
    json_values,
)

DEFINITION_CODES = {"invalid_value", "missing_required", "unknown_field"}
DATA_CODES = {"no_data", "invalid_value", "missing_required", "unknown_field"}
DOCUMENTED_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # "1-64 letters, digits, '_' or '-'"


def fields(problems: list[Problem]) -> list[str | None]:
    return [p.field for p in problems]


def assert_only_problems(problems: Any, codes: set[str], prefix: str) -> None:
    assert isinstance(problems, list)
    for problem in problems:
        assert isinstance(problem, Problem)
        assert problem.code in codes, problem
        assert problem.field is not None and problem.field.startswith(prefix), problem
        assert isinstance(problem.message, str) and problem.message, problem


def block(kind: str, **settings: Any) -> Block:
    return Block.model_validate({"id": "b", "name": "B", "type": kind, kind: settings})


# --- block definitions --------------------------------------------------------------------------


@PROPERTY
@given(block_lists(min_size=0))
def test_valid_definitions_are_accepted(raw):
    assert validate_blocks(raw) == []


# Definitions near the valid ones: a valid one with one key changed to any JSON value, or one added.
_KEYS = st.sampled_from(["id", "name", "type", "options", "placeholder", "is_required", *BLOCK_TYPES])


@st.composite
def messy_definitions(draw: st.DrawFn) -> Any:
    raw = draw(block_definitions())
    kind = raw["type"]
    where = draw(st.sampled_from(["top", "settings", "drop", "whole"]))
    if where == "whole":
        return draw(json_values)
    if where == "drop":
        raw.pop(draw(st.sampled_from(sorted(raw))))
    elif where == "top":
        raw[draw(_KEYS)] = draw(json_values)
    else:
        settings = raw[kind] = dict(raw.get(kind) or {})
        settings[draw(_KEYS)] = draw(json_values | st.lists(st.dictionaries(_KEYS, json_values), max_size=3))
    return raw


@PROPERTY
@given(st.lists(messy_definitions(), max_size=4) | json_values, st.sampled_from(["data", "blocks"]))
def test_validate_blocks_answers_only_problems_at_the_field(raw, field_name):
    """Any JSON at all: a list of Problems with the documented codes, each under `field_name`."""
    assert_only_problems(validate_blocks(raw, field_name), DEFINITION_CODES, field_name)


@PROPERTY
@given(json_values.filter(lambda v: not isinstance(v, list)))
def test_definitions_not_a_list_are_one_problem(raw):
    assert validate_blocks(raw) == [Problem("invalid_value", "data", "must be a list of blocks")]


@PROPERTY
@given(block_lists(), st.data())
def test_a_repeated_id_is_one_problem_at_the_repeat(raw, data):
    twin = copy.deepcopy(data.draw(st.sampled_from(raw)))
    twin["name"] = "Twin"
    problems = validate_blocks([*raw, twin])
    assert fields(problems) == [f"data[{len(raw)}].id"]
    assert problems[0].code == "invalid_value"


@PROPERTY
@given(block_definitions(), TEXT)
def test_an_id_is_accepted_only_in_the_documented_form(raw, new_id):
    raw["id"] = new_id
    problems = validate_blocks([raw])
    if DOCUMENTED_ID.fullmatch(new_id):
        assert problems == []
    else:
        assert fields(problems) == ["data[0].id"]


@PROPERTY
@given(block_definitions(), st.sampled_from(["id", "name", "type"]))
def test_a_missing_key_is_named(raw, key):
    del raw[key]
    problems = validate_blocks([raw])
    assert [(p.code, p.field) for p in problems] == [("missing_required", f"data[0].{key}")]


@PROPERTY
@given(block_definitions(), TEXT.filter(lambda t: t not in BLOCK_TYPES))
def test_an_unknown_type_is_refused_and_named(raw, kind):
    raw["type"] = kind
    problems = validate_blocks([raw])
    assert [(p.code, p.field) for p in problems] == [("invalid_value", "data[0].type")]
    assert all(name in problems[0].message for name in BLOCK_TYPES)  # the message lists the known types


@PROPERTY
@given(
    block_definitions().filter(lambda raw: raw["type"] not in FREE_TYPES),
    st.from_regex(r"\A[a-z_]{1,12}\Z"),
    json_values,
)
def test_an_unknown_setting_is_refused_on_checked_types(raw, key, value):
    kind = raw["type"]
    assume(key not in BLOCK_TYPES[kind].settings)
    raw[kind] = {**(raw.get(kind) or {}), key: value}
    problems = validate_blocks([raw])
    assert [(p.code, p.field) for p in problems] == [("unknown_field", f"data[0].{kind}.{key}")]


@PROPERTY
@given(block_definitions(), st.from_regex(r"\A[a-z_]{1,12}\Z"), json_values)
def test_a_key_beside_the_settings_is_refused(raw, key, value):
    assume(key not in {"id", "name", "type", raw["type"]})
    raw[key] = value
    problems = validate_blocks([raw])
    assert [(p.code, p.field) for p in problems] == [("unknown_field", f"data[0].{key}")]


@pytest.mark.parametrize("kind", ["single_selection", "multiple_selection"])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "non-empty list"),
        ("red", "non-empty list"),
        ([{"id": "red"}], "exactly 'id' and 'name'"),
        ([{"id": "red", "name": "Red", "colour": "#f00"}], "exactly 'id' and 'name'"),
        ([{"id": "", "name": "Red"}], "1-64 letters"),
        ([{"id": "r" * 65, "name": "Red"}], "1-64 letters"),
        ([{"id": 7, "name": "Seven"}], "1-64 letters"),
        ([{"id": "red", "name": None}], "name must be a string"),
        ([{"id": "red", "name": "Red"}, {"id": "red", "name": "Again"}], "used twice"),
    ],
)
def test_selection_options_are_checked(kind, options, message):
    problems = validate_blocks([{"id": "c", "name": "C", "type": kind, kind: {"options": options}}])
    assert [(p.code, p.field) for p in problems] == [("invalid_value", f"data[0].{kind}.options")]
    assert message in problems[0].message


@pytest.mark.parametrize("kind", ["single_selection", "multiple_selection"])
def test_selection_blocks_need_options(kind):
    problems = validate_blocks([{"id": "c", "name": "C", "type": kind}])
    assert [(p.code, p.field) for p in problems] == [("missing_required", f"data[0].{kind}.options")]


@pytest.mark.parametrize(
    ("kind", "settings", "key"),
    [
        ("text", {"placeholder": 3}, "placeholder"),
        ("text", {"read_only": "yes"}, "read_only"),
        ("binary", {"is_required": 1}, "is_required"),
        ("number", {"placeholder": True}, "placeholder"),
        ("rich_text", {"format": "rtf"}, "format"),
        ("list", {"subtype": ["text"]}, "subtype"),
    ],
)
def test_setting_values_are_checked(kind, settings, key):
    problems = validate_blocks([{"id": "b", "name": "B", "type": kind, kind: settings}])
    assert [(p.code, p.field) for p in problems] == [("invalid_value", f"data[0].{kind}.{key}")]


@pytest.mark.parametrize("name", ["", "   ", "n" * 201, 5, None])
def test_a_name_must_be_a_short_non_blank_string(name):
    assert fields(validate_blocks([{"id": "b", "name": name, "type": "text"}])) == ["data[0].name"]


def test_settings_must_be_an_object():
    problems = validate_blocks([{"id": "b", "name": "B", "type": "text", "text": ["placeholder"]}])
    assert [(p.code, p.field) for p in problems] == [("invalid_value", "data[0].text")]


# --- task data ----------------------------------------------------------------------------------


@PROPERTY
@given(blocks_with_values())
def test_fitting_values_are_accepted(drawn):
    blocks, data, _raw = drawn
    assert validate_task_data(blocks, data) == []


@PROPERTY
@given(blocks_with_values())
def test_completion_asks_exactly_the_required_blocks_without_a_value(drawn):
    blocks, data, _raw = drawn
    problems = validate_task_data(blocks, data, enforce_required=True)
    expected = [f"data.{b.id}" for b in blocks if b.is_required and is_empty(data[b.id])]
    assert fields(problems) == expected
    assert {p.code for p in problems} <= {"missing_required"}


@PROPERTY
@given(blocks_with_values(), st.lists(TEXT, min_size=1, max_size=3, unique=True), json_values)
def test_each_key_that_is_no_block_is_one_problem(drawn, keys, value):
    blocks, data, _raw = drawn
    unknown = [k for k in keys if k not in data]
    assume(unknown)
    problems = validate_task_data(blocks, {**data, **dict.fromkeys(unknown, value)})
    assert [(p.code, p.field) for p in problems] == [("unknown_field", f"data.{k}") for k in unknown]


@PROPERTY
@given(
    st.lists(block_definitions(), min_size=1, max_size=6, unique_by=lambda b: b["id"]),
    st.data(),
    st.sampled_from(["data", "draft"]),
    st.booleans(),
)
def test_validate_task_data_answers_only_problems_at_the_field(raw, draw, field_name, enforce):
    """Any JSON as data, against any valid blocks: Problems with the documented codes, never an error."""
    blocks = [Block.model_validate(b) for b in raw]
    keys = st.sampled_from([b.id for b in blocks]) | TEXT
    data = draw.draw(st.dictionaries(keys, json_values, max_size=6) | json_values)
    problems = validate_task_data(blocks, data, enforce_required=enforce, field_name=field_name)
    assert_only_problems(problems, DATA_CODES, field_name)


@PROPERTY
@given(block_lists(), json_values.filter(lambda v: not isinstance(v, dict) or not v))
def test_data_that_is_no_object_or_empty_is_one_problem(raw, data):
    blocks = [Block.model_validate(b) for b in raw]
    assert [(p.code, p.field) for p in validate_task_data(blocks, data)] == [("no_data", "data")]


def test_allow_empty_accepts_an_empty_object_only():
    blocks = [block("text")]
    assert validate_task_data(blocks, {}, allow_empty=True) == []
    assert fields(validate_task_data(blocks, [], allow_empty=True)) == ["data"]


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


# What each type accepts, as the contract states it, for any JSON value.
ORACLES = {
    "text": lambda v: isinstance(v, str),
    "rich_text": lambda v: isinstance(v, str),
    "binary": lambda v: isinstance(v, bool),
    "number": _is_number,
    "list": lambda v: isinstance(v, list),
    "text_sequence": lambda v: isinstance(v, list),
    **dict.fromkeys(FREE_TYPES, lambda v: isinstance(v, dict)),
}


@PROPERTY
@given(st.sampled_from(sorted(ORACLES)), json_values.filter(lambda v: v is not None))
def test_each_type_accepts_exactly_its_kind_of_value(kind, value):
    problems = validate_task_data([block(kind)], {"b": value})
    assert (problems == []) == ORACLES[kind](value), problems
    assert all((p.code, p.field) == ("invalid_value", "data.b") for p in problems)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True, "3", [3]])
def test_a_number_block_refuses_what_is_not_a_finite_number(value):
    assert fields(validate_task_data([block("number")], {"b": value})) == ["data.b"]


SELECTION = [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}]


@PROPERTY
@given(json_values.filter(lambda v: v is not None))
def test_a_single_selection_takes_one_option_id(value):
    problems = validate_task_data([block("single_selection", options=SELECTION)], {"b": value})
    assert (problems == []) == (value in ("red", "blue"))


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ([], True),
        (["red"], True),
        (["blue", "red"], True),
        (["red", "red"], False),
        (["green"], False),
        ("red", False),
        ([["red"]], False),
    ],
)
def test_a_multiple_selection_takes_distinct_option_ids(value, accepted):
    problems = validate_task_data([block("multiple_selection", options=SELECTION)], {"b": value})
    assert (problems == []) == accepted, problems


@PROPERTY
@given(http_urls)
def test_http_urls_are_urls(url):
    assert is_http_url(url)
    for kind in URL_TYPES:
        assert validate_task_data([block(kind)], {"b": url}) == []


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/a",
        "example.com/a",
        "http://",
        "http:///path",
        "https://exa mple.com/",
        "https://example.com/a b",
        "http://example.com:99999/",
        "http://example.com:port/",
        "http://[::1/",
        "javascript:alert(1)",
        "https://example.com/" + "a" * MAX_URL_LENGTH,
        7,
    ],
)
def test_what_is_not_an_http_url(url):
    assert not is_http_url(url)


@PROPERTY
@given(emails)
def test_email_addresses_are_accepted(address):
    assert validate_task_data([block("email")], {"b": address}) == []


@PROPERTY
@given(TEXT)
def test_an_accepted_email_address_has_one_at_and_no_space(text):
    if validate_task_data([block("email")], {"b": text}) == []:
        assert text.count("@") == 1 and not any(c.isspace() for c in text)


@pytest.mark.parametrize("value", ["2026-11-23", "2026-11-23T10:55:57", "2026-11-23T10:55:57.123456+05:30"])
def test_iso_dates_and_date_times_are_accepted(value):
    assert validate_task_data([block("date")], {"b": value}) == []


@pytest.mark.parametrize("value", ["23/11/2026", "2026-13-01", "", "tomorrow", 20261123])
def test_other_dates_are_refused(value):
    assert fields(validate_task_data([block("date")], {"b": value})) == ["data.b"]


def test_an_unknown_type_accepts_any_value():
    kind = block_type("heatmap")
    assert kind.free_settings
    assert kind.check_value({"anything": [1, 2]}, {}) is None


@pytest.mark.parametrize(("value", "empty"), [(None, True), ("", True), ([], True), ({}, False), (0, False)])
def test_is_empty(value, empty):
    assert is_empty(value) is empty


# --- once known bugs, kept fixed -----------------------------------------------------------------


def test_a_trailing_newline_does_not_pass_the_id_rule():
    assert fields(validate_blocks([{"id": "paragraph\n", "name": "P", "type": "text"}])) == ["data[0].id"]
    option = {"options": [{"id": "red\n", "name": "Red"}]}
    problems = validate_blocks(
        [{"id": "c", "name": "C", "type": "single_selection", "single_selection": option}]
    )
    assert fields(problems) == ["data[0].single_selection.options"]


def test_a_trailing_newline_does_not_pass_the_email_rule():
    assert fields(validate_task_data([block("email")], {"b": "ada@acme.test\n"})) == ["data.b"]


def test_a_huge_integer_is_a_problem_not_an_overflow():
    problems = validate_task_data([block("number")], {"b": 10**400})
    assert fields(problems) == ["data.b"]
