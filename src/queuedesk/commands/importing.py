"""`queuedesk import QUEUE FILE.csv [--start-row N]`: one task per row, every row checked first.

On a QueueDesk server the rows go in bulk requests (at most 10,000 rows and 900 KiB each): one
request when they fit, else an import session (`staged_import.py`) that makes every task in one
commit and that the same command resumes after a failure. A server
without bulk import gets one create per row: every row is first checked against what that server is
known to refuse too, and if a row still fails, the command stops and says exactly which rows were
created (row numbers and task ids), which row failed, and how to resume (`--start-row`).
"""

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from queuedesk.api import errors
from queuedesk.api.numbers import plain_int
from queuedesk.api.wording import counted, id_span
from queuedesk.commands.common import (
    OK,
    PARTIAL,
    client_from,
    exit_code,
    fail,
    find_queue,
    print_json,
)

# Imported when an import runs (this module is imported on every start, to build the parser).
if TYPE_CHECKING:
    from queuedesk.api.client import QueueDeskClient
    from queuedesk.commands.csv_rows import Row
    from queuedesk.commands.progress import Progress
    from queuedesk.commands.staged_import import Committed

MAX_TASKS_PER_REQUEST = 10_000
MAX_BYTES_PER_REQUEST = 900 * 1024  # under the server's 1 MiB, with room for the envelope
COUNT_SECONDS = 10.0  # how long an interrupted import waits for the queue's count


class ImportInterrupted(errors.QueueDeskError):
    """Ctrl-C while a row was being created: whether it was is told by the queue's count."""


INTERRUPTED = 130
# Failures after which the server may have created the rows anyway.
UNSURE = (errors.ServerError, errors.ConnectionFailed, errors.UnexpectedResponse, ImportInterrupted)


@dataclass(eq=False)
class Stopped(Exception):
    """A row failed after `created` rows were made (as (row number, task id) pairs)."""

    created: list[tuple[int, int]]
    failed: "Row"
    error: errors.QueueDeskError

    @property
    def unsure(self) -> bool:
        return isinstance(self.error, UNSURE)

    @property
    def resume_row(self) -> int:
        """The row to start again from: the one after the failed row when that was probably made."""
        saved = self.unsure and self.error.probably_saved is True
        return self.failed.number + 1 if saved else self.failed.number


def batches(rows: "list[Row]", max_rows: int = MAX_TASKS_PER_REQUEST) -> "Iterator[list[Row]]":
    """Groups that fit one import request (at most `max_rows`, and the body size)."""
    batch: list[Row] = []
    size = 0
    for row in rows:
        row_size = len(json.dumps({"data": row.data, "gold": row.gold}, ensure_ascii=False).encode()) + 1
        if batch and (len(batch) >= max_rows or size + row_size > MAX_BYTES_PER_REQUEST):
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += row_size
    if batch:
        yield batch


async def _in_bulk(
    client: "QueueDeskClient", queue_id: int, rows: "list[Row]", source: str, progress: "Progress"
) -> list[tuple[int, int]]:
    created: list[tuple[int, int]] = []
    for batch in batches(rows):
        try:
            result = await client.import_tasks(
                queue_id, [row.data for row in batch], source, gold=[row.gold for row in batch]
            )
        except errors.QueueDeskError as exc:
            raise Stopped(created, batch[0], exc) from None
        created += zip((row.number for row in batch), result.ids, strict=True)
        progress.advance(len(batch))
    return created


async def _one_by_one(
    client: "QueueDeskClient", queue_id: int, rows: "list[Row]", progress: "Progress"
) -> list[tuple[int, int]]:
    created: list[tuple[int, int]] = []
    count_before = await _count(client, queue_id)
    for row in rows:
        try:
            task = await client.create_task(queue_id, row.data, gold=row.gold)
        except errors.QueueDeskError as exc:
            raise Stopped(created, row, exc) from None
        except asyncio.CancelledError:  # ctrl+c: say what was made and where to resume
            interrupted = ImportInterrupted("interrupted (ctrl+c) while the row was being sent")
            count = await _count(client, queue_id)
            if count is not None and count_before is not None:
                interrupted.probably_saved = count - count_before > len(created)
            raise Stopped(created, row, interrupted) from None
        created.append((row.number, task.id))
        progress.advance(1)
    return created


async def _count(client: "QueueDeskClient", queue_id: int) -> int | None:
    """The queue's task count (what tells whether an interrupted create was made); None if unread."""
    try:
        async with asyncio.timeout(COUNT_SECONDS):
            queues = await client.queues()
    except (errors.QueueDeskError, TimeoutError):
        return None
    return next((queue.n_tasks for queue in queues if queue.id == queue_id), None)


def spans(created: Sequence[tuple[int, int]]) -> str:
    """`rows 1-4 → ids 101-104, row 6 → id 110`: every created row and its task, compactly."""
    parts: list[str] = []
    start = 0
    while start < len(created):
        end = start
        while (
            end + 1 < len(created)
            and created[end + 1][0] == created[end][0] + 1
            and created[end + 1][1] == created[end][1] + 1
        ):
            end += 1
        (first_row, first_id), (last_row, last_id) = created[start], created[end]
        parts.append(
            f"row {first_row} → id {first_id}"
            if start == end
            else f"rows {first_row}-{last_row} → ids {first_id}-{last_id}"
        )
        start = end + 1
    return ", ".join(parts)


def _stopped(args: argparse.Namespace, where: str, stop: Stopped) -> int:
    row = stop.failed
    resume = stop.resume_row
    code = INTERRUPTED if isinstance(stop.error, ImportInterrupted) else PARTIAL
    maybe = ""
    if stop.unsure and stop.error.probably_saved is True:
        maybe = f"\n  row {row.number} was probably created all the same (the queue's count rose)"
    elif stop.unsure and stop.error.probably_saved is False:
        maybe = f"\n  row {row.number} was probably not created (the queue's count did not change)"
    elif stop.unsure:
        maybe = (
            f"\n  row {row.number} may have been created anyway (the server failed or did not answer): "
            "look at the queue before resuming"
        )
    if not stop.created:
        again = f"\n  to resume: run the same command with --start-row {resume}" if resume > 1 else ""
        code = INTERRUPTED if isinstance(stop.error, ImportInterrupted) else exit_code(stop.error)
        return fail(f"{row.where}: {stop.error}\n  nothing was imported before it{maybe}{again}", code)
    if args.json:
        print_json(
            {
                "created": len(stop.created),
                "rows": [number for number, _ in stop.created],
                "ids": [task_id for _, task_id in stop.created],
                "failed_row": row.number,
                "failed_line": row.line,
                "error": str(stop.error),
                "maybe_created": stop.unsure and stop.error.probably_saved is not False,
                "start_row": resume,
            }
        )
    return fail(
        f"import into {where} stopped at {row.where}: {stop.error}\n"
        f"  created before it: {counted(len(stop.created), 'task')}: {spans(stop.created)}\n"
        f"  not created: row {resume} and every row after it{maybe}\n"
        f"  to resume: run the same command with --start-row {resume}",
        code,
    )


async def _still_there(client: "QueueDeskClient", queue_id: int, ids: list[int]) -> bool:
    """Whether an earlier import's tasks are still in the queue (its first and last are looked up)."""
    for task_id in {ids[0], ids[-1]}:
        try:
            await client.task(queue_id, task_id)
        except errors.NotFound:
            return False
    return True


def _committed(
    args: argparse.Namespace, queue_id: int, where: str, source: str, done: "Committed", *, gone: bool = False
) -> int:
    ids = [task_id for _, task_id in done.created]
    session = done.session
    if args.json:
        print_json(
            {
                "queue_id": queue_id,
                "created": len(ids),
                "ids": ids,
                "source": source,
                "import_session": session.id,
                "resumed": done.resumed,
                "already_imported": done.earlier,
                "earlier_tasks_gone": gone,
            }
        )
    elif done.earlier and gone:
        print(
            f"Nothing imported: this file was imported into {where} before (import session {session.id}, "
            f"{id_span(ids)}), but those tasks are no longer there: flushed or deleted since. "
            "To import the file anew, run the same command with --again."
        )
    elif done.earlier:
        print(
            f"Nothing new imported: {where} already has this file's {counted(len(ids), 'task')} ({id_span(ids)}), "
            f"made by import session {session.id}. To import it once more as new tasks, add --again."
        )
    else:
        print(
            f"Imported {counted(len(ids), 'task')} into {where} ({id_span(ids)}) in one commit "
            f"(import session {session.id})."
        )
    return OK


async def import_csv(args: argparse.Namespace) -> int:
    from queuedesk.commands.csv_rows import gold_of, read_rows
    from queuedesk.commands.progress import Progress
    from queuedesk.commands.staged_import import Interrupted, import_in_session, interrupted_message

    path = Path(args.file)
    source = path.name if path.name.lower().endswith(".csv") else f"{path.name}.csv"
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        where = f"queue {queue.id} {queue.name!r}"
        detail = await client.queue(queue.id)
        bulk = await client.supports_extensions()
        rows = read_rows(path, detail.data, args.start_row, original=not bulk)
        if gold_of(rows) is not None:
            await client.queue_with_gold(queue.id)  # NoGold, with nothing sent, on an older server
        if not bulk:
            source = "api"
            print(
                f"queuedesk: this server has no bulk import: {counted(len(rows), 'task')} {'is' if len(rows) == 1 else 'are'} created one at a "
                f"time, with source 'api' (not {path.name!r})",
                file=sys.stderr,
            )
        chunks = list(batches(rows, args.chunk_rows)) if bulk else []
        try:
            with Progress(f"Importing into {queue.name!r}", "rows", len(rows)) as progress:
                if len(chunks) > 1:
                    done = await import_in_session(
                        client, queue.id, path, source, args.start_row, chunks, progress, again=args.again
                    )
                    ids = [task_id for _, task_id in done.created]
                    gone = done.earlier and not await _still_there(client, queue.id, ids)
                    return _committed(args, queue.id, where, source, done, gone=gone)
                if bulk:
                    created = await _in_bulk(client, queue.id, rows, source, progress)
                else:
                    created = await _one_by_one(client, queue.id, rows, progress)
        except Stopped as stop:
            return _stopped(args, where, stop)
        except Interrupted as interrupted:
            return fail(interrupted_message(where, interrupted), exit_code(interrupted.error))
    ids = [task_id for _, task_id in created]
    if args.json:
        print_json({"queue_id": queue.id, "created": len(ids), "ids": ids, "source": source})
    else:
        print(f"Imported {counted(len(ids), 'task')} into {where} ({id_span(ids)}).")
    return OK


def start_row(text: str) -> int:
    number = plain_int(text)
    if not number:
        raise argparse.ArgumentTypeError(f"must be a row number from 1 on, not {text!r}")
    return number


def chunk_rows(text: str) -> int:
    number = plain_int(text)
    if number is None or not 1 <= number <= MAX_TASKS_PER_REQUEST:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_TASKS_PER_REQUEST}, not {text!r}")
    return number


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    importing = commands.add_parser(
        "import",
        parents=[connection],
        help="create tasks from a CSV file (columns = block ids; gold.<block id> = expected values), "
        "every row checked first",
        description="Create one task per row of a CSV file whose header names the queue's blocks. "
        "Every row is checked before anything is sent: one bad row and nothing is created. On a "
        "QueueDesk server a file larger than one request goes into an import session and becomes "
        "tasks in one commit: after a failure, the same command resumes it and never duplicates. On a "
        "server without bulk import the rows are created one at a time; if one still fails, the "
        "command stops (exit 8), names the rows created and how to resume with --start-row. "
        "Gold tasks (admins; a server with B22): a column gold.<block id> holds that block's expected "
        "value; a row with a value in any gold. column is a gold task expecting those values (an "
        "empty cell expects nothing of its block), a row without is an ordinary task. Only "
        "selection, yes/no, number and date blocks may have a gold. column.",
        epilog="example header: text,category,gold.category  (a row 'Hi,,red' is a gold task "
        "whose expected category is red)",
    )
    importing.add_argument("queue", help="queue id or name")
    importing.add_argument(
        "file",
        help="the CSV file; on a QueueDesk server its name becomes the tasks' source (a server without "
        "bulk import, such as the original service, records 'api')",
    )
    importing.add_argument(
        "--start-row",
        type=start_row,
        default=1,
        metavar="N",
        help="skip the rows before row N (1 = the first row after the header), to resume an import",
    )
    importing.add_argument(
        "--chunk-rows",
        type=chunk_rows,
        default=MAX_TASKS_PER_REQUEST,
        metavar="N",
        help=f"rows per request on a QueueDesk server (1-{MAX_TASKS_PER_REQUEST:,}; default the most)",
    )
    importing.add_argument(
        "--again",
        action="store_true",
        help="import a file that was imported before once more, as new tasks (e.g. after a flush); "
        "without it a repeated import creates nothing",
    )
    importing.set_defaults(client_command=import_csv)
