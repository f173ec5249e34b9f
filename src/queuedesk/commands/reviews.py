"""`queuedesk reviews list QUEUE [--verdict ...] [--completed-by ...] [--reviewer ...]` (B19)."""

import argparse
from typing import TYPE_CHECKING

from queuedesk.api.wording import counted
from queuedesk.commands.common import OK, client_from, find_queue, print_json, print_table

if TYPE_CHECKING:
    from queuedesk.api.models import AssignedTask

NOTE_WIDTH = 60


def _changed(task: "AssignedTask") -> str:
    """The blocks a correction changed, as `block: old -> new`."""
    review = task.review
    if review is None or review.original is None:
        return ""
    return "; ".join(
        f"{block}: {review.original.get(block)!r} -> {value!r}"
        for block, value in task.data.items()
        if review.original.get(block) != value
    )


def _short(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= NOTE_WIDTH else text[: NOTE_WIDTH - 1] + "\u2026"


async def list_reviews(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        completed_by = args.completed_by
        if (
            completed_by is None
            and await client.supports_extensions()
            and (await client.me()).role == "worker"
        ):
            completed_by = "me"  # all a worker may list: the reviews of their own work
        page = await client.reviews(
            queue.id,
            verdict=args.verdict,
            completed_by=completed_by,
            reviewer=args.reviewer,
            offset=args.offset,
            limit=args.limit,
        )
    if args.json:
        print_json(page.model_dump(mode="json"))
        return OK
    rows = []
    for task in page.tasks:
        review = task.review
        assert review is not None  # every listed task has its verdict
        reviewed = review.reviewed_at.strftime("%Y-%m-%d %H:%M") if review.reviewed_at else ""
        rows.append(
            (task.id, review.state, task.completed_by, review.reviewer, reviewed, review.redo_task_id,
             _changed(task), _short(review.note))
        )  # fmt: skip
    print_table(["task", "verdict", "completed by", "reviewer", "reviewed", "redo", "changed", "note"], rows)
    shown = f"{args.offset + 1}-{args.offset + len(page.tasks)}" if page.tasks else "none"
    print(f"{counted(page.count, 'review')} in queue {queue.id} {queue.name!r}; shown: {shown}.")
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    reviews = commands.add_parser("reviews", help="reviewed work: verdicts, corrections and notes")
    actions = reviews.add_subparsers(dest="reviews_command", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        parents=[connection],
        help="reviewed tasks of a queue, newest verdict first (a worker: the reviews of their own work)",
    )
    listing.add_argument("queue", help="queue id or name")
    listing.add_argument(
        "--verdict",
        help="accept, correct, redo or decide (a disputed task of a consensus queue; a comma list), "
        "e.g. --verdict correct,redo",
    )
    listing.add_argument(
        "--completed-by", metavar="EMAIL", help="whose work: an email, or 'me' (a worker's default)"
    )
    listing.add_argument("--reviewer", metavar="EMAIL", help="who reviewed: an email, or 'me'")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (1-1000; default 100)")
    listing.add_argument("--offset", type=int, default=0, help="skip this many (default 0)")
    listing.set_defaults(client_command=list_reviews)
