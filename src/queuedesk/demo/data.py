"""The demo database: built once from a fixed seed, then brought to the present at every start.

`build` applies demo_data.toml (people, queues) and writes the tasks straight into the tables: a few
hundred pending, a few thousand completed over the last day by several people, and the webhook log
of the last hours. Going through the API would take minutes (and could not date work in the past).

`bring_to_now` runs at every later start: every timestamp moves forward by the time the demo was
not running, so "the last day" of history is still the last day; the side server's new address goes
into the pictures' links and the webhook target; claims the colleagues held when the demo was
killed are given back.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, text, update

from queuedesk.demo.content import (
    CONSENSUS_QUEUE,
    IMAGE_BASE_PLACEHOLDER,
    QUEUES,
    SLIP_CHANCE,
    WEBHOOK_QUEUE,
    answer,
    expected,
    new_task,
    slip,
)
from queuedesk.server.http import serialize
from queuedesk.server.rules.review_draw import drawn_for_review
from queuedesk.server.seed import apply_seed, load_seed
from queuedesk.server.store import accounts, deliveries
from queuedesk.server.store.queues import find_queue_by_name
from queuedesk.server.store.tables import metadata, queues
from queuedesk.server.store.tables import reviews as reviews_table
from queuedesk.server.store.tables import tasks as tasks_table
from queuedesk.server.store.types import Timestamp, to_micros

SEED = 18
ORGANIZATION = "Demo Co"
COLLEAGUES = ("priya@demo.test", "tomas@demo.test", "lena@demo.test", "kofi@demo.test")
REVIEWER = "noor@demo.test"  # the simulated reviewer (demo/bots.py)
REVIEW_PERCENT = 20  # as demo_data.toml's queues
HISTORY_PEOPLE = (*COLLEAGUES, "wren@demo.test", "admin@demo.test")
PENDING = {QUEUES[0]: 140, QUEUES[1]: 110, QUEUES[2]: 90}
COMPLETED = {QUEUES[0]: 1500, QUEUES[1]: 1100, QUEUES[2]: 800}
WEBHOOK_LOG_HOURS = 3  # completions of the webhook's queue in these last hours have deliveries
SETTING_UP_DAYS = 30  # the organization, its people and queues were set up this long before now
FAIL_EVERY = 9  # as the receiver: every ninth delivery needed a second attempt
# The consensus queue's history (one answer each, before consensus was set on its first run) ends
# before the stats' default period: there a worker's agreement rate counts their answers only.
BEFORE_CONSENSUS = timedelta(hours=8, minutes=10)


@dataclass(frozen=True)
class Built:
    pending: int
    completed: int
    deliveries: int


def seed_document() -> dict[str, Any]:
    """The demo's people and queues (demo_data.toml), as a seed."""
    with as_file(files("queuedesk") / "demo_data.toml") as path:
        return load_seed(Path(path))


def build(conn: Connection, now: datetime) -> Built:
    """Everything on an empty database, in one transaction; the same rows for the same `now`."""
    apply_seed(conn, seed_document())
    org_id = accounts.find_organization(conn, ORGANIZATION)
    assert org_id is not None
    rng = random.Random(SEED)
    rows: list[dict[str, Any]] = []
    queue_names: dict[int, str] = {}
    for name in QUEUES:
        record = find_queue_by_name(conn, org_id, name)
        assert record is not None
        queue_names[record.id] = name
        rows.extend(_history(record.id, name, rng, now))
        rows.extend(_pending(record.id, name, rng, now))
    rows.sort(key=lambda row: (row["created_at"], row["queue_id"]))
    first_id = (conn.execute(text("SELECT coalesce(max(id), 0) FROM tasks")).scalar() or 0) + 1
    for offset, row in enumerate(rows):
        row["id"] = first_id + offset
    reviewer_id = accounts.find_user(conn, org_id, REVIEWER)
    assert reviewer_id is not None
    reviewed = _review_history(rows, queue_names, reviewer_id, rng, now)
    conn.execute(tasks_table.insert(), rows)
    if reviewed:
        conn.execute(reviews_table.insert(), reviewed)
    conn.execute(
        text(
            "UPDATE queues SET n_tasks = (SELECT count(*) FROM tasks t WHERE t.queue_id = queues.id AND "
            "t.status IN ('new', 'open', 'in_progress')), completed_count = (SELECT count(*) FROM tasks t "
            "WHERE t.queue_id = queues.id AND t.completed_at IS NOT NULL)"
        )
    )
    # The organization has been at work for a while: its people and queues are older than the history.
    for table_name in ("organizations", "users", "api_keys", "queues"):
        conn.execute(
            text(f"UPDATE {table_name} SET created_at = :then"),
            {"then": to_micros(now - timedelta(days=SETTING_UP_DAYS))},
        )
    webhook_queue = find_queue_by_name(conn, org_id, WEBHOOK_QUEUE)
    assert webhook_queue is not None
    target = f"{IMAGE_BASE_PLACEHOLDER}/webhook"
    conn.execute(update(queues).where(queues.c.id == webhook_queue.id).values(webhook_target=target))
    deliveries.ensure_secret(conn, webhook_queue.id)
    sent = _webhook_log(conn, webhook_queue.id, WEBHOOK_QUEUE, target, rows, now)
    completed = sum(1 for row in rows if row["status"] == "completed")
    return Built(pending=len(rows) - completed, completed=completed, deliveries=sent)


def _history(queue_id: int, name: str, rng: random.Random, now: datetime) -> list[dict[str, Any]]:
    rows = []
    for _ in range(COMPLETED[name]):
        # More work in the recent hours than a day ago: a triangle leaning to now.
        ago = timedelta(hours=24 * (1 - rng.triangular(0, 1, 0.97)))
        if name == CONSENSUS_QUEUE:
            ago = BEFORE_CONSENSUS + ago * (1 - BEFORE_CONSENSUS / timedelta(hours=24))
        completed_at = now - ago - timedelta(seconds=rng.randrange(5, 60))
        work = timedelta(seconds=rng.lognormvariate(3.0, 0.5))  # a median of ~20 s
        created_at = completed_at - work - timedelta(minutes=rng.randrange(1, 240))
        data = answer(name, new_task(name, rng, completed_at.date(), IMAGE_BASE_PLACEHOLDER), rng)
        if rng.random() < SLIP_CHANCE:
            data = slip(name, data, rng)
        rows.append(
            {
                "queue_id": queue_id,
                "status": "completed",
                "data": data,
                "source": rng.choice(("api", "api", "api", "shop-import.csv")),
                "created_at": created_at,
                "completed_at": completed_at,
                "completed_by": rng.choices(HISTORY_PEOPLE, (24, 22, 20, 18, 10, 6))[0],
                "assigned_at": completed_at - work,
                "work_micros": int(work.total_seconds() * 1_000_000),
            }
        )
    return rows


def _review_history(
    rows: list[dict[str, Any]], names: dict[int, str], reviewer_id: int, rng: random.Random, now: datetime
) -> list[dict[str, Any]]:
    """The reviews of the history's drawn tasks: the older ones checked by the simulated reviewer as
    the demo's bots would (accepted, or a slip corrected), the last minutes' still pending.
    A correction changes the row's data (the worker's values kept as `original`)."""
    reviewed: list[dict[str, Any]] = []
    for row in rows:
        if row["status"] != "completed" or not drawn_for_review(row["id"], REVIEW_PERCENT):
            continue
        review: dict[str, Any] = {
            "task_id": row["id"],
            "queue_id": row["queue_id"],
            "state": "pending",
            "reviewer_id": None,
            "reviewed_at": None,
            "note": None,
            "original": None,
        }
        reviewed.append(review)
        at = row["completed_at"] + timedelta(minutes=rng.uniform(5, 40))
        if at > now - timedelta(minutes=2):
            continue  # not reached yet
        name = names[row["queue_id"]]
        wrong = {k: v for k, v in expected(name, row["data"]).items() if row["data"].get(k) != v}
        review.update(reviewer_id=reviewer_id, reviewed_at=at, state="accepted")
        if wrong:
            field, value = next(iter(wrong.items()))
            review.update(
                state="corrected",
                original=orjson.dumps(row["data"]).decode(),
                note=f"{field} should be {value!r}, not {row['data'].get(field)!r}",
            )
            row["data"] = {**row["data"], **wrong}
    return reviewed


def _pending(queue_id: int, name: str, rng: random.Random, now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "queue_id": queue_id,
            "status": "new",
            "data": new_task(name, rng, now.date(), IMAGE_BASE_PLACEHOLDER),
            "source": "api",
            "created_at": now - timedelta(minutes=rng.randrange(1, 360), seconds=rng.randrange(60)),
            "completed_at": None,
            "completed_by": None,
            "assigned_at": None,
            "work_micros": None,
        }
        for _ in range(PENDING[name])
    ]


def _webhook_log(
    conn: Connection, queue_id: int, queue_name: str, target: str, rows: list[dict[str, Any]], now: datetime
) -> int:
    since = now - timedelta(hours=WEBHOOK_LOG_HOURS)
    sent = [
        r
        for r in rows
        if r["queue_id"] == queue_id and r["status"] == "completed" and r["completed_at"] >= since
    ]
    records = []
    attempts = []
    for number, row in enumerate(sorted(sent, key=lambda r: r["completed_at"]), start=1):
        payload = serialize.task(
            {
                **row,
                "queue_name": queue_name,
                "created_at": row["created_at"],
                "completed_at": row["completed_at"],
            }
        )
        retried = number % FAIL_EVERY == 0
        delivered_at = row["completed_at"] + timedelta(seconds=31 if retried else 0.05)
        records.append(
            {
                "id": number,
                "queue_id": queue_id,
                "task_id": row["id"],
                "event_id": f"msg_demo{rng_hex(number)}",
                "target": target,
                "payload": orjson.dumps(payload).decode(),
                "status": "delivered",
                "attempts": 2 if retried else 1,
                "retry_step": 1 if retried else 0,
                "last_status_code": 200,
                "last_error": None,
                "next_attempt_at": None,
                "created_at": row["completed_at"],
                "delivered_at": delivered_at,
            }
        )
        if retried:
            attempts.append(_attempt(number, row["completed_at"] + timedelta(seconds=0.02), 503, 12))
        attempts.append(_attempt(number, delivered_at - timedelta(seconds=0.02), 200, 9))
    if records:
        conn.execute(metadata.tables["deliveries"].insert(), records)
        conn.execute(metadata.tables["delivery_attempts"].insert(), attempts)
    return len(records)


def rng_hex(number: int) -> str:
    """A fixed event id per delivery number (the same data gives the same pictures)."""
    return random.Random(number).randbytes(10).hex()


def _attempt(delivery_id: int, at: datetime, status: int, ms: int) -> dict[str, Any]:
    error = None if status < 300 else f"HTTP {status}"
    return {
        "delivery_id": delivery_id,
        "attempted_at": at,
        "status_code": status,
        "error": error,
        "duration_ms": ms,
    }


def bring_to_now(conn: Connection, shift: timedelta, old_base: str, new_base: str) -> None:
    """Move every timestamp forward by `shift`, point links at `new_base`, free the colleagues' claims."""
    micros = int(shift.total_seconds() * 1_000_000)
    if micros > 0:
        for table in metadata.sorted_tables:
            for column in table.columns:
                if isinstance(column.type, Timestamp):
                    conn.execute(
                        text(
                            f"UPDATE {table.name} SET {column.name} = {column.name} + :shift WHERE {column.name} IS NOT NULL"
                        ),
                        {"shift": micros},
                    )
    if old_base != new_base:
        conn.execute(
            text("UPDATE tasks SET data = replace(data, :old, :new) WHERE data LIKE :pattern"),
            {"old": old_base, "new": new_base, "pattern": f"%{old_base}%"},
        )
        for table_name, column_name in (("queues", "webhook_target"), ("deliveries", "target")):
            conn.execute(
                text(
                    f"UPDATE {table_name} SET {column_name} = replace({column_name}, :old, :new) "
                    f"WHERE {column_name} LIKE :pattern"
                ),
                {"old": old_base, "new": new_base, "pattern": f"{old_base}%"},
            )
    colleagues = ", ".join(f"'{email}'" for email in COLLEAGUES)
    conn.execute(
        text(
            "UPDATE tasks SET status = 'open', assigned_to = NULL, assigned_at = NULL, lease_expires_at = NULL "
            f"WHERE status = 'in_progress' AND assigned_to IN (SELECT id FROM users WHERE email IN ({colleagues}))"
        )
    )
    conn.execute(
        text(
            "UPDATE reviews SET state = 'pending', reviewer_id = NULL, claimed_at = NULL, lease_expires_at = NULL "
            f"WHERE state = 'in_review' AND reviewer_id IN (SELECT id FROM users WHERE email = '{REVIEWER}')"
        )
    )


def now_micros(moment: datetime) -> int:
    return to_micros(moment)
