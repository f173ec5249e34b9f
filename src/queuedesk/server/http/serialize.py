"""Rows to the JSON shapes of the contract, keys in the contract's order."""

from datetime import datetime
from functools import lru_cache
from typing import Any

from queuedesk.api.timestamps import format_micros, format_timestamp
from queuedesk.server.store.queues import QueueSummaryRow

QUEUES_REMEMBERED = 65536  # creation times of queues kept formatted


def ts(moment: datetime | int | None) -> str | None:
    """A timestamp for the wire, from a datetime or from stored microseconds."""
    if moment is None:
        return None
    if isinstance(moment, int):
        return format_micros(moment)
    return format_timestamp(moment)


def task(row: dict[str, Any], *, with_assignment: bool = False) -> dict[str, Any]:
    """`row["data"]` (and `row["draft"]`) may be stored JSON text as an `orjson.Fragment`, embedded
    as it is. Part B's shape (`with_assignment`) adds the assignment, the viewer's own draft (B6) and
    `review` (B19; None unless the row has one); Part A's shape, which events also use, has none.
    """
    body = {
        "id": row["id"],
        "status": row["status"],
        "created_at": ts(row["created_at"]),
        "completed_at": ts(row["completed_at"]),
        "completed_by": row["completed_by"],
        "queue": row["queue_name"],
        "queue_id": row["queue_id"],
        "data": row["data"],
        "source": row["source"],
    }
    if with_assignment:
        body["assignment"] = {
            "assigned_to": row["assignee_email"],
            "assigned_to_name": row["assignee_name"],
            "assigned_at": ts(row["assigned_at"]),
            "lease_expires_at": ts(row["lease_expires_at"]),
        }
        body["draft"] = row.get("draft")
        body["review"] = review(row.get("review"))
        body["consensus"] = consensus(row.get("consensus"))
        if "gold" in row:  # B22: a gold task, to admins and supervisors only
            body["gold"] = row["gold"]
            body["retired"] = row["retired"]
    return body


def consensus(found: dict[str, Any] | None) -> dict[str, Any] | None:
    """A task's `consensus` (B21), or None (a queue without consensus, or a worker reading)."""
    if found is None:
        return None
    return {
        "state": found["state"],
        "answers": [{**answer, "answered_at": ts(answer["answered_at"])} for answer in found["answers"]],
        "agreement": found["agreement"],
        "decided_by": found["decided_by"],
    }


def review(found: dict[str, Any] | None) -> dict[str, Any] | None:
    """A task's `review` (B19), or None when it has none."""
    if found is None:
        return None
    return {
        "state": found["state"],
        "reviewer": found["reviewer"],
        "reviewed_at": ts(found["reviewed_at"]),
        "note": found["note"],
        "original": found["original"],
        "redo_task_id": found["redo_task_id"],
        "lease_expires_at": ts(found["lease_expires_at"]),
    }


@lru_cache(maxsize=QUEUES_REMEMBERED)
def _queue_created(micros: int) -> str:
    """A queue's `created_at` never changes: formatted once, not on every listing."""
    return format_micros(micros)


def queue_summaries(found: list[QueueSummaryRow]) -> list[dict[str, Any]]:
    """The listing (B1's queues) from `store.queues.list_queues`' rows."""
    return [
        {
            "id": queue_id,
            "name": name,
            "created_at": _queue_created(created_at),
            "n_tasks": pending,
            "active_users": active,
            "review_percent": review_percent,
            "gold_percent": gold_percent,
        }
        for queue_id, name, created_at, pending, active, review_percent, gold_percent in found
    ]


def queue_summary(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": summary["id"],
        "name": summary["name"],
        "created_at": ts(summary["created_at"]),
        "n_tasks": summary["n_tasks"],
        "active_users": summary["active_users"],
        "review_percent": summary["review_percent"],
        "gold_percent": summary.get("gold_percent", 0),
    }


def queue_detail(detail: dict[str, Any]) -> dict[str, Any]:
    """The summary's keys, then `description` and `data`, then the extra `review_percent` (B19),
    `consensus` (B21) and `gold_percent` (B22)."""
    body = queue_summary(detail)
    review_percent = body.pop("review_percent")
    gold_percent = body.pop("gold_percent")
    return {
        **body,
        "description": detail["description"],
        "data": detail["data"],
        "review_percent": review_percent,
        "consensus": detail.get("consensus"),
        "gold_percent": gold_percent,
    }


def delivery(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "event_id": row["event_id"],
        "type": row["type"],
        "task_id": row["task_id"],
        "target": row["target"],
        "status": row["status"],
        "attempts": row["attempts"],
        "last_status_code": row["last_status_code"],
        "last_error": row["last_error"],
        "next_attempt_at": ts(row["next_attempt_at"]),
        "created_at": ts(row["created_at"]),
        "delivered_at": ts(row["delivered_at"]),
    }


def attempt(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "attempted_at": ts(row["attempted_at"]),
        "status_code": row["status_code"],
        "error": row["error"],
        "duration_ms": row["duration_ms"],
    }
