"""Where a task stands in the line: `queuedesk tasks patch QUEUE TASK --priority N --due WHEN`
(B24, admins), `tasks assign QUEUE TASK --to EMAIL | --none` (B25, admins and supervisors), the
`--priority`, `--due` and `--reserved-for` options of `tasks create`, and `queue order QUEUE
[oldest|least_confident]` (B24)."""

import argparse
from datetime import datetime

from queuedesk.api.models import QUEUE_ORDERS
from queuedesk.api.priority_rules import (
    ORDER_MEANINGS,
    due_text,
    parse_due,
    parse_priority,
    priority_text,
)
from queuedesk.api.terminal_text import shown
from queuedesk.api.timestamps import format_timestamp, utcnow
from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json

DUE_HELP = (
    "a time (2026-12-24T17:00Z; UTC when it names no zone), a date (2026-12-24: its midnight, UTC), "
    "a moment from now (+30m, +2h, +1d; --due=-1h is already overdue), or none"
)


def priority_arg(text: str) -> int:
    try:
        return parse_priority(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def due_of(text: str, flag: str = "--due") -> datetime | None:
    try:
        return parse_due(text, utcnow())
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def placed_words(priority: int | None, due: datetime | None, reserved_for: str | None, now: datetime) -> str:
    """ ", priority +5, due in 3 h, reserved for ana@example.com": what a create sent (A1 answers
    the Part A shape, without them), "" for none."""
    said = []
    if priority:
        said.append(f"priority {priority_text(priority)}")
    if due is not None:
        said.append(due_text(due, now))
    if reserved_for:
        said.append(f"reserved for {shown(reserved_for)}")
    return "".join(f", {part}" for part in said)


def _task_id(text: str) -> int:
    from queuedesk.api.numbers import plain_int

    number = plain_int(text)
    if number is None or number < 1:
        raise UsageError(f"TASK must be a task id (a whole number from 1), not {text!r}")
    return number


async def patch(args: argparse.Namespace) -> int:
    from queuedesk.api.client import KEEP

    task_id = _task_id(args.task)
    if args.priority is None and args.due is None:
        raise UsageError("nothing to change: give --priority N and/or --due WHEN (--due none clears it)")
    due = KEEP if args.due is None else due_of(args.due)
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        task = await client.patch_task(queue.id, task_id, priority=args.priority, due_at=due)
    if args.json:
        print_json(task.model_dump(mode="json"))
        return OK
    due_said = (
        f"due {format_timestamp(task.due_at)} ({due_text(task.due_at, utcnow())})"
        if task.due_at is not None
        else "no due date"
    )
    print(f"Task {task.id} in queue {queue.id} {shown(queue.name)!r}: priority {task.priority}, {due_said}.")
    return OK


async def assign(args: argparse.Namespace) -> int:
    task_id = _task_id(args.task)
    to = None if args.none else args.to
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        task = await client.assign(queue.id, task_id, to)
    if args.json:
        print_json(task.model_dump(mode="json"))
    elif task.reserved_for:
        held = task.assignment.assigned_to
        still = (
            f" ({shown(held)} holds it until their claim ends)" if held and held != task.reserved_for else ""
        )
        print(
            f"Task {task.id} in queue {queue.id} {shown(queue.name)!r} is reserved for "
            f"{shown(task.reserved_for)}: it reaches them before other work, and nobody else{still}."
        )
    else:
        print(f"Task {task.id} in queue {queue.id} {shown(queue.name)!r} is reserved for nobody now.")
    return OK


async def order(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        if args.order is None:
            detail = await client.queue_with_order(queue.id)
        else:
            detail = await client.set_queue_order(queue.id, args.order)
    if args.json:
        print_json({"queue_id": detail.id, "order": detail.order})
        return OK
    now = " now" if args.order is not None else ""
    meaning = ORDER_MEANINGS.get(detail.order, "")
    print(f"Queue {detail.id} {shown(detail.name)!r}{now} claims {detail.order}: {meaning}.")
    return OK


def add_create_options(creating: argparse.ArgumentParser) -> None:
    creating.add_argument(
        "--priority",
        type=priority_arg,
        metavar="N",
        help="-1000 to 1000, default 0: higher is claimed first (a server with B24)",
    )
    creating.add_argument("--due", metavar="WHEN", help=f"its due date: {DUE_HELP} (a server with B24)")
    creating.add_argument(
        "--reserved-for",
        metavar="EMAIL",
        help="reserve it for this enabled worker or admin: it reaches them before other work, and "
        "nobody else (a server with B25)",
    )


def add_actions(
    actions: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    patching = actions.add_parser(
        "patch",
        parents=[connection],
        help="change a pending task's priority or due date (admins; B24)",
        description="Change the priority and/or the due date of a task not completed. Claims take "
        "higher priority first, then the earliest due date. Admins; a server with B24.",
    )
    patching.add_argument("queue", help="queue id or name")
    patching.add_argument("task", help="task id")
    patching.add_argument("--priority", type=priority_arg, metavar="N", help="-1000 to 1000 (higher first)")
    patching.add_argument("--due", metavar="WHEN", help=DUE_HELP)
    patching.set_defaults(client_command=patch)

    assigning = actions.add_parser(
        "assign",
        parents=[connection],
        help="reserve a pending task for a person, or lift it (admins, supervisors; B25)",
        description="Reserve a task not completed for one enabled worker or admin: it reaches them "
        "before any other work, and nobody else. A task already claimed keeps its claim until it "
        "ends. --none lifts the reservation. Admins and supervisors; a server with B25.",
    )
    assigning.add_argument("queue", help="queue id or name")
    assigning.add_argument("task", help="task id")
    whom = assigning.add_mutually_exclusive_group(required=True)
    whom.add_argument("--to", metavar="EMAIL", help="the person's email")
    whom.add_argument("--none", action="store_true", help="lift the reservation: anyone may get it")
    assigning.set_defaults(client_command=assign)


def add_order_action(
    actions: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    ordering = actions.add_parser(
        "order",
        parents=[connection],
        help="show or set the order a queue's claims take (B24)",
        description="Which task a claim gets after priority. "
        + " ".join(f"{name}: {meaning}." for name, meaning in ORDER_MEANINGS.items())
        + " Without ORDER: show it. Setting it: admins; a server with B24.",
    )
    ordering.add_argument("queue", help="queue id or name")
    ordering.add_argument(
        "order", nargs="?", choices=QUEUE_ORDERS, help="oldest (default) or least_confident"
    )
    ordering.set_defaults(client_command=order)
