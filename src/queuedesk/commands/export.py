"""`queuedesk export QUEUE --format csv|jsonl`: every completed task, streamed page by page (in JSON
lines with each task's answers in a consensus queue, B21)."""

import argparse
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import IO

from queuedesk import collector
from queuedesk.api.models import TaskPage
from queuedesk.api.numbers import plain_int
from queuedesk.api.task_export import write_tasks
from queuedesk.api.wording import counted
from queuedesk.atomic_write import SHARED, atomic_write
from queuedesk.commands.common import OK, UsageError, client_from, find_queue


@contextmanager
def output(path: str | None) -> Iterator[IO[str]]:
    """Standard output, or the file — written beside it and moved into place only when complete."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with ExitStack() as stack:
        try:
            handle = stack.enter_context(atomic_write(Path(path), permissions=SHARED, newline=""))
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from None
        yield handle


async def export(args: argparse.Namespace) -> int:
    from queuedesk.commands.progress import Progress  # rich's progress: only when exporting

    collector.freeze_before_export()  # else a page's body can outlive it (see there)
    refuse_reversed_dates(args.start_date, args.end_date)
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        detail = await client.queue(queue.id)
        block_ids = [b.id for b in detail.data]
        answers = _with_answers(args, has_consensus=detail.consensus is not None)
        pages = client.completed_pages(
            queue.id,
            page_size=args.page_size,
            completed_by=args.completed_by,
            start_date=args.start_date,
            end_date=args.end_date,
        )
        if answers:
            pages = client.with_answers(queue.id, pages)
        # The first page is read before anything is written: a refusal (a worker's key, a filter the
        # server rejects) leaves the output empty rather than a CSV header alone.
        first = await anext(aiter(pages), None)
        with output(args.output) as out, Progress(f"Exporting {queue.name!r}", "tasks") as progress:
            exported = await write_tasks(
                _with_first(first, pages),
                out,
                args.format,
                block_ids,
                lambda added, total: progress.advance(added, total=total),
            )
    target = f" to {args.output}" if args.output not in (None, "-") else ""
    print(
        f"Exported {counted(exported, 'completed task')} of queue {queue.id} {queue.name!r}{target}.",
        file=sys.stderr,
    )
    return OK


def _with_answers(args: argparse.Namespace, *, has_consensus: bool) -> bool:
    """Whether each task's answers (B21) go with it: as asked, else when the queue has consensus,
    in JSON lines only (a CSV row has no place for several answers)."""
    if args.answers and args.format != "jsonl":
        raise UsageError("each task's answers are written in JSON lines: add --format jsonl")
    if args.answers is None and has_consensus and args.format != "jsonl":
        print(
            "queuedesk: this queue has consensus: each task's answers are written with --format jsonl",
            file=sys.stderr,
        )
    wanted: bool = args.answers if args.answers is not None else has_consensus
    return wanted and args.format == "jsonl"


async def _with_first(first: TaskPage | None, rest: AsyncIterator[TaskPage]) -> AsyncIterator[TaskPage]:
    if first is None:
        return
    yield first
    async for page in rest:
        yield page


def _utc(value: date | datetime, *, end: bool) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return datetime.combine(value, time.max if end else time.min, tzinfo=UTC)


def refuse_reversed_dates(start: date | datetime | None, end: date | datetime | None) -> None:
    """UsageError when the period is empty: nothing could be exported, and saying 0 would mislead."""
    if start is not None and end is not None and _utc(start, end=False) > _utc(end, end=True):
        raise UsageError(
            f"--start-date ({start.isoformat()}) is after --end-date ({end.isoformat()}): no task can "
            "match; swap them"
        )


def page_size(text: str) -> int:
    number = plain_int(text)
    if number is None or not 1 <= number <= 1000:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 1000, not {text!r}")
    return number


def moment(text: str) -> date | datetime:
    """An ISO 8601 date (a whole UTC day) or date-time (UTC when it names no offset)."""
    for parse in (date.fromisoformat, datetime.fromisoformat):
        try:
            return parse(text)
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date or date-time, e.g. 2026-11-21")


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    exporting = commands.add_parser(
        "export",
        parents=[connection],
        help="write completed tasks as CSV or JSON lines",
        description="Write every completed task (or those the filters select), newest first, each "
        "once: tasks completed while the export runs are left out.",
    )
    exporting.add_argument("queue", help="queue id or name")
    exporting.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv (default) or jsonl")
    exporting.add_argument("--output", "-o", help="file to write (default: standard output)")
    exporting.add_argument("--page-size", type=page_size, default=1000, help="tasks per request (1-1000)")
    exporting.add_argument(
        "--start-date", type=moment, metavar="WHEN", help="completed on or after this date or date-time"
    )
    exporting.add_argument(
        "--end-date", type=moment, metavar="WHEN", help="completed on or before this date or date-time"
    )
    exporting.add_argument("--completed-by", metavar="EMAIL", help="completed by this user ('me': you)")
    exporting.add_argument(
        "--answers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --format jsonl, each task's answers in a consensus queue, their agreement and how "
        "it ended, as its `consensus` (default: when the queue has consensus; one request per task)",
    )
    exporting.set_defaults(client_command=export)
