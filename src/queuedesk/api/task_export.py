"""Completed tasks written out as CSV or JSON lines, page by page: one writer for the command line's
`export` and the app's export of the filtered history."""

import csv
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from typing import IO, Literal

from queuedesk.api.csv_values import TASK_COLUMNS, to_cell
from queuedesk.api.models import Task, TaskPage
from queuedesk.api.timestamps import format_timestamp

Format = Literal["csv", "jsonl"]


def task_row(task: Task, block_ids: list[str]) -> list[str]:
    meta = [
        str(task.id),
        task.status,
        format_timestamp(task.created_at),
        format_timestamp(task.completed_at) if task.completed_at else "",
    ]
    meta += [task.completed_by or "", task.source]
    return meta + [to_cell(task.data.get(block_id)) for block_id in block_ids]


async def write_tasks(
    pages: AsyncIterator[TaskPage],
    out: IO[str],
    form: Format,
    block_ids: list[str],
    on_page: Callable[[int, int], None] = lambda added, total: None,
) -> int:
    """Every task of `pages` to `out`; `on_page(tasks in the page, count)` after each. The count."""
    written = 0
    with tempfile.TemporaryFile("w+", newline="", encoding="utf-8") as rows:
        # CSV rows go to a spool file first: a value of a block removed since (kept in the task's
        # data) gets its column, and the header that names it is known only at the end.
        writer = csv.writer(rows) if form == "csv" else None
        columns = list(block_ids)
        async for page in pages:
            for task in page.tasks:
                if writer is not None:
                    columns += [key for key in task.data if key not in columns]
                    writer.writerow(task_row(task, columns))
                else:
                    out.write(json.dumps(task.model_dump(mode="json"), ensure_ascii=False) + "\n")
            written += len(page.tasks)
            on_page(len(page.tasks), page.count)
        if writer is not None:
            csv.writer(out).writerow([*TASK_COLUMNS, *columns])
            _copy_padded(rows, out, len(TASK_COLUMNS) + len(columns), grew=columns != block_ids)
    return written


def _copy_padded(rows: IO[str], out: IO[str], width: int, *, grew: bool) -> None:
    """The spooled rows to `out`; rows written before a column was found get its empty cells."""
    rows.seek(0)
    if not grew:
        shutil.copyfileobj(rows, out)
        return
    writer = csv.writer(out)
    for row in csv.reader(rows):
        writer.writerow(row + [""] * (width - len(row)))
