"""`queuedesk tasks create QUEUE --data JSON`."""

import argparse
import json

from queuedesk.commands import original_rules
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
        if not await client.supports_extensions():
            problems = original_rules.refusals((await client.queue(queue.id)).data, data)
            if problems:
                raise UsageError("nothing was sent: " + "; ".join(problems))
        task = await client.create_task(queue.id, data)
    if args.json:
        print_json(task.model_dump(mode="json"))
    else:
        print(f"Created task {task.id} in queue {queue.id} {queue.name!r}.")
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    tasks = commands.add_parser("tasks", help="create tasks")
    actions = tasks.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)
    creating = actions.add_parser("create", parents=[connection], help="create one task")
    creating.add_argument("queue", help="queue id or name")
    creating.add_argument(
        "--data", required=True, help='the task\'s block values as JSON, e.g. \'{"text": "hi"}\''
    )
    creating.set_defaults(client_command=create)
