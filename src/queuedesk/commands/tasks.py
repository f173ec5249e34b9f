"""`queuedesk tasks create QUEUE --data JSON`, `tasks list QUEUE` (pending, B2; `--consensus disputed`),
`tasks show QUEUE TASK` (with its answers, B21)."""

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from queuedesk.api import original_rules
from queuedesk.api.blocks import validate_task_data
from queuedesk.api.numbers import plain_int
from queuedesk.api.wording import counted
from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json, print_table
from queuedesk.commands.export import page_size
from queuedesk.commands.gold import expected_json, values_text


async def create(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.data)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--data is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError('--data must be a JSON object of block values, e.g. \'{"paragraph": "hello"}\'')
    expected = None if args.gold is None else expected_json(args.gold, "--gold")
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        if expected is not None:
            from queuedesk.api.gold_rules import expected_problems

            detail = await client.queue_with_gold(queue.id)  # NoGold, with nothing sent, on an older server
            if found := expected_problems(detail.data, expected):
                raise UsageError(f"nothing was sent: --gold: {'; '.join(found)}")
        else:
            detail = await client.queue(queue.id)
        if await client.supports_extensions():
            problems = validate_task_data(detail.data, data)
        else:  # the original's own rules, and what it fails on (the client checks them too)
            problems = original_rules.task_problems(detail.data, data)
        if problems:
            said = "; ".join(
                f"{p.field.removeprefix('data.') if p.field else 'data'}: {p.message}" for p in problems
            )
            raise UsageError(f"nothing was sent: {said}")
        task = await client.create_task(queue.id, data, gold=expected)
    lost = dropped(data, task.data)
    if args.json:
        print_json(task.model_dump(mode="json"))
    elif expected is not None:
        print(
            f"Created gold task {task.id} in queue {queue.id} {queue.name!r}, expecting "
            f"{values_text(expected)}."
        )
    else:
        print(f"Created task {task.id} in queue {queue.id} {queue.name!r}.")
    if lost:
        print(
            f"queuedesk: the server stored no value for {', '.join(lost)} (its answer has null there)",
            file=sys.stderr,
        )
    return OK


def dropped(sent: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """The blocks given a value that the created task does not hold."""
    return [key for key, value in sent.items() if value is not None and stored.get(key) is None]


async def show(args: argparse.Namespace) -> int:
    from queuedesk.commands.task_view import print_task

    task_id = plain_int(args.task)
    if task_id is None or task_id < 1:
        raise UsageError(f"TASK must be a task id (a whole number from 1), not {args.task!r}")
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        task = await client.task(queue.id, task_id)
        detail = await client.queue(queue.id)
    if args.json:
        print_json(task.model_dump(mode="json"))
    else:
        print_task(task, detail)
    return OK


def _offset(text: str) -> int:
    number = plain_int(text)
    if number is None or number < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, not {text!r}")
    return number


async def list_pending(args: argparse.Namespace) -> int:
    from queuedesk.commands.task_view import pending_rows

    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        detail = await client.queue(queue.id)
        page = await client.pending_tasks(
            queue.id,
            status=args.status.split(",") if args.status else None,
            consensus=args.consensus,
            offset=args.offset,
            limit=args.limit,
        )
    if args.json:
        print_json(page.model_dump(mode="json"))
        return OK
    headers, rows = pending_rows(page.tasks, detail)
    print_table(headers, rows)
    shown = f"{args.offset + 1}-{args.offset + len(page.tasks)}" if page.tasks else "none"
    which = f"{args.consensus} " if args.consensus else ""
    print(
        f"{counted(page.count, which + 'pending task')} in queue {queue.id} {queue.name!r}; shown: {shown}."
    )
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    tasks = commands.add_parser("tasks", help="create a task, list pending ones, show one (with its answers)")
    actions = tasks.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)
    creating = actions.add_parser(
        "create",
        parents=[connection],
        help="create one task",
        description="Create one task. The data is checked against the queue's blocks before it is "
        "sent: an unknown block or an invalid value is refused and nothing is sent.",
    )
    creating.add_argument("queue", help="queue id or name")
    creating.add_argument(
        "--data", required=True, help='the task\'s block values as JSON, e.g. \'{"text": "hi"}\''
    )
    creating.add_argument(
        "--gold",
        metavar="JSON",
        help="make it a gold task expecting these values (selection, yes/no, number or date blocks), "
        'e.g. \'{"category": "red"}\' (admins; a server with B22)',
    )
    creating.set_defaults(client_command=create)

    showing = actions.add_parser(
        "show",
        parents=[connection],
        help="show one task: its values, who holds it, and its answers in a consensus queue",
        description="Show one task in any status. In a consensus queue, admins and supervisors see "
        "every answer (who gave it, when, in how many seconds, its values) and the agreement per "
        "compared block; a worker sees their own answer only.",
    )
    showing.add_argument("queue", help="queue id or name")
    showing.add_argument("task", help="task id")
    showing.set_defaults(client_command=show)

    listing = actions.add_parser(
        "list",
        parents=[connection],
        help="pending tasks, oldest first; in a consensus queue those collecting answers or disputed",
        description="Tasks not completed, oldest first, with who holds them; in a consensus queue "
        "(admins and supervisors) each task's state and answers so far.",
    )
    listing.add_argument("queue", help="queue id or name")
    listing.add_argument("--status", help="new, open, in_progress (a comma list)")
    listing.add_argument(
        "--consensus",
        choices=("collecting", "disputed"),
        help="only tasks still collecting answers, or only disputed ones (waiting for a reviewer to decide)",
    )
    listing.add_argument(
        "--limit", type=page_size, default=100, help="at most this many (1-1000; default 100)"
    )
    listing.add_argument("--offset", type=_offset, default=0, help="skip this many (default 0)")
    listing.set_defaults(client_command=list_pending)
