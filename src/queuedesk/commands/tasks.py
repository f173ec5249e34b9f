"""`queuedesk tasks create QUEUE --data JSON` and `queuedesk import QUEUE FILE.csv`."""

import argparse
import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from queuedesk.api.blocks import validate_task_data
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.csv_values import TASK_COLUMNS, from_cell
from queuedesk.api.models import Block
from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json

MAX_TASKS_PER_REQUEST = 10_000
MAX_BYTES_PER_REQUEST = 900 * 1024  # under the server's 1 MiB, with room for the envelope
MAX_REPORTED_ROWS = 20


async def create(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.data)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--data is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError('--data must be a JSON object of block values, e.g. \'{"paragraph": "hello"}\'')
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        task = await client.create_task(queue.id, data)
    if args.json:
        print_json(task.model_dump(mode="json"))
    else:
        print(f"Created task {task.id} in queue {queue.id} {queue.name!r}.")
    return OK


def read_rows(path: Path, blocks: list[Block]) -> list[dict[str, Any]]:
    """Every row as task data, checked with the block rules; UsageError naming the rows at fault."""
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        with handle:
            return _read_rows(path, csv.DictReader(handle), blocks)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path.name} is not UTF-8 text (byte {exc.start}): save it as UTF-8 CSV") from None
    except csv.Error as exc:
        raise UsageError(f"{path.name} is not a readable CSV file: {exc}") from None


def _read_rows(path: Path, reader: "csv.DictReader[str]", blocks: list[Block]) -> list[dict[str, Any]]:
    header = reader.fieldnames or []
    by_id = {b.id: b for b in blocks}
    unknown = [c for c in header if c not in by_id and c not in TASK_COLUMNS]
    if not header or unknown:
        valid = ", ".join(by_id) or "none"
        what = (
            f"column(s) {', '.join(map(repr, unknown))} are not blocks"
            if unknown
            else "the file has no header row"
        )
        raise UsageError(f"{path.name}: {what} of this queue (blocks: {valid})")
    columns = [c for c in header if c in by_id]
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, row in enumerate(reader, start=1):
        data, row_problems = _row_data(row, columns, by_id, blocks)
        rows.append(data)
        problems += [f"row {number} (line {reader.line_num}): {p}" for p in row_problems]
    if problems:
        shown = problems[:MAX_REPORTED_ROWS]
        more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        raise UsageError(f"{path.name}: nothing was imported:\n  " + "\n  ".join(shown) + more)
    if not rows:
        raise UsageError(f"{path.name} has no rows to import")
    return rows


def _row_data(
    row: dict[str, Any], columns: list[str], by_id: dict[str, Block], blocks: list[Block]
) -> tuple[dict[str, Any], list[str]]:
    data: dict[str, Any] = {}
    problems: list[str] = []
    if None in row:
        problems.append("more cells than columns")
    for column in columns:
        cell = row.get(column)
        try:
            data[column] = from_cell(by_id[column], cell or "")
        except ValueError as exc:
            problems.append(f"{column}: {exc}")
    if not problems:
        problems += [
            f"{p.field.removeprefix('data.') if p.field else ''}: {p.message}"
            for p in validate_task_data(blocks, data)
        ]
    return data, problems


def batches(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Groups that fit one import request (count and body size)."""
    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        row_size = len(json.dumps({"data": row}, ensure_ascii=False).encode()) + 1
        if batch and (len(batch) >= MAX_TASKS_PER_REQUEST or size + row_size > MAX_BYTES_PER_REQUEST):
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += row_size
    if batch:
        yield batch


async def _send(client: QueueDeskClient, queue_id: int, rows: list[dict[str, Any]], source: str) -> list[int]:
    if not await client.supports_extensions():
        # A documented-interface-only server has no bulk import: one create per row.
        return [(await client.create_task(queue_id, row)).id for row in rows]
    ids: list[int] = []
    for batch in batches(rows):
        try:
            ids += (await client.import_tasks(queue_id, batch, source)).ids
        except Exception:
            if ids:
                print(
                    f"queuedesk: {len(ids)} task(s) of the first rows were imported before this failure "
                    f"(ids {ids[0]}-{ids[-1]}); the rest were not.",
                    file=sys.stderr,
                )
            raise
    return ids


async def import_csv(args: argparse.Namespace) -> int:
    path = Path(args.file)
    source = path.name if path.name.lower().endswith(".csv") else f"{path.name}.csv"
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        detail = await client.queue(queue.id)
        rows = read_rows(path, detail.data)
        ids = await _send(client, queue.id, rows, source)
    if args.json:
        print_json({"queue_id": queue.id, "created": len(ids), "ids": ids, "source": source})
    else:
        print(f"Imported {len(ids)} task(s) into queue {queue.id} {queue.name!r} (ids {ids[0]}-{ids[-1]}).")
    return OK


def add_parsers(commands: argparse._SubParsersAction, connection: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    tasks = commands.add_parser("tasks", help="create tasks")
    actions = tasks.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)
    creating = actions.add_parser("create", parents=[connection], help="create one task")
    creating.add_argument("queue", help="queue id or name")
    creating.add_argument(
        "--data", required=True, help='the task\'s block values as JSON, e.g. \'{"text": "hi"}\''
    )
    creating.set_defaults(client_command=create)

    importing = commands.add_parser(
        "import",
        parents=[connection],
        help="create tasks from a CSV file (columns = block ids), all or nothing",
        description="Create one task per row of a CSV file whose header names the queue's blocks. "
        "Every row is checked before anything is sent: one bad row and nothing is created.",
    )
    importing.add_argument("queue", help="queue id or name")
    importing.add_argument("file", help="the CSV file; its name becomes the tasks' source")
    importing.set_defaults(client_command=import_csv)
