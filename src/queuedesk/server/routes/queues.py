"""A3 list, A4 get, A5 flush, B12 create and B13 change queues."""

from typing import Any

import orjson
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem, control_problem, validate_blocks
from queuedesk.api.models import Block
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import conflict, invalid
from queuedesk.server.http.plumbing import EncodedJSONResponse, JSONResponse, empty, json_object, read_json
from queuedesk.server.queue_listings import QueueListings
from queuedesk.server.routes import db_of
from queuedesk.server.rules import consensus_settings
from queuedesk.server.store import audit, consensus, long_writes, queues
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.types import to_micros

QUEUE_FIELDS = ("name", "description", "data", "review_percent", "consensus", "gold_percent")


async def list_queues(request: Request, principal: Principal) -> Response:
    db = db_of(request)
    listings: QueueListings = request.app.state.queue_listings
    organization_id = principal.organization_id
    now = utcnow()
    stamp = db.change_stamp()  # before the read: a write after it makes the next stamp differ
    body = listings.get(organization_id, stamp, to_micros(now))
    if body is None:
        listing = await db.read(queues.list_queues, organization_id, now)
        body = orjson.dumps(serialize.queue_summaries(listing.queues))
        listings.keep(organization_id, stamp, to_micros(now), listing.lapses_at, body)
    return EncodedJSONResponse(body)


async def get_queue(request: Request, caller: QueueCaller) -> Response:
    detail = await db_of(request).read(queues.queue_detail, caller.queue, utcnow())
    return JSONResponse(serialize.queue_detail(detail))


def _check_queue_fields(body: dict[str, Any]) -> list[Problem]:
    """What is wrong with a queue's fields; a description's CRLF line breaks become LF (in `body`)."""
    problems: list[Problem] = []
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            problems.append(
                Problem("invalid_value", "name", "must be a non-empty string of at most 200 characters")
            )
        elif (problem := control_problem(name)) is not None:
            problems.append(Problem("invalid_value", "name", problem))
    if "description" in body:
        description = body["description"]
        if not isinstance(description, str) or len(description) > 10_000:
            problems.append(
                Problem("invalid_value", "description", "must be a string of at most 10000 characters")
            )
        else:
            body["description"] = description = description.replace("\r\n", "\n")
            if (problem := control_problem(description, lines=True)) is not None:
                problems.append(Problem("invalid_value", "description", problem))
    if "data" in body:
        problems += validate_blocks(body["data"])
    if "review_percent" in body:
        percent = body["review_percent"]
        if type(percent) is not int or not 0 <= percent <= 100:  # bool is not a percent
            problems.append(
                Problem(
                    "invalid_value",
                    "review_percent",
                    f"must be a whole number from 0 to 100, not {percent!r:.40}",
                )
            )
    if "gold_percent" in body:
        percent = body["gold_percent"]
        if type(percent) is not int or not 0 <= percent <= 50:  # bool is not a percent
            problems.append(
                Problem(
                    "invalid_value",
                    "gold_percent",
                    f"must be a whole number from 0 to 50, not {percent!r:.40}",
                )
            )
    return problems


def _blocks(raw: list[dict[str, Any]]) -> list[Block]:
    return [Block.model_validate(block) for block in raw]


def _consensus_change(body: dict[str, Any], queue: QueueRecord) -> tuple[bool, dict[str, Any] | None]:
    """(whether the update sets `consensus`, the settings it sets), checked against the blocks the
    queue will have. New blocks that drop or retype a block compared now are refused (400)."""
    blocks = _blocks(body["data"]) if "data" in body else queue.blocks
    if "consensus" in body:
        settings, problems = consensus_settings.checked(body["consensus"], blocks)
        if problems:
            raise invalid(problems)
        return True, settings
    if "data" in body and queue.consensus is not None:
        _kept, problems = consensus_settings.checked(queue.consensus, blocks)
        if problems:
            compared = ", ".join(queue.consensus["blocks"])
            raise invalid(
                [
                    Problem(
                        "invalid_value",
                        "data",
                        f"the queue compares blocks {compared} for consensus: keep them (with a type "
                        "that can be compared), or change 'consensus' too",
                    )
                ]
            )
    return False, None


def _name_taken(name: str) -> Exception:
    return conflict("conflict", f"A queue named {name!r} already exists in this organization.")


async def create_queue(request: Request, principal: Principal) -> Response:
    body = json_object(await read_json(request), allowed=QUEUE_FIELDS, required=("name", "data"))
    problems = _check_queue_fields(body)
    if problems:
        raise invalid(problems)
    settings, problems = consensus_settings.checked(body.get("consensus"), _blocks(body["data"]))
    if problems:
        raise invalid(problems)
    db = db_of(request)
    now = utcnow()

    def create(conn: Connection) -> QueueRecord:
        record = queues.create_queue(
            conn,
            principal.organization_id,
            body["name"].strip(),
            body.get("description", ""),
            body["data"],
            now,
            review_percent=body.get("review_percent", 0),
            consensus=settings,
            gold_percent=body.get("gold_percent", 0),
        )
        audit.record_queue_created(conn, principal, record)
        return record

    try:
        record = await db.write(create)
    except IntegrityError:
        raise _name_taken(body["name"]) from None
    detail = await db.read(queues.queue_detail, record, now)
    return JSONResponse(serialize.queue_detail(detail))


async def update_queue(request: Request, caller: QueueCaller) -> Response:
    body = json_object(await read_json(request), allowed=QUEUE_FIELDS)
    problems = _check_queue_fields(body)
    if problems:
        raise invalid(problems)
    changes: dict[str, Any] = {}
    if "name" in body:
        changes["name"] = body["name"].strip()
    if "description" in body:
        changes["description"] = body["description"]
    if "data" in body:
        changes["blocks"] = body["data"]
    if "review_percent" in body:
        changes["review_percent"] = body["review_percent"]
    if "gold_percent" in body:
        changes["gold_percent"] = body["gold_percent"]
    sets_consensus, settings = _consensus_change(body, caller.queue)
    if sets_consensus:
        changes["consensus"] = settings
    db = db_of(request)

    def change(conn: Connection) -> None:
        percent_before = queues.current_review_percent(conn, caller.queue.id)
        consensus_before = queues.current_consensus(conn, caller.queue.id)
        gold_before = queues.current_gold_percent(conn, caller.queue.id)
        if sets_consensus and settings is not None:
            changes["consensus_used"] = True
            consensus.adopt_open_tasks(conn, caller.queue.id)
        queues.update_queue(conn, caller.queue.id, changes)
        detail = _changed(caller.queue, changes, percent_before)
        if sets_consensus and settings != consensus_before:
            detail["fields"].append("consensus")
            detail["consensus"] = {"from": consensus_before, "to": settings}
        if "gold_percent" in changes and changes["gold_percent"] != gold_before:
            detail["fields"].append("gold_percent")
            detail["gold_percent"] = {"from": gold_before, "to": changes["gold_percent"]}
        if detail["fields"]:
            audit.record(
                conn, caller.principal, "queue.update", caller.queue.id, {"queue_id": caller.queue.id}, detail
            )

    try:
        await db.write(change)
    except IntegrityError:
        raise _name_taken(body["name"]) from None
    record = await db.read(queues.get_queue, caller.principal.organization_id, caller.queue.id)
    assert record is not None
    detail = await db.read(queues.queue_detail, record, utcnow())
    return JSONResponse(serialize.queue_detail(detail))


def _changed(queue: QueueRecord, changes: dict[str, Any], percent_before: int) -> dict[str, Any]:
    """What an update changed, for the audit log: the fields, the name's and the review share's old
    and new value, the blocks added and removed (the description's text is not repeated)."""
    detail: dict[str, Any] = {"fields": []}
    if "name" in changes and changes["name"] != queue.name:
        detail["fields"].append("name")
        detail["name"] = {"from": queue.name, "to": changes["name"]}
    if "description" in changes and changes["description"] != queue.description:
        detail["fields"].append("description")
    if "blocks" in changes and changes["blocks"] != queue.raw_blocks:
        detail["fields"].append("data")
        before = [block["id"] for block in queue.raw_blocks]
        after = [block["id"] for block in changes["blocks"]]
        detail["blocks_added"] = [block for block in after if block not in before]
        detail["blocks_removed"] = [block for block in before if block not in after]
    if "review_percent" in changes and changes["review_percent"] != percent_before:
        detail["fields"].append("review_percent")
        detail["review_percent"] = {"from": percent_before, "to": changes["review_percent"]}
    return detail


async def flush(request: Request, caller: QueueCaller) -> Response:
    await db_of(request).long_write(long_writes.flush_and_record, caller.principal, caller.queue)
    return empty()
