"""Reading a CSV file of tasks for `queuedesk import`: every row checked against the queue's blocks.

Gold tasks (B22): a column `gold.<block id>` holds the expected value of that block. A row with a
value in any `gold.` column is a gold task whose expected values are those cells (an empty cell
expects nothing of its block); a row whose `gold.` cells are all empty is an ordinary task. Only
blocks of the types gold compares (selections, yes/no, number, date) may have a `gold.` column."""

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from queuedesk.api import gold_rules, original_rules
from queuedesk.api.blocks import validate_task_data
from queuedesk.api.csv_values import TASK_COLUMNS, from_cell
from queuedesk.api.models import Block
from queuedesk.commands.common import UsageError

MAX_REPORTED_ROWS = 20
GOLD_PREFIX = "gold."  # a column `gold.<block id>`: the block's expected value in a gold task


@dataclass(frozen=True)
class Row:
    number: int  # 1 for the first row after the header
    line: int  # the file's line where the row ends
    data: dict[str, Any]
    gold: dict[str, Any] | None = None  # B22: the expected values, when the row is a gold task

    @property
    def where(self) -> str:
        return f"row {self.number} (line {self.line})"


def gold_of(rows: Sequence[Row]) -> list[dict[str, Any] | None] | None:
    """The rows' expected values (B22), one per row; None when no row is a gold task."""
    expected = [row.gold for row in rows]
    return expected if any(e is not None for e in expected) else None


def report(path: Path, problems: list[str]) -> UsageError:
    """One error naming the first rows at fault; nothing was sent."""
    shown = problems[:MAX_REPORTED_ROWS]
    more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    return UsageError(f"{path.name}: nothing was imported:\n  " + "\n  ".join(shown) + more)


def read_rows(path: Path, blocks: list[Block], start_row: int = 1, *, original: bool = False) -> list[Row]:
    """The rows from `start_row` on, checked with the block rules (`original`: the original
    service's, and what it fails on); UsageError naming the rows at fault."""
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        with handle:
            return _read_rows(path, csv.DictReader(handle), blocks, start_row, original)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path.name} is not UTF-8 text (byte {exc.start}): save it as UTF-8 CSV") from None
    except csv.Error as exc:
        raise UsageError(f"{path.name} is not a readable CSV file: {exc}") from None


def _read_rows(
    path: Path, reader: "csv.DictReader[str]", blocks: list[Block], start_row: int, original: bool
) -> list[Row]:
    header = reader.fieldnames or []
    by_id = {b.id: b for b in blocks}
    gold_columns = [c for c in header if c.startswith(GOLD_PREFIX)]
    unknown = [c for c in header if c not in by_id and c not in TASK_COLUMNS and c not in gold_columns]
    if not header or unknown:
        valid = ", ".join(by_id) or "none"
        what = (
            f"{'column' if len(unknown) == 1 else 'columns'} {', '.join(map(repr, unknown))} "
            f"{'is not a block' if len(unknown) == 1 else 'are not blocks'}"
            if unknown
            else "the file has no header row"
        )
        raise UsageError(f"{path.name}: {what} of this queue (blocks: {valid})")
    columns = [c for c in header if c in by_id]
    if original and gold_columns:
        raise UsageError(
            f"{path.name}: {', '.join(map(repr, gold_columns))}: this server has no gold tasks "
            "(it speaks only the basic Task Queue API)"
        )
    expected = {c.removeprefix(GOLD_PREFIX): None for c in gold_columns}
    if gold_columns and (found := gold_rules.expected_problems(blocks, expected)):
        raise UsageError(f"{path.name}: gold columns: {'; '.join(found)}")
    rows: list[Row] = []
    problems: list[str] = []
    number = 0
    for number, cells in enumerate(reader, start=1):
        if number < start_row:
            continue
        row = Row(number, reader.line_num, {})
        row_problems = _fill(row.data, cells, columns, by_id, blocks, original)
        gold, gold_problems = _gold(cells, gold_columns, by_id, blocks)
        if gold is not None:
            row = Row(row.number, row.line, row.data, gold)
        rows.append(row)
        row_problems += gold_problems
        problems += [f"{row.where}: {p}" for p in row_problems]
    if problems:
        raise report(path, problems)
    if not rows:
        past = f" from row {start_row} on (it has {number})" if start_row > 1 else ""
        raise UsageError(f"{path.name} has no rows to import{past}")
    return rows


def _gold(
    cells: dict[str, Any], gold_columns: list[str], by_id: dict[str, Block], blocks: list[Block]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The row's expected values (None: not a gold task), and what is wrong with them."""
    expected: dict[str, Any] = {}
    problems: list[str] = []
    for column in gold_columns:
        cell = cells.get(column) or ""
        if not cell:
            continue
        try:
            expected[column.removeprefix(GOLD_PREFIX)] = from_cell(
                by_id[column.removeprefix(GOLD_PREFIX)], cell
            )
        except ValueError as exc:
            problems.append(f"{column}: {exc}")
    if not expected:
        return None, problems
    problems += [f"{GOLD_PREFIX}{p}" for p in gold_rules.expected_problems(blocks, expected)]
    return expected, problems


def _fill(
    data: dict[str, Any],
    cells: dict[str, Any],
    columns: list[str],
    by_id: dict[str, Block],
    blocks: list[Block],
    original: bool,
) -> list[str]:
    problems: list[str] = []
    if None in cells:
        problems.append("more cells than columns")
    for column in columns:
        try:
            data[column] = from_cell(by_id[column], cells.get(column) or "")
        except ValueError as exc:
            problems.append(f"{column}: {exc}")
    if not problems:
        problems += [
            f"{p.field.removeprefix('data.') if p.field else ''}: {p.message}"
            for p in (
                original_rules.task_problems(blocks, data) if original else validate_task_data(blocks, data)
            )
        ]
    return problems
