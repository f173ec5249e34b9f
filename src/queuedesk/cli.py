"""The `queuedesk` command."""

import argparse
import gc
import sys
from collections.abc import Sequence

from queuedesk import __version__

# Building the parser imports nothing heavy (the app's start counts every import): each command
# imports what it needs when it runs, and the server's modules load only for serve, keys and demo.
# The command modules themselves are imported in main(), once the collector is off.


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="database URL: sqlite:///path/file.db or postgresql://user@host:5432/name (default: a SQLite file in your data directory)",
    )


def build_parser() -> argparse.ArgumentParser:
    from queuedesk.commands import config, export, importing, queues, tasks
    from queuedesk.commands.common import EXIT_HELP, connection_options
    from queuedesk.tui.main import add_app_options

    parser = argparse.ArgumentParser(
        prog="queuedesk",
        description="QueueDesk: human-in-the-loop work queues. Without a command: the terminal app.",
        epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"queuedesk {__version__}")
    add_app_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the QueueDesk service")
    _add_db(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--seed", metavar="FILE", help="TOML or JSON file of organizations, users and queues to create"
    )
    serve.add_argument(
        "--public-url", metavar="URL", help="scheme and host used in paging links (behind a proxy)"
    )
    serve.add_argument(
        "--lease-seconds",
        type=int,
        # the server's DEFAULT_LEASE_SECONDS, filled in by main() so that the parser needs no server import
        help="how long a claim lasts without a heartbeat (default 900)",
    )
    serve.add_argument(
        "--db-pool-size",
        type=int,
        default=10,
        metavar="N",
        help="PostgreSQL connections per process (default 10); SQLite ignores it",
    )
    serve.add_argument(
        "--allow-private-webhooks",
        action="store_true",
        help="allow webhook targets on loopback or private addresses (development, tests)",
    )

    demo = commands.add_parser("demo", help="run QueueDesk on the embedded default with demo data")
    demo.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    _add_db(demo)

    keys = commands.add_parser("keys", help="manage API keys (stored only as hashes)")
    key_commands = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    create = key_commands.add_parser("create", help="issue a new key and print it once")
    _add_db(create)
    create.add_argument("--email", required=True, help="the user the key belongs to")
    create.add_argument("--org", help="organization name (created with the user when new)")
    create.add_argument("--name", help="the user's display name, for a new user")
    create.add_argument(
        "--role", default="worker", choices=("admin", "supervisor", "worker"), help="role of a new user"
    )
    listing = key_commands.add_parser("list", help="list keys (their prefixes, never the keys)")
    _add_db(listing)
    listing.add_argument("--email", help="only this user's keys")
    revoke = key_commands.add_parser("revoke", help="revoke a key by its id")
    _add_db(revoke)
    revoke.add_argument("key_id", type=int, help="the key's id, from 'queuedesk keys list'")
    doctor = commands.add_parser("doctor", help="recount each queue's counters from its tasks; report drift")
    _add_db(doctor)
    doctor.add_argument("--fix", action="store_true", help="set drifted counters to the recount")
    connection = connection_options()
    for module in (queues, tasks, importing, export, config):
        module.add_parsers(commands, connection)
    return parser


def _without_httpx_cli() -> None:
    """Keep httpx from importing its command line (click, pygments, rich's progress and syntax).

    httpx imports it with itself, used or not: ≈45 ms of the app's start. Marked as absent, httpx
    falls back to a stub `httpx.main` that QueueDesk never calls.
    """
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None marks a module absent


def main(argv: Sequence[str] | None = None) -> int:
    # A start allocates a few hundred thousand objects (modules, classes, pydantic's schemas) and
    # next to no garbage, yet the collector went over them some 150 times: ≈70 ms of the app's
    # start. It is off until the command runs; the app freezes what the start made (run_app).
    gc.disable()
    try:
        return _run(argv)
    finally:
        gc.enable()


def _run(argv: Sequence[str] | None) -> int:
    _without_httpx_cli()
    from queuedesk.commands.common import run
    from queuedesk.tui.main import run_app

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return run_app(args)
    gc.enable()
    if args.command in ("serve", "keys", "demo", "doctor"):
        try:
            from queuedesk.server import commands
        except ModuleNotFoundError as exc:
            if exc.name is None or exc.name.startswith("queuedesk"):
                raise
            print(
                f"queuedesk: the server is not installed ({exc.name}): pip install 'queuedesk[server]'",
                file=sys.stderr,
            )
            return 2
        if args.command == "demo":
            from queuedesk.demo import run_demo

            return run_demo(args)
        if args.command == "serve" and args.lease_seconds is None:
            from queuedesk.server.settings import DEFAULT_LEASE_SECONDS

            args.lease_seconds = DEFAULT_LEASE_SECONDS
        if args.command == "doctor":
            return commands.doctor(args)
        return commands.serve(args) if args.command == "serve" else commands.keys(args)
    if getattr(args, "client_command", None) is not None:
        return run(args.client_command, args)
    parser.print_help()
    return 0
