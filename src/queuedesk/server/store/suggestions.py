"""Suggestions' storage (B23): stored with their task (`tasks.suggestions`, the lowest score in
`tasks.suggestion_score`), the outcome written in the completing transaction, and each agent's
suggested and accepted blocks counted per minute (`suggestion_minutes`) for B15's `by_agent`."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Connection, text

from queuedesk.server.store.sql import Sql, rows, run
from queuedesk.server.store.types import to_micros

MINUTE = 60_000_000
NO_SCORE = 2.0  # `tasks.suggestion_score` of a task without a scored suggestion: after every score

STORE = text("UPDATE tasks SET suggestions = :suggestions, suggestion_score = :score WHERE id = :task_id")
OUTCOME = Sql("UPDATE tasks SET suggestion_outcome = :outcome WHERE id = :task_id")
MINUTE_BUMP = Sql(
    """INSERT INTO suggestion_minutes (queue_id, agent, minute, offered, accepted)
    VALUES (:queue_id, :agent, :minute, :offered, :accepted)
    ON CONFLICT (queue_id, agent, minute) DO UPDATE SET offered = suggestion_minutes.offered + :offered,
    accepted = suggestion_minutes.accepted + :accepted"""
)


def store(conn: Connection, found: Iterable[tuple[int, dict[str, Any], float | None]]) -> None:
    """Each (task id, suggestions, lowest score) written on its task, in the creating transaction."""
    params = [
        {
            "task_id": task_id,
            "suggestions": orjson.dumps(suggestions).decode(),
            "score": NO_SCORE if score is None else score,
        }
        for task_id, suggestions, score in found
    ]
    if params:
        conn.execute(STORE, params)  # one statement, many rows (an import)


def record_outcome(
    conn: Connection,
    queue_id: int,
    task_id: int,
    outcome: dict[str, str],
    by_agent: dict[str, tuple[int, int]],
    now: datetime,
) -> str:
    """The task's outcome (its stored JSON text, returned) and its agents' counts for this minute."""
    stored = orjson.dumps(outcome).decode()
    run(conn, OUTCOME, outcome=stored, task_id=task_id)
    minute = to_micros(now) // MINUTE
    for agent, (offered, accepted) in sorted(by_agent.items()):
        run(
            conn,
            MINUTE_BUMP,
            queue_id=queue_id,
            agent=agent,
            minute=minute,
            offered=offered,
            accepted=accepted,
        )
    return stored


# B15: per agent over [since, now), from the minutes' counts; the completions of the first, partial
# minute read from the tasks by the history's index (one minute of completions at most).
AGENT_MINUTES = Sql(
    """SELECT agent, sum(offered), sum(accepted) FROM suggestion_minutes
    WHERE queue_id = :queue_id AND minute >= :first_minute GROUP BY agent"""
)
EDGE = Sql(
    """SELECT suggestions, suggestion_outcome FROM tasks WHERE queue_id = :queue_id
    AND completed_at >= :since AND completed_at < :edge AND suggestion_outcome IS NOT NULL"""
)


def per_agent(conn: Connection, queue_id: int, since: datetime) -> list[dict[str, Any]]:
    """`[{"agent", "offered", "accepted"}]` since `since`, by agent name."""
    since_us = to_micros(since)
    first_minute = -(-since_us // MINUTE)
    counts: dict[str, list[int]] = {}
    for agent, offered, accepted in rows(conn, AGENT_MINUTES, queue_id=queue_id, first_minute=first_minute):
        counts[agent] = [int(offered or 0), int(accepted or 0)]
    edge = first_minute * MINUTE
    if edge > since_us:
        for suggestions, outcome in rows(conn, EDGE, queue_id=queue_id, since=since_us, edge=edge):
            for agent, (offered, accepted) in tally(_loaded(suggestions), _loaded(outcome)).items():
                before = counts.setdefault(agent, [0, 0])
                before[0] += offered
                before[1] += accepted
    return [
        {"agent": agent, "offered": offered, "accepted": accepted}
        for agent, (offered, accepted) in sorted(counts.items())
        if offered
    ]


def _loaded(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def tally(suggestions: dict[str, Any] | None, outcome: dict[str, str] | None) -> dict[str, tuple[int, int]]:
    """{agent: (suggested blocks, accepted ones)} of one completed task."""
    found: dict[str, tuple[int, int]] = {}
    for block_id, item in (suggestions or {}).items():
        offered, accepted = found.get(item["agent"], (0, 0))
        found[item["agent"]] = (offered + 1, accepted + ((outcome or {}).get(block_id) == "accepted"))
    return found
