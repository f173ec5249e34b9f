"""`serve`, `demo`, `admin-keys`, `doctor`, `prune`, `backup`, `restore`: the commands that run the service
or open its database.

Their parsers need nothing of the server; running one imports it (the `server` extra), or says
how to install it. Every other command is a client of some server and never imports it.
"""

import argparse
import os
import sys

from queuedesk import service_defaults as defaults
from queuedesk.api.numbers import plain_int, positive_seconds
from queuedesk.commands.durations import duration_argument
from queuedesk.service_defaults import DEFAULT_DB_POOL_SIZE, DEFAULT_HOST, DEFAULT_LEASE_SECONDS, DEFAULT_PORT
from queuedesk.service_environment import read_environment

LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")
# Besides `serve` (all of its options), the commands that read QUEUEDESK_DB.
DB_FROM_ENVIRONMENT = ("doctor", "prune", "backup")


def _add_db(parser: argparse.ArgumentParser) -> argparse.Action:
    return parser.add_argument(
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
        option = _add_db(parser)
        if name in DB_FROM_ENVIRONMENT:
            read_environment(parser, [option], os.environ)
    return parser


def _add_serve(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    serve = _command(
        commands,
        "serve",
        "run the QueueDesk service (every option also reads QUEUEDESK_<OPTION>, e.g. QUEUEDESK_DB; the flag wins)",
        db=False,
    )
    add = serve.add_argument
    options = [
        _add_db(serve),
        add("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})"),
        add("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"),
        add("--seed", metavar="FILE", help="TOML or JSON file of organizations, users and queues to create"),
        add("--public-url", metavar="URL", help="scheme and host used in paging links (behind a proxy)"),
        add(
            "--lease-seconds",
            type=int,
            default=DEFAULT_LEASE_SECONDS,
            help=f"how long a claim lasts without a heartbeat (default {DEFAULT_LEASE_SECONDS})",
        ),
        add(
            "--db-pool-size",
            type=int,
            default=DEFAULT_DB_POOL_SIZE,
            metavar="N",
            help=f"PostgreSQL connections per process (default {DEFAULT_DB_POOL_SIZE}); SQLite ignores it",
        ),
        add(
            "--allow-private-webhooks",
            action="store_true",
            help="allow webhook targets on loopback or private addresses (development, tests)",
        ),
        add(
            "--retain-deliveries",
            type=duration_argument,
            metavar="DURATION",
            help="prune finished webhook deliveries older than this (e.g. 30d) daily; default: keep them all",
        ),
    ]
    options += _add_observability(serve)
    options += _add_limits(serve)
    read_environment(serve, options, os.environ)


def _add_observability(serve: argparse.ArgumentParser) -> list[argparse.Action]:
    """Metrics and logs (docs/operations.md)."""
    group = serve.add_argument_group("operations")
    return [
        group.add_argument(
            "--metrics-token",
            metavar="TOKEN",
            help="serve GET /metrics (Prometheus) to 'Authorization: Bearer TOKEN'; without it, /metrics is 404",
        ),
        group.add_argument(
            "--log-format",
            choices=LOG_FORMATS,
            default="text",
            help="text lines or JSON lines (default text)",
        ),
        group.add_argument(
            "--log-level", choices=LOG_LEVELS, default="info", help="the least level logged (default info)"
        ),
    ]


def _rate(value: str) -> int | None:
    if value.lower() == "off":
        return None
    return _positive(value, "expected 'off' or a positive whole number")


def _seconds(value: str) -> float:
    seconds = positive_seconds(value, below=86_400)
    if seconds is None:
        raise argparse.ArgumentTypeError(f"expected seconds above 0 and below a day, not {value!r}")
    return seconds


def _positive(value: str, expected: str = "expected a positive whole number") -> int:
    number = plain_int(value)
    if not number:
        raise argparse.ArgumentTypeError(f"{expected}, not {value!r}")
    return number


def _add_limits(serve: argparse.ArgumentParser) -> list[argparse.Action]:
    """Slow clients, connections and rate limits (see the README's production section)."""
    limits = serve.add_argument_group("limits")
    options = []
    for flag, default, what in (
        ("--header-timeout", defaults.DEFAULT_HEADER_TIMEOUT, "for a request line and headers"),
        ("--body-timeout", defaults.DEFAULT_BODY_TIMEOUT, "for a body once its headers are in"),
        ("--keep-alive-timeout", defaults.DEFAULT_KEEP_ALIVE_TIMEOUT, "an idle connection stays open"),
    ):
        options.append(
            limits.add_argument(
                flag,
                type=_seconds,
                default=default,
                metavar="S",
                help=f"seconds {what} (default {default:g})",
            )
        )
    return [
        *options,
        limits.add_argument(
            "--max-connections",
            type=_positive,
            default=defaults.DEFAULT_MAX_CONNECTIONS,
            metavar="N",
            help=f"open connections at most; beyond, 503 (default {defaults.DEFAULT_MAX_CONNECTIONS})",
        ),
        limits.add_argument(
            "--rate-limit",
            type=_rate,
            default=defaults.DEFAULT_RATE_LIMIT,
            metavar="off|N",
            help=f"requests per second per API key, bursts of 2N (default {defaults.DEFAULT_RATE_LIMIT})",
        ),
        limits.add_argument(
            "--auth-failure-limit",
            type=_positive,
            default=defaults.DEFAULT_AUTH_FAILURE_LIMIT,
            metavar="N",
            help="failed authentications per second per client address, bursts of 5N; beyond, 429 before "
            f"the key is looked up (default {defaults.DEFAULT_AUTH_FAILURE_LIMIT})",
        ),
        limits.add_argument(
            "--forwarded-allow-ips",
            default=defaults.DEFAULT_FORWARDED_ALLOW_IPS,
            metavar="IPS",
            help="comma-separated proxies (or networks, or *) whose X-Forwarded-For names the client "
            f"(default {defaults.DEFAULT_FORWARDED_ALLOW_IPS})",
        ),
    ]


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
    demo = _command(
        commands, "demo", "open the app on a demo server with data and colleagues at work", db=False
    )
    from queuedesk.demo.options import add_options

    add_options(demo)
    _add_keys(commands)
    doctor = _command(
        commands,
        "doctor",
        "check the triggers that keep counters and recount each queue's counters from its tasks; report what is wrong",
    )
    doctor.add_argument(
        "--fix",
        action="store_true",
        help="make missing triggers again (recounting the stats rollups) and set drifted counters to the recount",
    )
    _add_retention(commands)


def _add_retention(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    prune = _command(
        commands, "prune", "remove old webhook deliveries, completed tasks and audit events, in small batches"
    )
    prune.add_argument(
        "--deliveries-older-than",
        type=duration_argument,
        metavar="DURATION",
        help="finished deliveries (and their attempts) created longer ago than this, e.g. 30d; never pending ones",
    )
    prune.add_argument(
        "--completed-older-than",
        type=duration_argument,
        metavar="DURATION",
        help="tasks completed longer ago than this, e.g. 365d (units: s, m, h, d, w)",
    )
    prune.add_argument(
        "--audit-older-than",
        type=duration_argument,
        metavar="DURATION",
        help="audit log events written longer ago than this, e.g. 730d",
    )
    prune.add_argument("--dry-run", action="store_true", help="only count what would be removed")
    prune.add_argument(
        "--batch-size", type=int, default=1000, metavar="N", help="rows per transaction (1000)"
    )
    backup = _command(commands, "backup", "copy a SQLite database consistently, also while it is served")
    backup.add_argument("file", metavar="FILE", help="the copy to write")
    backup.add_argument("--force", action="store_true", help="replace FILE if it exists")
    restore = _command(commands, "restore", "replace a stopped server's SQLite database with a backup")
    restore.add_argument("file", metavar="FILE", help="a backup made by 'queuedesk backup'")
    restore.add_argument(
        "--no-keep",
        action="store_true",
        help="do not keep the replaced database (kept as DB.replaced-<time>)",
    )


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
        from queuedesk.demo.launcher import run_demo

        return run_demo(args)
    run_command = {
        "serve": commands.serve,
        "admin-keys": commands.keys,
        "doctor": commands.doctor,
        "prune": commands.prune,
        "backup": commands.backup,
        "restore": commands.restore,
    }[args.service_command]
    return run_command(args)
