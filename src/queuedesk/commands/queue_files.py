"""`queuedesk queue create FILE`, `queue edit QUEUE FILE`, `queue show QUEUE --format toml|json`."""

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from queuedesk.api import errors
from queuedesk.api.wording import counted
from queuedesk.commands import consensus
from queuedesk.commands.common import OK, USAGE, UsageError, client_from, fail, find_queue, print_json

# Building the parser (every start of the app too) imports only this module: the file formats and
# the block rules are imported when a command runs.
if TYPE_CHECKING:
    from queuedesk.api.client import QueueDeskClient
    from queuedesk.api.models import QueueDetail
    from queuedesk.api.queue_files import QueueFile

IMPORT_CHUNK = 10_000
NO_QUEUE_CREATION = (
    "this server cannot create or change queues: it offers only the basic Task Queue API, where "
    "queues are made in that service's own interface. `queue show` works there."
)


def _load(path: str, *, for_create: bool) -> "QueueFile":
    from queuedesk.api.queue_files import QueueFileError, load_queue_file

    try:
        return load_queue_file(Path(path), for_create=for_create)
    except QueueFileError as exc:
        raise UsageError(str(exc)) from None


async def _require_queue_writes(client: "QueueDeskClient") -> None:
    if not await client.supports_extensions():
        raise errors.NotSupported(NO_QUEUE_CREATION)


def _report(queue: "QueueDetail", done: str, args: argparse.Namespace) -> None:
    if args.json:
        print_json(queue.as_sent())
    else:
        print(f"{done} queue {queue.id} {queue.name!r} with {counted(len(queue.data), 'block')}.")


async def create(args: argparse.Namespace) -> int:
    wanted = _load(args.file, for_create=True)
    assert wanted.name is not None and wanted.blocks is not None
    async with client_from(args) as client:
        await _require_queue_writes(client)
        queue = await client.create_queue(
            wanted.name,
            wanted.raw_blocks() or [],
            wanted.description or "",
            wanted.review_percent,
            consensus=wanted.consensus or None,
        )
        if wanted.webhook:
            await client.set_webhook(queue.id, wanted.webhook)
        for start in range(0, len(wanted.tasks), IMPORT_CHUNK):
            await client.import_tasks(queue.id, wanted.tasks[start : start + IMPORT_CHUNK], "manual")
        if wanted.tasks:
            queue = await client.queue(queue.id)
    _report(queue, "Created", args)
    if wanted.tasks and not args.json:
        print(f"{counted(len(wanted.tasks), 'task')} created in it.")
    return OK


def _check_consensus(wanted: "QueueFile", current: "QueueDetail", path: str) -> None:
    """Consensus settings in a file without blocks are checked against the queue's blocks."""
    from queuedesk.api.consensus_rules import Wanted, problems

    settings = wanted.consensus
    if not isinstance(settings, dict) or wanted.blocks is not None:
        return  # off, or checked with the file's blocks
    named = settings.get("blocks")
    found = problems(
        Wanted(settings["answers"], settings.get("max_answers"), settings.get("agreement"),
               None if named is None else tuple(named)),
        current.data,
    )  # fmt: skip
    if found:
        raise UsageError(f"{path}: consensus: {'; '.join(found)}; nothing was changed")


async def _tasks_holding_values(client: "QueueDeskClient", queue: "QueueDetail") -> int:
    """Pending and completed tasks: every task whose values a change of blocks can touch."""
    completed = (await client.completed_tasks(queue.id, limit=1)).count
    return queue.n_tasks + completed


async def edit(args: argparse.Namespace) -> int:
    from queuedesk.api.block_changes import compare_blocks, impact_lines

    wanted = _load(args.file, for_create=False)
    async with client_from(args) as client:
        await _require_queue_writes(client)
        found = await find_queue(client, args.queue)
        current = await client.queue(found.id)
        if wanted.consensus is not None:  # NoConsensus on a server without B21, before any change
            current = await client.queue_with_consensus(found.id)
            _check_consensus(wanted, current, args.file)
        if wanted.blocks is not None:
            changes = compare_blocks(current.data, wanted.blocks)
            affected = await _tasks_holding_values(client, current) if changes.touches_values else 0
            if affected:
                print(
                    f"Queue {current.id} {current.name!r} has {counted(affected, 'task')} "
                    f"({current.n_tasks} pending); changing its blocks:",
                    file=sys.stderr,
                )
                for line in impact_lines(changes):
                    print(f"  - {line}", file=sys.stderr)
                if not args.yes:
                    return fail("nothing was changed. Add --yes to change the blocks anyway.", USAGE)
        queue = await client.update_queue(
            current.id,
            name=wanted.name,
            description=wanted.description,
            blocks=wanted.raw_blocks(),
            review_percent=wanted.review_percent,
        )
        if wanted.consensus is not None:  # B21, after the blocks it may compare
            settings = wanted.consensus or {}
            queue = await client.set_consensus(
                queue.id,
                settings.get("answers"),
                max_answers=settings.get("max_answers"),
                agreement=settings.get("agreement"),
                blocks=settings.get("blocks"),
            )
        if wanted.webhook is not None:
            if wanted.webhook:
                await client.set_webhook(queue.id, wanted.webhook)
            else:
                await client.remove_webhook(queue.id)
    _report(queue, "Changed", args)
    return OK


async def show(args: argparse.Namespace) -> int:
    from queuedesk.api.queue_files import describe, dump, left_out

    async with client_from(args) as client:
        found = await find_queue(client, args.queue)
        queue = await client.queue(found.id)
        try:
            webhook = (await client.webhook(queue.id)).target
        except (errors.Forbidden, errors.NotFound):
            webhook = None  # a worker may not read it: the description goes without
    text = dump(describe(queue, webhook), "json" if args.json else args.format)
    dropped = left_out(queue)
    if dropped:
        print(
            "queuedesk: left out what a QueueDesk queue does not have: " + ", ".join(dropped),
            file=sys.stderr,
        )
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    queue = commands.add_parser(
        "queue",
        help="create, change or show one queue from a TOML or JSON description; set its consensus",
        description="A queue file has the shape of a seed's queue: name, description, webhook "
        "and review_percent (optional) and [[blocks]]; `create` also takes [[tasks]]. `queue show` writes one.",
    )
    actions = queue.add_subparsers(dest="queue_action", metavar="ACTION", required=True)

    making = actions.add_parser("create", parents=[connection], help="create a queue from a file (admin)")
    making.add_argument("file", help="a .toml or .json queue description")
    making.set_defaults(client_command=create)

    changing = actions.add_parser(
        "edit", parents=[connection], help="change a queue's name, description, webhook or blocks (admin)"
    )
    changing.add_argument("queue", help="queue id or name")
    changing.add_argument("file", help="a .toml or .json description; keys left out stay as they are")
    changing.add_argument(
        "--yes", action="store_true", help="change blocks even when tasks hold values they touch"
    )
    changing.set_defaults(client_command=edit)

    consensus.add_action(actions, connection)

    showing = actions.add_parser("show", parents=[connection], help="write a queue as a description file")
    showing.add_argument("queue", help="queue id or name")
    showing.add_argument("--format", choices=("toml", "json"), default="toml", help="toml (default) or json")
    showing.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    showing.set_defaults(client_command=show)
