"""`queuedesk stats QUEUE [--since WHEN] [--bucket-minutes N]`: a queue's work over a period (B15):
what waits, completions, reviews pending, and per worker their completions, time and verdicts; in a
consensus queue (B21) the disputed tasks, and per worker their answers and how many agreed; in a
queue with gold tasks (B22) each worker's gold accuracy."""

import argparse
from datetime import UTC, date, datetime, time
from typing import TYPE_CHECKING

from queuedesk.api.numbers import plain_int
from queuedesk.commands.common import OK, client_from, find_queue, print_json, print_table
from queuedesk.commands.export import moment

if TYPE_CHECKING:
    from queuedesk.api.models import QueueDetail, QueueStats


def _since(value: date | datetime | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.combine(value, time.min, tzinfo=UTC)


def _bucket(text: str) -> int:
    number = plain_int(text)
    if number is None or not 1 <= number <= 1440:
        raise argparse.ArgumentTypeError(f"must be a whole number of minutes from 1 to 1440, not {text!r}")
    return number


def consensus_shown(stats: "QueueStats", detail: "QueueDetail") -> bool:
    """Whether the answers and agreement are worth columns: the queue has consensus now, or had it
    in the period (answers counted, or tasks disputed)."""
    return (
        detail.consensus is not None
        or bool(stats.disputed)
        or any(worker.answers for worker in stats.by_worker)
    )


def gold_shown(stats: "QueueStats", detail: "QueueDetail") -> bool:
    """Whether gold accuracy is worth columns: the queue has a gold share, or a gold task was
    answered in the period."""
    return detail.gold_percent > 0 or any(worker.gold_answered for worker in stats.by_worker)


def agreement_rate(answers: int, agreed: int) -> str:
    return f"{agreed / answers:.0%}" if answers else ""


async def stats(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        found = await client.stats(queue.id, since=_since(args.since), bucket_minutes=args.bucket_minutes)
        detail = await client.queue(queue.id)
    if args.json:
        print_json(found.model_dump(mode="json"))
        return OK
    with_answers = consensus_shown(found, detail)
    with_gold = gold_shown(found, detail)
    parts = [
        f"{found.pending:,} pending",
        f"{found.in_progress:,} in progress",
        f"{sum(found.completed):,} completed since {found.since:%Y-%m-%d %H:%M} UTC",
    ]
    if found.reviews_pending is not None:
        parts.append(f"{found.reviews_pending:,} reviews pending")
    if found.disputed is not None and (with_answers or found.disputed):
        parts.append(f"{found.disputed:,} disputed")
    print(f"Queue {detail.id} {detail.name!r}: " + " · ".join(parts))
    headers = ["worker", "name", "completed", "median s", "last"]
    if with_answers:
        headers += ["answers", "agreed", "agreement"]
    if with_gold:
        headers += ["gold", "gold right", "gold accuracy"]
    headers += ["reviewed", "accepted", "corrected", "redone"]
    rows = []
    for worker in found.by_worker:
        row: list[object] = [
            worker.email,
            worker.name,
            worker.completed,
            "" if worker.median_seconds is None else f"{worker.median_seconds:.1f}",
            "" if worker.last_completed_at is None else f"{worker.last_completed_at:%Y-%m-%d %H:%M}",
        ]
        if with_answers:
            row += [worker.answers, worker.agreed, agreement_rate(worker.answers, worker.agreed)]
        if with_gold:
            row += [
                worker.gold_answered,
                worker.gold_correct,
                agreement_rate(worker.gold_answered, worker.gold_correct),
            ]
        row += [worker.reviewed, worker.accepted, worker.corrected, worker.redone]
        rows.append(row)
    if rows:
        print_table(headers, rows)
    else:
        print("No worker completed or answered a task in the period.")
    if with_answers:
        print(
            "In a consensus queue a worker's completed and median count their answers; agreed: their "
            "answers that held every final value of a settled or decided task."
        )
    if with_gold:
        print(
            "gold: the gold tasks (known answers) a worker answered in the period; gold right: those "
            "whose every expected value they matched."
        )
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    reading = commands.add_parser(
        "stats",
        parents=[connection],
        help="a queue's work over a period: per worker, and in a consensus queue answers and agreement",
        description="What waits in a queue, its completions since --since (default: 8 hours ago), "
        "and per worker their completions, median seconds and the verdicts on their work; in a "
        "consensus queue the disputed tasks and per worker their answers and agreement rate; in a "
        "queue with gold tasks each worker's gold answers and accuracy. (admins and supervisors)",
    )
    reading.add_argument("queue", help="queue id or name")
    reading.add_argument("--since", type=moment, metavar="WHEN", help="from this date or date-time (UTC)")
    reading.add_argument(
        "--bucket-minutes", type=_bucket, metavar="N", help="minutes per completions bucket (--json; 1-1440)"
    )
    reading.set_defaults(client_command=stats)
