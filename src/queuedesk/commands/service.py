"""`serve`, `demo`, `admin-keys` and `doctor`: the commands that run the service or open its database.

Their parsers need nothing of the server; running one imports it (the `server` extra), or says
how to install it. Every other command is a client of some server and never imports it.
"""

import argparse
import sys

from queuedesk.service_defaults import DEFAULT_DB_POOL_SIZE, DEFAULT_HOST, DEFAULT_LEASE_SECONDS, DEFAULT_PORT


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="database URL: sqlite:///path/file.db or postgresql://user@host:5432/name (default: a SQLite file in your data directory)",
    )


def _command(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", name: str, help: str, *, db: bool = True
) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=help)
    parser.set_defaults(service_command=name)
    if db:
        _add_db(parser)
    return parser


def _add_serve(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    serve = _command(commands, "serve", "run the QueueDesk service")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    serve.add_argument(
        "--seed", metavar="FILE", help="TOML or JSON file of organizations, users and queues to create"
    )
    serve.add_argument(
        "--public-url", metavar="URL", help="scheme and host used in paging links (behind a proxy)"
    )
    serve.add_argument(
        "--lease-seconds",
        type=int,
        default=DEFAULT_LEASE_SECONDS,
        help=f"how long a claim lasts without a heartbeat (default {DEFAULT_LEASE_SECONDS})",
    )
    serve.add_argument(
        "--db-pool-size",
        type=int,
        default=DEFAULT_DB_POOL_SIZE,
        metavar="N",
        help=f"PostgreSQL connections per process (default {DEFAULT_DB_POOL_SIZE}); SQLite ignores it",
    )
    serve.add_argument(
        "--allow-private-webhooks",
        action="store_true",
        help="allow webhook targets on loopback or private addresses (development, tests)",
    )


def _add_keys(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    keys = _command(
        commands,
        "admin-keys",
        "bootstrap: issue, list or revoke API keys in the database itself (the first admin's key); "
        "once a server runs, admins use 'queuedesk users' and 'queuedesk keys'",
        db=False,
    )
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
    revoke.add_argument("key_id", type=int, help="the key's id, from 'queuedesk admin-keys list'")


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    _add_serve(commands)
    demo = _command(commands, "demo", "run QueueDesk on the embedded default with demo data")
    demo.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    _add_keys(commands)
    doctor = _command(commands, "doctor", "recount each queue's counters from its tasks; report drift")
    doctor.add_argument("--fix", action="store_true", help="set drifted counters to the recount")


def run(args: argparse.Namespace) -> int:
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
    if args.service_command == "demo":
        from queuedesk.demo import run_demo

        return run_demo(args)
    if args.service_command == "doctor":
        return commands.doctor(args)
    return commands.serve(args) if args.service_command == "serve" else commands.keys(args)
