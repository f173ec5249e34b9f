"""Import sessions (a QueueDesk extension): an import larger than one request, all or nothing.

`POST .../imports` opens (or finds, by the client's key) a session; `POST .../imports/{id}/chunks`
stages rows at an offset (re-sending a chunk changes nothing); `POST .../imports/{id}/commit`
makes every staged row a task in one transaction (committing again answers the same ids);
`GET .../imports/{id}` says where it stands.
"""

import asyncio
import itertools
import logging
import re
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Findings, Problem, first_problems, task_data_problems
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http.http_errors import ServiceError, conflict, error, invalid, not_found
from queuedesk.server.http.plumbing import JSONResponse, json_object, read_json
from queuedesk.server.http.serialize import ts
from queuedesk.server.routes import db_of
from queuedesk.server.routes.tasks import CSV_SOURCE, MAX_IMPORT
from queuedesk.server.rules import gold
from queuedesk.server.store import imports, long_writes
from queuedesk.server.store.database import Database
from queuedesk.server.store.imports import CommitOutcome, Session

log = logging.getLogger("queuedesk.imports")
_sweeps: dict[int, "asyncio.Task[None]"] = {}  # the running sweep of expired sessions, per database
MAX_SESSION_ROWS = 1_000_000
KEY = re.compile(r"[A-Za-z0-9_.:-]{1,128}")  # fullmatch: `$` would let a final newline through


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def session_body(session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "key": session.key,
        "status": session.status,
        "source": session.source,
        "total": session.total,
        "staged": session.staged,
        "next_offset": session.next_offset,
        "created_at": ts(session.created_at),
        "expires_at": ts(session.expires_at),
        "committed_at": ts(session.committed_at),
        "created": session.created,
        "ids": session.ids,
    }


def _missing(session_id: int) -> ServiceError:
    return not_found(f"Import {session_id} not found in this queue (or it expired: start it again).")


def _committed(session: Session) -> ServiceError:
    return conflict(
        "conflict",
        f"Import {session.id} is already committed ({session.created} tasks): it takes no more rows.",
    )


def _session_problems(body: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    key, source, total = body["key"], body["source"], body["total"]
    if not isinstance(key, str) or not KEY.fullmatch(key):
        problems.append(
            Problem("invalid_value", "key", "must be 1-128 letters, digits, '_', '.', ':' or '-'")
        )
    if not isinstance(source, str) or not (source in ("manual", "connector") or CSV_SOURCE.fullmatch(source)):
        problems.append(
            Problem("invalid_value", "source", "must be 'manual', 'connector' or a file name ending in .csv")
        )
    if not _whole(total) or not 1 <= total <= MAX_SESSION_ROWS:
        problems.append(
            Problem("invalid_value", "total", f"must be a whole number from 1 to {MAX_SESSION_ROWS}")
        )
    return problems


async def open_import(request: Request, caller: QueueCaller) -> Response:
    body = json_object(
        await read_json(request), allowed=("key", "source", "total"), required=("key", "source", "total")
    )
    problems = _session_problems(body)
    if problems:
        raise invalid(problems)
    session = await db_of(request).write(
        imports.open_session, caller.queue.id, body["key"], body["source"], body["total"], utcnow()
    )
    if (session.source, session.total) != (body["source"], body["total"]):
        raise conflict(
            "conflict",
            f"Import {session.id} already has the key {session.key!r}, with source {session.source!r} "
            f"and {session.total} rows: use another key for another import.",
        )
    _sweep_soon(db_of(request))
    return JSONResponse(session_body(session))


def _sweep_soon(db: Database) -> None:
    """Remove expired sessions and their staged rows after this answer, beside the requests: one
    sweep at a time per database, a batch of rows per transaction in the work processes."""
    running = _sweeps.get(id(db))
    if running is None or running.done():
        _sweeps[id(db)] = asyncio.get_running_loop().create_task(_sweep_expired(db))


async def _sweep_expired(db: Database) -> None:
    try:
        now = utcnow()
        for session_id, total in await db.read(imports.expired_sessions, now):
            for start in range(0, total, imports.DROP_BATCH):
                await db.long_write(imports.drop_rows, session_id, start, start + imports.DROP_BATCH)
            await db.long_write(imports.drop_expired_session, session_id, now)
    except Exception:
        log.exception("expired imports: the sweep stopped; the next session opened sweeps again")


async def get_import(request: Request, caller: QueueCaller) -> Response:
    session_id = request.path_params["import"]
    db = db_of(request)
    # Progress is one short row (the first missing one is tracked as rows are staged): read on the
    # loop, which costs less than the hop to a reader. A committed session's ids may be megabytes.
    session = await db.read(imports.get_session, caller.queue.id, session_id, utcnow(), with_ids=False)
    if session is not None and session.status == "committed":
        session = await db.scan(imports.get_session, caller.queue.id, session_id, utcnow())
    if session is None:
        raise _missing(session_id)
    return JSONResponse(session_body(session))


def _chunk_problems(caller: QueueCaller, session: Session, body: dict[str, Any]) -> Findings | list[Problem]:
    offset, items = body["offset"], body["tasks"]
    if not _whole(offset) or offset < 0:
        return [Problem("invalid_value", "offset", "must be a whole number from 0 on")]
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_IMPORT:
        return [
            Problem(
                "invalid_value", "tasks", f'must be a list of 1 to {MAX_IMPORT} {{"data": {{...}}}} objects'
            )
        ]
    if offset + len(items) > session.total:
        return [
            Problem(
                "invalid_value",
                "tasks",
                f"rows {offset} to {offset + len(items) - 1} go past the import's {session.total} rows",
            )
        ]
    return first_problems(_row_problems(caller, offset, items))


def _row_problems(caller: QueueCaller, offset: int, items: list[Any]) -> Iterator[Problem]:
    """Every row's problems, one at a time: the answer lists the first ones and counts all."""
    by_id = {block.id: block for block in caller.queue.blocks}
    for index, item in enumerate(items):
        row = f"row {offset + index}"
        where = f"tasks[{index}]"
        if not isinstance(item, dict) or "data" not in item or not set(item) <= {"data", "gold"}:
            yield Problem("invalid_value", where, f"{row}: must be an object with 'data' (and 'gold')")
        else:
            found = task_data_problems(
                caller.queue.blocks, item["data"], field_name=f"{where}.data", by_id=by_id
            )
            if item.get("gold") is not None:  # B22
                found = itertools.chain(
                    found, gold.expected_problems(caller.queue, item["gold"], f"{where}.gold")
                )
            yield from (Problem(p.code, p.field, f"{row}: {p.message}") for p in found)


async def stage_chunk(request: Request, caller: QueueCaller) -> Response:
    session_id = request.path_params["import"]
    body = json_object(await read_json(request), allowed=("offset", "tasks"), required=("offset", "tasks"))
    db = db_of(request)
    session = await db.read(imports.get_session, caller.queue.id, session_id, utcnow(), with_ids=False)
    if session is None:
        raise _missing(session_id)
    if session.status == "committed":
        raise _committed(session)
    problems = _chunk_problems(caller, session, body)
    if problems:
        raise invalid(problems)
    items = [item["data"] for item in body["tasks"]]
    expected = [item.get("gold") for item in body["tasks"]]
    # Thousands of rows: a long write (on SQLite in the writer process, beside others' reads).
    staged = await db.long_write(
        imports.stage, caller.queue, session_id, body["offset"], items, utcnow(), expected
    )
    if staged is None:
        raise _missing(session_id)
    if staged.status == "committed":
        raise _committed(staged)
    return JSONResponse(session_body(staged))


async def _drop_staged_rows(db: Database, session: Session) -> None:
    """The committed session's staged rows, a batch per transaction (other writes go between). The
    tasks are made and the answer kept whatever happens here: rows left behind go with the session
    when it expires."""
    try:
        for start in range(0, session.total, imports.DROP_BATCH):
            await db.long_write(imports.drop_rows, session.id, start, start + imports.DROP_BATCH)
    except Exception:
        log.exception("import %s: its staged rows were left for the session's expiry", session.id)


async def commit_import(request: Request, caller: QueueCaller) -> Response:
    session_id = request.path_params["import"]
    body = await read_json(request, required=False)
    if body not in (None, {}):
        raise error(400, "invalid_value", "Committing takes no body (or {}).")

    db = db_of(request)
    done = await db.long_write(
        long_writes.commit_and_record, caller.principal, caller.queue, session_id, utcnow()
    )
    if done is None:
        raise _missing(session_id)
    session, outcome = done
    if outcome is CommitOutcome.COMMITTED:
        await _drop_staged_rows(db, session)
    if outcome is CommitOutcome.INCOMPLETE:
        raise conflict(
            "conflict",
            f"Import {session.id} has {session.staged} of its {session.total} rows staged: stage the rest "
            f"(from row {session.next_offset}) before committing. Nothing was created.",
        )
    return JSONResponse({"created": session.created, "ids": session.ids})
