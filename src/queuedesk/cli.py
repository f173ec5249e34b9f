"""The `queuedesk` command."""

import argparse
import sys
from collections.abc import Sequence

from queuedesk import __version__, collector, lean_start

# Building the parser imports nothing heavy (the app's start counts every import), nor anything of
# the server: each command imports what it needs when it runs, and the server's modules load only
# for the service's commands (commands/service.py). The command modules themselves are imported in
# main(), once the collector is off.


def build_parser() -> argparse.ArgumentParser:
    from queuedesk import web
    from queuedesk.commands import (
        audit,
        config,
        export,
        importing,
        queue_files,
        queues,
        reviews,
        service,
        tasks,
        users,
    )
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

    service.add_parsers(commands)
    web.add_parser(commands)
    connection = connection_options()
    for module in (queues, queue_files, tasks, reviews, importing, export, config, users, audit):
        module.add_parsers(commands, connection)
    return parser


def app_parser() -> argparse.ArgumentParser:
    """The app's options alone, for `queuedesk` with no arguments at all.

    The whole parser imports every command's module to describe it (≈15 ms of the app's start);
    with no arguments there is nothing for it to tell apart. tests/test_cli.py checks that both
    give the same namespace.
    """
    from queuedesk.tui.main import add_app_options

    parser = argparse.ArgumentParser(prog="queuedesk")
    add_app_options(parser)
    parser.set_defaults(command=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with collector.off_while_starting():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    lean_start.without_httpx_cli()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the app: what the whole parser gives for no arguments, without its commands
        lean_start.without_pydantic_plugin_search()
        from queuedesk.tui.main import run_app

        return run_app(app_parser().parse_args(argv))
    from queuedesk.commands.common import run
    from queuedesk.commands.users import MOVED, database_keys_usage

    if database_keys_usage(argv):  # the old name of `admin-keys`, kept working
        print(MOVED, file=sys.stderr)
        argv[0] = "admin-keys"
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from queuedesk.tui.main import run_app

        return run_app(args)
    collector.on_for_a_command()
    if getattr(args, "service_command", None) is not None:
        from queuedesk.commands import service

        return service.run(args)
    if getattr(args, "web_command", None):
        from queuedesk import web

        return web.run(args)
    if getattr(args, "client_command", None) is not None:
        from queuedesk.commands.terminal_streams import shown_streams

        with shown_streams():  # on a terminal, every line by the display rule (api/terminal_text.py)
            return run(args.client_command, args)
    parser.print_help()
    return 0
