"""`queuedesk tasks create QUEUE --data JSON`, `queuedesk tasks show QUEUE TASK` (with its answers, B21)."""

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from queuedesk.api import original_rules
from queuedesk.api.blocks import validate_task_data
from queuedesk.api.numbers import plain_int
from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json


async def create(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.data)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--data is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError('--data must be a JSON object of block values, e.g. \'{"paragraph": "hello"}\'')
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
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
        task = await client.create_task(queue.id, data)
    lost = dropped(data, task.data)
    if args.json:
        print_json(task.model_dump(mode="json"))
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


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    tasks = commands.add_parser("tasks", help="create a task, show one (with its answers)")
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
