"""Block values in CSV cells (`queuedesk.api.csv_values`) and the import's reading of a whole file
(`queuedesk.commands.csv_rows`): what `queuedesk export` writes, `queuedesk import` reads back."""

import csv
import math
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.api.blocks import BLOCK_TYPES, validate_task_data
from queuedesk.api.csv_values import (
    FALSE_WORDS,
    LIST_TYPES,
    OBJECT_TYPES,
    STRING_TYPES,
    TASK_COLUMNS,
    TRUE_WORDS,
    from_cell,
    to_cell,
)
from queuedesk.api.models import Block
from queuedesk.commands.common import UsageError
from queuedesk.commands.csv_rows import MAX_REPORTED_ROWS, Row, read_rows
from tests.unit.strategies import FINITE, INT64, PROPERTY, TEXT, blocks_with_values


def block(kind: str, block_id: str = "b", **settings: Any) -> Block:
    return Block.model_validate({"id": block_id, "name": block_id.title(), "type": kind, kind: settings})


def no_value_if_empty(value: Any) -> Any:
    """The one loss the format has, by design: an empty string is an empty cell, read as no value."""
    return None if value == "" else value


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    """A directory for the files the properties write (hypothesis runs many examples per test)."""
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def write_csv(path: Path, header: list[str], rows: list[list[str]], *, bom: bool = False) -> Path:
    """As `queuedesk export` writes: UTF-8, csv's default dialect, newline left to the writer."""
    with path.open("w", newline="", encoding="utf-8-sig" if bom else "utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# --- one cell -----------------------------------------------------------------------------------


def test_every_block_type_has_a_cell_form():
    """A block type with no CSV rule would be read as 'JSON, else text', by guess."""
    known = STRING_TYPES | LIST_TYPES | OBJECT_TYPES | {"number", "binary"}
    assert set(BLOCK_TYPES) <= known, set(BLOCK_TYPES) - known
    groups = [STRING_TYPES, LIST_TYPES, OBJECT_TYPES, {"number"}, {"binary"}]
    assert sum(map(len, groups)) == len(set().union(*groups))  # no type in two groups


@PROPERTY
@given(blocks_with_values())
def test_an_accepted_value_round_trips_through_its_cell(drawn):
    """Whatever the block rules accept, `to_cell` then `from_cell` gives back: the same value, of the
    same type (1.0 stays a float, 1 an int), still accepted."""
    blocks, data, _raw = drawn
    back = {b.id: from_cell(b, to_cell(data[b.id])) for b in blocks}
    expected = {key: no_value_if_empty(value) for key, value in data.items()}
    assert back == expected
    assert [type(v) for v in back.values()] == [type(v) for v in expected.values()]
    assert validate_task_data(blocks, back) == []


@PROPERTY
@given(st.sampled_from(sorted(BLOCK_TYPES)), TEXT)
def test_a_cell_is_a_value_or_a_value_error(kind, cell):
    """Any text in a known type's column: a value, or ValueError with a message (the import reports it)."""
    try:
        from_cell(block(kind), cell)
    except ValueError as exc:
        assert str(exc)


@PROPERTY
@given(TEXT)
def test_an_empty_cell_is_no_value_and_no_value_an_empty_cell(text):
    assert to_cell(None) == ""
    for kind in BLOCK_TYPES:
        assert from_cell(block(kind), "") is None
    assert to_cell(text) == text  # strings are written as they are, never quoted as JSON


@PROPERTY
@given(INT64)
def test_a_number_cell_reads_integers_as_int(number):
    assert from_cell(block("number"), str(number)) == number
    assert type(from_cell(block("number"), str(number))) is int


@PROPERTY
@given(FINITE)
def test_a_number_cell_reads_decimals_as_float(number):
    read = from_cell(block("number"), repr(number))
    assert read == number and type(read) is float
    assert math.copysign(1, read) == math.copysign(1, number)  # -0.0 stays negative


@pytest.mark.parametrize("cell", ["one", "1,5", "--1", "1.2.3", "0x10"])
def test_what_is_not_a_number(cell):
    with pytest.raises(ValueError, match="is not a number"):
        from_cell(block("number"), cell)


@PROPERTY
@given(st.sampled_from(sorted(TRUE_WORDS | FALSE_WORDS)), st.data())
def test_a_binary_cell_takes_yes_no_words_in_any_case_with_spaces(word, data):
    mixed = "".join(c.upper() if data.draw(st.booleans()) else c for c in word)
    padded = data.draw(st.sampled_from(["", " ", "\t"])) + mixed + data.draw(st.sampled_from(["", " "]))
    assert from_cell(block("binary"), padded) is (word in TRUE_WORDS)


@pytest.mark.parametrize("cell", ["maybe", "2", "tru", "nope"])
def test_what_is_not_true_or_false(cell):
    with pytest.raises(ValueError, match="not true or false"):
        from_cell(block("binary"), cell)


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("red, blue", ["red", "blue"]),
        ("red,,blue ,", ["red", "blue"]),
        ('["red", "blue"]', ["red", "blue"]),
        ('  ["a,b"]', ["a,b"]),
    ],
)
def test_a_list_cell_is_json_or_comma_separated(cell, value):
    assert from_cell(block("multiple_selection", options=[]), cell) == value


@pytest.mark.parametrize(("kind", "cell"), [("list", "[1, 2"), ("bounding_boxes", "{'x': 1}")])
def test_bad_json_in_a_list_or_object_cell_is_named(kind, cell):
    with pytest.raises(ValueError, match="is not valid JSON"):
        from_cell(block(kind), cell)


@pytest.mark.parametrize(
    ("cell", "value"), [('{"a": 1}', {"a": 1}), ("12", 12), ("plain words", "plain words")]
)
def test_a_type_this_client_does_not_know_is_json_when_it_parses(cell, value):
    assert from_cell(block("heatmap"), cell) == value


# --- a whole file -------------------------------------------------------------------------------


@PROPERTY
@given(blocks_with_values(), st.integers(min_value=1, max_value=3), st.booleans())
def test_an_exported_file_imports_the_same_data(scratch, drawn, copies, bom):
    """Rows written as `queuedesk export` writes them (its task columns first) read back as the same
    data, row after row, with the file's line numbers."""
    blocks, data, _raw = drawn
    ids = [b.id for b in blocks]
    meta = [
        "7",
        "completed",
        "2026-11-23T10:00:00.000000Z",
        "2026-11-23T10:05:00.000000Z",
        "ada@acme.test",
        "api",
    ]
    rows = [[*meta, *(to_cell(data[i]) for i in ids)] for _ in range(copies)]
    path = write_csv(scratch / "export.csv", [*TASK_COLUMNS, *ids], rows, bom=bom)
    read = read_rows(path, blocks)
    expected = {key: no_value_if_empty(value) for key, value in data.items()}
    assert [r.data for r in read] == [expected] * copies
    assert [r.number for r in read] == list(range(1, copies + 1))
    with path.open(newline="", encoding="utf-8-sig") as handle:
        lines = len(re.findall(r"\r\n|\r|\n", handle.read()))
    assert read[-1].line == lines  # the last row ends on the file's last line (\r, \n or both end one)


CORE = [
    block("text", "paragraph"),
    block("single_selection", "category", options=[{"id": "red", "name": "Red"}], is_required=True),
    block("number", "score"),
]


def test_a_column_that_is_no_block_is_refused_with_the_blocks_named(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["paragraph", "colour"], [["x", "red"]])
    with pytest.raises(
        UsageError, match=r"column 'colour' is not a block of this queue \(blocks: paragraph, category"
    ):
        read_rows(path, CORE)


def test_a_file_without_a_header_is_refused(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(UsageError, match="has no header row"):
        read_rows(path, CORE)


def test_each_row_at_fault_is_named_and_nothing_is_read(tmp_path):
    rows = [
        ["first", "red", "1"],
        ["second", "green", "2"],
        ["third", "red", "many"],
        ["fourth", "red", "4", "x"],
    ]
    path = write_csv(tmp_path / "t.csv", ["paragraph", "category", "score"], rows)
    with pytest.raises(UsageError) as raised:
        read_rows(path, CORE)
    message = str(raised.value)
    assert message.startswith("t.csv: nothing was imported:")
    assert (
        "row 2 (line 3): category: block 'category' (single_selection): 'green' is not an option" in message
    )
    assert "row 3 (line 4): score: 'many' is not a number" in message
    assert "row 4 (line 5): more cells than columns" in message
    assert "row 1 " not in message


def test_at_most_twenty_rows_are_named(tmp_path):
    rows = [[f"t{n}", "", "bad"] for n in range(MAX_REPORTED_ROWS + 5)]
    path = write_csv(tmp_path / "t.csv", ["paragraph", "category", "score"], rows)
    with pytest.raises(UsageError) as raised:
        read_rows(path, CORE)
    message = str(raised.value)
    assert message.count("is not a number") == MAX_REPORTED_ROWS
    assert message.endswith("... and 5 more")


def test_start_row_skips_the_rows_before_it(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["paragraph", "score"], [["a", "bad"], ["b", "2"], ["c", "3"]])
    assert read_rows(path, CORE, start_row=2) == [
        Row(2, 3, {"paragraph": "b", "score": 2}),
        Row(3, 4, {"paragraph": "c", "score": 3}),
    ]
    with pytest.raises(UsageError, match=r"no rows to import from row 4 on \(it has 3\)"):
        read_rows(path, CORE, start_row=4)


def test_a_row_spanning_lines_ends_on_its_last_line(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["paragraph"], [["one\ntwo\nthree"], ["next"]])
    assert [(r.number, r.line) for r in read_rows(path, CORE)] == [(1, 4), (2, 5)]


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("paragraph\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(UsageError, match="is not UTF-8 text"):
        read_rows(path, CORE)


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(UsageError, match="cannot read"):
        read_rows(tmp_path / "nowhere.csv", CORE)


# --- once known bugs, kept fixed -----------------------------------------------------------------


def test_a_huge_number_cell_is_a_row_problem(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["score"], [["1" + "0" * 400]])
    with pytest.raises(UsageError, match="row 1"):
        read_rows(path, CORE)


def test_a_deeply_nested_json_cell_is_a_row_problem(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["tags"], [["[" * 5000 + "]" * 5000]])
    with pytest.raises(UsageError, match="row 1"):
        read_rows(path, [block("list", "tags")])


@pytest.mark.parametrize(
    "cell", ["1_000", "\u0663", "\uff15", "\u00b2", "1 000", "0x10", "nan", "inf", "-inf", "1e999", "--1"]
)
def test_a_number_cell_is_ascii_digits_only(cell):
    with pytest.raises(ValueError, match=r"not a number|out of range"):
        from_cell(block("number"), cell)


@pytest.mark.parametrize(
    ("cell", "value"),
    [("42", 42), (" -7 ", -7), ("+3", 3), ("2.5", 2.5), ("1e3", 1000.0), (".5", 0.5), ("5.", 5.0)],
)
def test_ascii_number_cells_are_read(cell, value):
    read = from_cell(block("number"), cell)
    assert read == value and type(read) is type(value)


def test_an_integer_cell_beyond_64_bits_is_a_row_problem(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["score"], [[str(2**64)]])
    with pytest.raises(UsageError, match=r"row 1.*out of range"):
        read_rows(path, CORE)


@pytest.mark.parametrize("kind", ["list", "form_sequence"])
def test_a_json_cell_with_a_number_python_cannot_convert_is_a_value_error(kind):
    """json.loads raises a plain ValueError (no `.msg`) beyond 4300 digits."""
    with pytest.raises(ValueError, match="not JSON that can be read"):
        from_cell(block(kind), "[" + "1" * 5000 + "]" if kind == "list" else '{"a": ' + "1" * 5000 + "}")


def test_a_deeply_nested_cell_of_an_unknown_type_is_kept_as_text():
    cell = "[" * 5000 + "]" * 5000
    assert from_cell(block("heatmap"), cell) == cell
