"""`queuedesk export QUEUE --format csv|jsonl`: every completed task, streamed page by page."""

import argparse
import csv
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from queuedesk.api.csv_values import TASK_COLUMNS, to_cell
from queuedesk.api.models import Task
from queuedesk.commands.common import OK, UsageError, client_from, find_queue


class Progress:
    """`Exporting 4,000 / 20,000 tasks (20%)` on stderr, only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty()
        self.done = 0
        self.total = 0

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.enabled:
            share = f" ({done * 100 // total}%)" if total else ""
            sys.stderr.write(f"\r{self.label} {done:,} / {total:,} tasks{share}")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


@contextmanager
def output(path: str | None) -> Iterator[IO[str]]:
    """Standard output, or the file — written beside it and moved into place only when complete."""
    if path is None or path == "-":
        yield sys.stdout
        return
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        handle = partial.open("w", newline="", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with handle:
            yield handle
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def _task_row(task: Task, block_ids: list[str]) -> list[str]:
    meta = [
        str(task.id),
        task.status,
        task.created_at.isoformat(),
        task.completed_at.isoformat() if task.completed_at else "",
    ]
    meta += [task.completed_by or "", task.source]
    return meta + [to_cell(task.data.get(block_id)) for block_id in block_ids]


async def export(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        block_ids = [b.id for b in (await client.queue(queue.id)).data]
        progress = Progress(f"Exporting {queue.name!r}:")
        exported = 0
        with output(args.output) as out:
            writer = csv.writer(out) if args.format == "csv" else None
            if writer is not None:
                writer.writerow([*TASK_COLUMNS, *block_ids])
            async for page in client.completed_pages(queue.id, page_size=args.page_size):
                for task in page.tasks:
                    if writer is not None:
                        writer.writerow(_task_row(task, block_ids))
                    else:
                        out.write(json.dumps(task.model_dump(mode="json"), ensure_ascii=False) + "\n")
                exported += len(page.tasks)
                progress.update(exported, max(page.count, exported))
        progress.finish()
    if args.output not in (None, "-"):
        print(
            f"Exported {exported} completed task(s) of queue {queue.id} {queue.name!r} to {args.output}.",
            file=sys.stderr,
        )
    return OK


def add_parsers(commands: argparse._SubParsersAction, connection: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    exporting = commands.add_parser(
        "export", parents=[connection], help="write every completed task as CSV or JSON lines"
    )
    exporting.add_argument("queue", help="queue id or name")
    exporting.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv (default) or jsonl")
    exporting.add_argument("--output", "-o", help="file to write (default: standard output)")
    exporting.add_argument("--page-size", type=int, default=1000, help="tasks per request (1-1000)")
    exporting.set_defaults(client_command=export)
