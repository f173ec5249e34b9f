"""`queuedesk gold share|list|answers|expect|retire`: a queue's gold tasks (B22), tasks with a known
answer mixed into the work to measure each worker. Creating them is `tasks create --gold JSON` and
`import` with `gold.<block id>` columns."""

import argparse
import json
from typing import Any

from queuedesk.api.numbers import plain_int
from queuedesk.api.wording import counted
from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json, print_table
from queuedesk.commands.export import page_size


def expected_json(text: str, flag: str = "--expect") -> dict[str, Any]:
    """A JSON object of expected values, or UsageError saying how to write one."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{flag} is not valid JSON: {exc}") from None
    if not isinstance(value, dict) or not value:
        raise UsageError(
            f'{flag} must be a JSON object of expected block values, e.g. \'{{"category": "red"}}\''
        )
    return value


def _task_id(text: str) -> int:
    number = plain_int(text)
    if number is None or number < 1:
        raise UsageError(f"TASK must be a task id (a whole number from 1), not {text!r}")
    return number


def shown_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def values_text(values: dict[str, Any]) -> str:
    return ", ".join(f"{key}={shown_value(value)}" for key, value in values.items())


async def share(args: argparse.Namespace) -> int:
    from queuedesk.api.gold_rules import described, percent_problem

    if args.percent is not None and (problem := percent_problem(args.percent)):
        raise UsageError(f"nothing was changed: {problem}")
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        if args.percent is None:
            detail = await client.queue_with_gold(queue.id)
        else:
            detail = await client.set_gold_percent(queue.id, args.percent)
    if args.json:
        print_json({"queue_id": detail.id, "gold_percent": detail.gold_percent})
        return OK
    now = " now" if args.percent is not None else ""
    print(f"Queue {detail.id} {detail.name!r}{now}: {described(detail.gold_percent)}")
    return OK


async def list_gold(args: argparse.Namespace) -> int:
    from queuedesk.api.gold_rules import accuracy_text, tallies

    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        tasks = await client.gold_tasks(queue.id)
        counts = tallies([answer async for answer in client.iter_gold_answers(queue.id)])
    if args.json:
        print_json(
            [
                {
                    **task.model_dump(mode="json"),
                    "answered": counts[task.id].answered if task.id in counts else 0,
                    "correct": counts[task.id].correct if task.id in counts else 0,
                }
                for task in tasks
            ]
        )
        return OK
    rows = []
    for task in tasks:
        tally = counts.get(task.id)
        answered, correct = (tally.answered, tally.correct) if tally else (0, 0)
        state = "retired" if task.retired else ("held" if task.assignment.assigned_to else "served")
        rows.append(
            [task.id, values_text(task.gold or {}), answered, accuracy_text(correct, answered), state]
        )
    if rows:
        print_table(["task", "expected", "answered", "right", "state"], rows)
    retired = sum(task.retired for task in tasks)
    print(
        f"{counted(len(tasks), 'gold task')} in queue {queue.id} {queue.name!r}"
        + (f" ({retired} retired)." if retired else ".")
    )
    return OK


async def answers(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        page = await client.gold_answers(
            queue.id, completed_by=args.worker, offset=args.offset, limit=args.limit
        )
    shown = [a for a in page.answers if not (args.misses and a.correct)]
    if args.json:
        print_json({**page.model_dump(mode="json"), "answers": [a.model_dump(mode="json") for a in shown]})
        return OK
    rows = []
    for answer in shown:
        missed = [
            f"{block}: answered {shown_value(answer.data.get(block))}, expected {shown_value(answer.expected.get(block))}"
            for block in answer.wrong
        ]
        rows.append(
            [
                answer.task_id,
                answer.worker,
                f"{answer.answered_at:%Y-%m-%d %H:%M}",
                "right" if answer.correct else "missed",
                "; ".join(missed),
            ]
        )
    if rows:
        print_table(["task", "worker", "answered", "score", "misses"], rows)
    kept = " (misses shown)" if args.misses else ""
    print(f"{counted(page.count, 'gold answer')} in queue {queue.id} {queue.name!r}{kept}.")
    return OK


async def expect(args: argparse.Namespace) -> int:
    from queuedesk.api.gold_rules import expected_problems

    task_id = _task_id(args.task)
    expected = expected_json(args.expect)
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        detail = await client.queue_with_gold(queue.id)  # NoGold first, on an older server
        if found := expected_problems(detail.data, expected):
            raise UsageError(f"nothing was changed: {'; '.join(found)}")
        task = await client.update_gold_task(queue.id, task_id, gold=expected)
    if args.json:
        print_json(task.model_dump(mode="json"))
        return OK
    print(
        f"Gold task {task.id} now expects {values_text(task.gold or expected)}. Answers given before "
        "keep their score."
    )
    return OK


async def retire(args: argparse.Namespace) -> int:
    task_id = _task_id(args.task)
    if not args.yes:
        raise UsageError(
            f"retiring gold task {task_id} serves it to no one again, for good: add --yes to do it"
        )
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        task = await client.update_gold_task(queue.id, task_id, retired=True)
    if args.json:
        print_json(task.model_dump(mode="json"))
        return OK
    print(f"Gold task {task.id} is retired: it is served to no one again. Its answers keep their score.")
    return OK


def _percent(text: str) -> int:
    number = plain_int(text.rstrip("%"))
    if number is None:
        raise argparse.ArgumentTypeError(f"must be a whole number of per cent (0-50), not {text!r}")
    return number


def _offset(text: str) -> int:
    number = plain_int(text)
    if number is None or number < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, not {text!r}")
    return number


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    gold = commands.add_parser(
        "gold",
        help="gold tasks: known answers mixed into the work to measure each worker",
        description="Gold tasks (a server with B22): tasks with a known answer, served to each worker "
        "at most once and never completed; each answer is scored against the expected values. Create "
        "them with `tasks create QUEUE --data JSON --gold JSON` or `import` with gold.<block id> "
        "columns (admins).",
    )
    actions = gold.add_subparsers(dest="gold_command", metavar="ACTION", required=True)

    sharing = actions.add_parser(
        "share",
        parents=[connection],
        help="read or set the share of each worker's claims served from the gold tasks (0-50%%)",
        description="Without PERCENT: what the queue's gold share is. With it (admins): about that "
        "share of each worker's claims serve a gold task they have not answered yet.",
        epilog="example: queuedesk gold share Sorting 10",
    )
    sharing.add_argument("queue", help="queue id or name")
    sharing.add_argument("percent", nargs="?", type=_percent, help="per cent, 0-50 (0: never served)")
    sharing.set_defaults(client_command=share)

    listing = actions.add_parser(
        "list",
        parents=[connection],
        help="the gold tasks: expected values, answered by how many, accuracy (admins, supervisors)",
    )
    listing.add_argument("queue", help="queue id or name")
    listing.set_defaults(client_command=list_gold)

    answering = actions.add_parser(
        "answers",
        parents=[connection],
        help="the scored answers to gold tasks, newest first (a worker: their own, --worker me)",
        description="Each answer to a gold task: who, when, right or missed, and what was missed "
        "(answered beside expected). A worker reads their own only: --worker me.",
    )
    answering.add_argument("queue", help="queue id or name")
    answering.add_argument("--worker", metavar="EMAIL", help="one worker's answers (an email, or me)")
    answering.add_argument("--misses", action="store_true", help="show only the answers that missed")
    answering.add_argument(
        "--limit", type=page_size, default=100, help="at most this many (1-1000; default 100)"
    )
    answering.add_argument("--offset", type=_offset, default=0, help="skip this many (default 0)")
    answering.set_defaults(client_command=answers)

    expecting = actions.add_parser(
        "expect",
        parents=[connection],
        help="correct a gold task's expected values (admins; earlier answers keep their score)",
        epilog='example: queuedesk gold expect Sorting 812 --expect \'{"category": "blue"}\'',
    )
    expecting.add_argument("queue", help="queue id or name")
    expecting.add_argument("task", help="the gold task's id")
    expecting.add_argument("--expect", required=True, metavar="JSON", help="the expected values, by block id")
    expecting.set_defaults(client_command=expect)

    retiring = actions.add_parser(
        "retire",
        parents=[connection],
        help="retire a gold task: never served again (admins)",
    )
    retiring.add_argument("queue", help="queue id or name")
    retiring.add_argument("task", help="the gold task's id")
    retiring.add_argument("--yes", action="store_true", help="really do it (it cannot be undone)")
    retiring.set_defaults(client_command=retire)
