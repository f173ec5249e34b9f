"""`queuedesk tasks create QUEUE --data JSON`."""

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from queuedesk.api import original_rules
from queuedesk.api.blocks import validate_task_data
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


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    tasks = commands.add_parser("tasks", help="create tasks")
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
