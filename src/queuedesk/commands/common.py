"""What every client command shares: connection options, exit codes, output, finding a queue."""

import argparse
import json
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from queuedesk.api import errors
from queuedesk.api.config import (
    ENV_ORG,
    ENV_PROFILE,
    ENV_TOKEN,
    ENV_URL,
    ConfigError,
    Connection,
    config_path,
    resolve_connection,
)
from queuedesk.api.models import Queue
from queuedesk.api.numbers import plain_int

# The parser is built from these modules on every start, the terminal app's too: what only a
# command needs (the HTTP client, asyncio, rich) is imported when that command runs.
if TYPE_CHECKING:
    from queuedesk.api.client import QueueDeskClient

# Exit codes scripts can rely on.
OK = 0
FAILED = 1  # the server failed or answered something unexpected
USAGE = 2  # bad arguments or input (including input the server refused), or missing settings
DENIED = 3  # authentication or permission (including an organization that is not the key's)
NOT_FOUND = 4
CONFLICT = 5
UNREACHABLE = 6  # connection refused, time-out
NOT_SUPPORTED = 7  # the server lacks QueueDesk's extensions
PARTIAL = 8  # some of the work was done before a failure (an import that stopped part way)

EXIT_CODES: list[tuple[type[errors.QueueDeskError], int]] = [
    (errors.NotSupported, NOT_SUPPORTED),
    (errors.NotConfigured, USAGE),
    (errors.ConnectionFailed, UNREACHABLE),
    (errors.AuthenticationError, DENIED),
    (errors.Forbidden, DENIED),
    (errors.NotFound, NOT_FOUND),
    (errors.Conflict, CONFLICT),
    (errors.ValidationError, USAGE),
    (errors.PayloadTooLarge, USAGE),
]

EXIT_HELP = """exit codes: 0 success, 1 server failure, 2 bad arguments, input or settings, 3 authentication
or permission, 4 not found, 5 conflict, 6 server unreachable, 7 not supported by this server,
8 stopped part way (an import created some rows; the message says which)"""


class UsageError(Exception):
    """Bad arguments or input, found before anything was sent."""


def connection_options() -> argparse.ArgumentParser:
    """A command's connection options. They may also come before the command (`queuedesk --url X
    queues`), where the app's options take them: a command's option left out must not overwrite
    those with None, hence no default here (the top-level parser gives the defaults)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection")
    unset = argparse.SUPPRESS
    group.add_argument("--url", default=unset, help=f"server URL (default: ${ENV_URL}, then the profile)")
    group.add_argument("--token", default=unset, help=f"API key (default: ${ENV_TOKEN}, then the profile)")
    group.add_argument(
        "--org",
        type=int,
        default=unset,
        help=f"organization id (default: ${ENV_ORG}, then the profile, else asked from the server)",
    )
    group.add_argument(
        "--profile",
        metavar="NAME",
        default=unset,
        help=f"a profile of the configuration file (default: ${ENV_PROFILE}, else the file's default)",
    )
    group.add_argument("--json", action="store_true", help="print JSON for programs instead of a table")
    return parent


def connection_from(args: argparse.Namespace) -> Connection:
    """The connection the options, the environment and the configuration file give, or UsageError."""
    try:
        connection = resolve_connection(url=args.url, token=args.token, org=args.org, profile=args.profile)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if connection is None:
        raise UsageError(
            f"no server URL: pass --url or set {ENV_URL} (with --token or {ENV_TOKEN}), "
            f"or save a profile in {config_path()}"
        )
    return connection


def client_from(args: argparse.Namespace) -> "QueueDeskClient":
    from queuedesk.api.client import QueueDeskClient
    from queuedesk.api.setting_names import COMMAND_LINE

    return QueueDeskClient(connection=connection_from(args), setting_names=COMMAND_LINE)


def fail(message: str, code: int) -> int:
    print(f"queuedesk: {message}", file=sys.stderr)
    return code


def exit_code(exc: errors.QueueDeskError) -> int:
    return next((code for kind, code in EXIT_CODES if isinstance(exc, kind)), FAILED)


def run(command: Callable[[argparse.Namespace], Coroutine[Any, Any, int]], args: argparse.Namespace) -> int:
    """Run an async command; every failure becomes a message on stderr and an exit code."""
    import asyncio

    async def guarded() -> int:
        asyncio.get_running_loop().set_exception_handler(_one_line)
        return await command(args)

    try:
        return asyncio.run(guarded())
    except UsageError as exc:
        return fail(str(exc), USAGE)
    except errors.QueueDeskError as exc:
        return fail(str(exc), exit_code(exc))
    except KeyboardInterrupt:
        return fail("interrupted", 130)


def _one_line(_loop: object, context: dict[str, Any]) -> None:
    """What asyncio would print as a traceback (a task nobody awaited failed), said in one line."""
    exc = context.get("exception")
    print(f"queuedesk: {context.get('message', 'a background task failed')}"
          f"{f': {type(exc).__name__}: {exc}' if exc else ''}", file=sys.stderr)  # fmt: skip


async def find_queue(client: "QueueDeskClient", ref: str) -> Queue:
    """A queue by id, or by name (exact, else case-insensitive when that is unambiguous)."""
    queues = await client.queues()
    queue_id = plain_int(ref)
    if queue_id is not None:
        for queue in queues:
            if queue.id == queue_id:
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
    """A table on standard output; piped, it is plain text that never wraps (use --json to parse)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from queuedesk.api.terminal_text import shown
    from queuedesk.commands.terminal_streams import console as command_console
    from queuedesk.commands.terminal_streams import terminal_of

    wide = None if sys.stdout.isatty() else 10_000
    console = command_console(file=terminal_of(sys.stdout), width=wide, highlight=False, soft_wrap=False)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:  # each value as literal text (never markup), shown by the display rule
        table.add_row(*(Text("" if value is None else shown(str(value))) for value in row))
    console.print(table)
