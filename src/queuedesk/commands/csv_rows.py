"""Reading a CSV file of tasks for `queuedesk import`: every row checked against the queue's blocks."""

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from queuedesk.api import original_rules
from queuedesk.api.blocks import validate_task_data
from queuedesk.api.csv_values import TASK_COLUMNS, from_cell
from queuedesk.api.models import Block
from queuedesk.commands.common import UsageError

MAX_REPORTED_ROWS = 20


@dataclass(frozen=True)
class Row:
    number: int  # 1 for the first row after the header
    line: int  # the file's line where the row ends
    data: dict[str, Any]

    @property
    def where(self) -> str:
        return f"row {self.number} (line {self.line})"


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
    unknown = [c for c in header if c not in by_id and c not in TASK_COLUMNS]
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
    rows: list[Row] = []
    problems: list[str] = []
    number = 0
    for number, cells in enumerate(reader, start=1):
        if number < start_row:
            continue
        row = Row(number, reader.line_num, {})
        row_problems = _fill(row.data, cells, columns, by_id, blocks, original)
        rows.append(row)
        problems += [f"{row.where}: {p}" for p in row_problems]
    if problems:
        raise report(path, problems)
    if not rows:
        past = f" from row {start_row} on (it has {number})" if start_row > 1 else ""
        raise UsageError(f"{path.name} has no rows to import{past}")
    return rows


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
