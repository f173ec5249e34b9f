"""An import of more than one request, on a QueueDesk server: all or nothing, across crashes.

The rows go into an import session on the server, chunk by chunk, and become tasks in one commit.
The session's key is made from the queue, the source, the first row and the file's bytes, so the
same command run again (after a crash of either side, a lost connection, Ctrl-C) finds the same
session: it sends only what is not staged yet, and if the commit already happened it answers the
tasks that commit made. Nothing is ever created twice.
"""

import hashlib
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from queuedesk.api import errors
from queuedesk.api.wording import counted

if TYPE_CHECKING:
    from queuedesk.api.client import QueueDeskClient
    from queuedesk.api.models import ImportSession
    from queuedesk.commands.csv_rows import Row
    from queuedesk.commands.progress import Progress


def session_key(queue_id: int, source: str, start_row: int, content: bytes) -> str:
    """The same for the same command on the same file; different for any other import."""
    digest = hashlib.sha256(f"{queue_id}\n{source}\n{start_row}\n".encode())
    digest.update(content)
    return f"csv-sha256:{digest.hexdigest()}"


@dataclass
class Committed:
    """What the import's one commit made, row by row."""

    session: "ImportSession"
    created: list[tuple[int, int]]  # (row number, task id)
    resumed: bool  # an earlier run had staged rows (or committed) already
    earlier: bool  # the commit was an earlier run's: nothing was created now


@dataclass(eq=False)
class Interrupted(Exception):
    """Staging or committing failed; nothing was created by this run (unless `maybe_committed`)."""

    session_id: int | None
    staged: int
    total: int
    chunk: "list[Row]"  # the rows of the request that failed (every row, for the commit)
    error: errors.QueueDeskError
    committing: bool


def _say(message: str) -> None:
    print(f"queuedesk: {message}", file=sys.stderr)


async def import_in_session(
    client: "QueueDeskClient",
    queue_id: int,
    path: Path,
    source: str,
    start_row: int,
    chunks: "list[list[Row]]",
    progress: "Progress",
    *,
    again: bool = False,
) -> Committed:
    """`again`: a session of its own (a key with this moment in it), not the file's earlier one."""
    rows = [row for chunk in chunks for row in chunk]
    key = session_key(queue_id, source, start_row, path.read_bytes())
    if again:
        key = f"{key[:100]}:again:{time.time_ns()}"
    try:
        session = await client.open_import(queue_id, key, source, len(rows))
    except errors.QueueDeskError as exc:
        raise Interrupted(None, 0, len(rows), rows, exc, committing=False) from None
    resumed = session.status == "committed" or session.staged > 0
    if session.status == "committed":
        _say(
            f"this file was already imported (import session {session.id}, committed {session.committed_at})"
        )
    elif session.staged:
        _say(
            f"resuming import session {session.id}: {session.staged:,} of {counted(session.total, 'row')} "
            f"{'was' if session.staged == 1 else 'were'} staged by an earlier run; sending the rest"
        )
    if session.status != "committed":
        progress.advance(session.next_offset)
        offset = 0
        for chunk in chunks:
            end = offset + len(chunk)
            if end > session.next_offset:
                try:
                    session = await client.stage_import_chunk(
                        queue_id, session.id, offset, [r.data for r in chunk], gold=[r.gold for r in chunk]
                    )
                except errors.QueueDeskError as exc:
                    raise Interrupted(
                        session.id, session.staged, len(rows), chunk, exc, committing=False
                    ) from None
                progress.advance(end - max(offset, progress.done))
            offset = end
    try:
        result = await client.commit_import(queue_id, session.id)
    except errors.QueueDeskError as exc:
        raise Interrupted(session.id, session.staged, len(rows), rows, exc, committing=True) from None
    created = list(zip((row.number for row in rows), result.ids, strict=True))
    return Committed(session, created, resumed, earlier=session.status == "committed")


TASK_INDEX = re.compile(r"^tasks\[(\d+)\]")


def _rows_refused(stop: Interrupted) -> str:
    """The server's refusals of a chunk, each naming the file's row (`tasks[i]` is the chunk's i-th)."""
    lines = []
    for item in stop.error.errors:
        found = TASK_INDEX.match(item.field or "")
        index = int(found.group(1)) if found else None
        where = stop.chunk[index].where if index is not None and index < len(stop.chunk) else item.field
        lines.append(f"\n  {where}: {item.field}: {item.message}")
    return "".join(lines)


def interrupted_message(where: str, stop: Interrupted) -> str:
    """What happened, that nothing was created, and that running the command again resumes."""
    if stop.committing:
        happened = (
            f"committing import session {stop.session_id} into {where} failed: {stop.error}\n"
            "  either all rows became tasks or none did"
        )
    elif stop.session_id is None:
        happened = f"opening an import session in {where} failed: {stop.error}\n  nothing was imported"
    else:
        happened = (
            f"import into {where} stopped at {stop.chunk[0].where}: {stop.error}"
            f"{_rows_refused(stop) if isinstance(stop.error, errors.ValidationError) else ''}\n"
            f"  nothing was imported: {stop.staged:,} of {counted(stop.total, 'row')} "
            f"{'waits' if stop.staged == 1 else 'wait'} staged in import session "
            f"{stop.session_id} (kept for 24 hours), invisible until the import commits"
        )
    if isinstance(stop.error, errors.ValidationError | errors.Forbidden | errors.AuthenticationError):
        return happened
    return f"{happened}\n  run the same command again to resume: rows already staged are not sent again"
