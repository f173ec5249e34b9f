"""`queuedesk queues`, `queuedesk flush QUEUE --yes`, `queuedesk webhook get|set|remove QUEUE`."""

import argparse
import sys

from queuedesk.api.blocks import is_http_url
from queuedesk.api.wording import counted
from queuedesk.commands.common import OK, USAGE, client_from, fail, find_queue, print_json, print_table

BASIC_FLUSH_NOTE = (
    " This server (the original service) does not check who may flush: any key of the organization "
    "can, whatever its role."
)


async def list_queues(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queues = await client.queues()
    if args.json:
        print_json([q.as_sent() for q in queues])
        return OK
    print_table(
        ["id", "name", "pending", "active", "created"],
        [
            (q.id, q.name, q.n_tasks, ", ".join(q.active_users), q.created_at.strftime("%Y-%m-%d %H:%M"))
            for q in queues
        ],
    )
    return OK


async def flush(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        unchecked = "" if await client.supports_extensions() else BASIC_FLUSH_NOTE
        if not args.yes:
            return fail(
                f"flushing deletes every pending task of queue {queue.id} {queue.name!r} "
                f"({queue.n_tasks} now); completed tasks stay.{unchecked} Add --yes to do it.",
                USAGE,
            )
        if unchecked:
            print(f"queuedesk:{unchecked}", file=sys.stderr)
        await client.flush(queue.id)
    if args.json:
        print_json({"queue_id": queue.id, "flushed": True, "pending_before": queue.n_tasks})
    else:
        print(f"Flushed queue {queue.id} {queue.name!r}: {counted(queue.n_tasks, 'pending task')} deleted.")
    return OK


async def webhook(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        removed = ""
        if args.action == "set":
            if not args.target:
                return fail("webhook set needs a TARGET URL", USAGE)
            if not is_http_url(args.target):  # the app's rule too: a receiver is called over http(s)
                return fail(
                    f"{args.target!r} is not an http(s) address: only http:// and https:// targets can be "
                    "called, e.g. https://hooks.example.com/queuedesk",
                    USAGE,
                )
            await client.set_webhook(queue.id, args.target)
        elif args.action == "remove":
            removed = (await client.webhook(queue.id)).target
            await client.remove_webhook(queue.id)
        target = (await client.webhook(queue.id)).target
    if args.json:
        print_json({"queue_id": queue.id, "target": target})
    elif args.action == "remove":  # what was removed, or that there was nothing to remove
        print(
            f"Removed the webhook of queue {queue.id} {queue.name!r} (it was {removed})."
            if removed
            else f"Queue {queue.id} {queue.name!r} had no webhook: nothing was removed."
        )
    else:
        print(target or f"(queue {queue.id} {queue.name!r} has no webhook)")
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    listing = commands.add_parser("queues", parents=[connection], help="list the organization's queues")
    listing.set_defaults(client_command=list_queues)

    flushing = commands.add_parser("flush", parents=[connection], help="delete every pending task of a queue")
    flushing.add_argument("queue", help="queue id or name")
    flushing.add_argument("--yes", action="store_true", help="really do it (completed tasks stay)")
    flushing.set_defaults(client_command=flush)

    hook = commands.add_parser("webhook", parents=[connection], help="read, set or remove a queue's webhook")
    hook.add_argument("action", choices=("get", "set", "remove"))
    hook.add_argument("queue", help="queue id or name")
    hook.add_argument("target", nargs="?", help="the URL (for set)")
    hook.set_defaults(client_command=webhook)
