"""What every client command shares: connection options, exit codes, output, finding a queue."""

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from queuedesk.api import errors
from queuedesk.api.client import ENV_ORG, ENV_TOKEN, ENV_URL, QueueDeskClient
from queuedesk.api.models import Queue

# Exit codes scripts can rely on.
OK = 0
FAILED = 1  # the server failed or answered something unexpected
USAGE = 2  # bad arguments or input (including input the server refused)
DENIED = 3  # authentication or permission
NOT_FOUND = 4
CONFLICT = 5
UNREACHABLE = 6  # connection refused, time-out
NOT_SUPPORTED = 7  # the server lacks QueueDesk's extensions

EXIT_CODES: list[tuple[type[errors.QueueDeskError], int]] = [
    (errors.NotSupported, NOT_SUPPORTED),
    (errors.ConnectionFailed, UNREACHABLE),
    (errors.AuthenticationError, DENIED),
    (errors.Forbidden, DENIED),
    (errors.NotFound, NOT_FOUND),
    (errors.Conflict, CONFLICT),
    (errors.ValidationError, USAGE),
    (errors.PayloadTooLarge, USAGE),
]

EXIT_HELP = """exit codes: 0 success, 1 server failure, 2 bad arguments or input, 3 authentication or
permission, 4 not found, 5 conflict, 6 server unreachable, 7 not supported by this server"""


class UsageError(Exception):
    """Bad arguments or input, found before anything was sent."""


def connection_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection")
    group.add_argument("--url", help=f"server URL (default: ${ENV_URL})")
    group.add_argument("--token", help=f"API key (default: ${ENV_TOKEN})")
    group.add_argument(
        "--org", type=int, help=f"organization id (default: ${ENV_ORG}, or asked from the server)"
    )
    group.add_argument("--json", action="store_true", help="print JSON for programs instead of a table")
    return parent


def client_from(args: argparse.Namespace) -> QueueDeskClient:
    try:
        return QueueDeskClient(args.url, args.token, args.org)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def fail(message: str, code: int) -> int:
    print(f"queuedesk: {message}", file=sys.stderr)
    return code


def run(command: Callable[[argparse.Namespace], Awaitable[int]], args: argparse.Namespace) -> int:
    """Run an async command; every failure becomes a message on stderr and an exit code."""
    try:
        return asyncio.run(command(args))
    except UsageError as exc:
        return fail(str(exc), USAGE)
    except errors.QueueDeskError as exc:
        code = next((code for kind, code in EXIT_CODES if isinstance(exc, kind)), FAILED)
        return fail(str(exc), code)
    except KeyboardInterrupt:
        return fail("interrupted", 130)


async def find_queue(client: QueueDeskClient, ref: str) -> Queue:
    """A queue by id, or by name (exact, else case-insensitive when that is unambiguous)."""
    queues = await client.queues()
    if ref.isdigit():
        for queue in queues:
            if queue.id == int(ref):
                return queue
    exact = [q for q in queues if q.name == ref]
    loose = [q for q in queues if q.name.casefold() == ref.casefold()]
    for found in (exact, loose):
        if len(found) == 1:
            return found[0]
    if len(loose) > 1:
        raise UsageError(f"{ref!r} names several queues ({', '.join(str(q.id) for q in loose)}): use the id")
    names = ", ".join(f"{q.id} {q.name!r}" for q in queues) or "none"
    raise errors.NotFound(f"No queue {ref!r} in this organization (queues: {names}).")


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in headers], *[["" if v is None else str(v) for v in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        print("  ".join(value.ljust(widths[i]) for i, value in enumerate(row)).rstrip())
        if index == 0:
            print("  ".join("-" * w for w in widths))
