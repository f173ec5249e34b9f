"""The rules of suggestions (B23): what a new task's suggestions must be, and their outcome, recorded
in the transaction that completes the task.

The server never applies a suggestion: a value the client does not send stays as it is. The outcome
of each suggested block is "accepted" when the completing values (in a consensus queue, the settled
or decided ones) equal the suggestion by B21's equality, else "changed"; a later review does not
change it. The completion event and the completing answer carry `suggestions` and
`suggestion_outcome` when the task had suggestions.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from queuedesk.api.blocks import Problem, first_problems
from queuedesk.api.suggestion_rules import lowest_score, normalized, suggestion_problems
from queuedesk.server.rules.agreement import equal
from queuedesk.server.rules.refusals import InvalidTaskData
from queuedesk.server.store import suggestions as store
from queuedesk.server.store.embedded import embedded
from queuedesk.server.store.records import QueueRecord


def not_on_gold(field: str = "suggestions") -> Problem:
    """B22 and B23 together: a gold task measures the worker, a suggestion would answer for them."""
    return Problem(
        "invalid_value",
        field,
        "a gold task takes no suggestions: they would show the worker its answer (drop 'gold' or 'suggestions')",
    )


NOT_ON_GOLD = not_on_gold()


def problems(queue: QueueRecord, raw: Any, field: str = "suggestions") -> list[Problem]:
    return list(first_problems(suggestion_problems(queue.blocks, raw, field)).first)


def checked(queue: QueueRecord, raw: Any, field: str = "suggestions") -> dict[str, dict[str, Any]] | None:
    """A new task's suggestions as stored (None for none), else InvalidTaskData."""
    found = problems(queue, raw, field)
    if found:
        raise InvalidTaskData(first_problems(found))
    return normalized(raw)


def store_new(conn: Connection, created: Sequence[tuple[int, dict[str, Any] | None]]) -> None:
    """The suggestions of tasks just created (id, suggestions or None), in their transaction."""
    store.store(
        conn,
        ((task_id, found, lowest_score(found)) for task_id, found in created if found),
    )


def outcome(queue: QueueRecord, suggested: dict[str, Any], final: dict[str, Any]) -> dict[str, str]:
    """Per suggested block, "accepted" when `final` holds the suggested value, else "changed"."""
    types = {block.id: block.type for block in queue.blocks}
    return {
        block_id: "accepted"
        if equal(types.get(block_id, ""), item["value"], final.get(block_id))
        else "changed"
        for block_id, item in suggested.items()
    }


def completed(
    conn: Connection,
    queue: QueueRecord,
    suggested: Any,
    row: dict[str, Any],
    final: dict[str, Any],
    now: datetime,
) -> None:
    """The task of `row` completed with `final`: its outcome recorded and counted, and `row` (the
    answer's and the event's) given `suggestions` and `suggestion_outcome`. Nothing without suggestions."""
    if suggested is None:
        return
    found = outcome(queue, suggested, final)
    stored = store.record_outcome(conn, queue.id, row["id"], found, store.tally(suggested, found), now)
    row["suggestions"] = suggested
    row["suggestion_outcome"] = embedded(stored)


def per_agent(conn: Connection, queue_id: int, since: datetime) -> list[dict[str, Any]]:
    """B15's `by_agent`."""
    return store.per_agent(conn, queue_id, since)
