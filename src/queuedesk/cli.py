"""The `queuedesk` command."""

import argparse
import os
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
        completion,
        config,
        export,
        gold,
        importing,
        queue_files,
        queues,
        reviews,
        service,
        stats,
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
    for module in (queues, queue_files, tasks, gold, reviews, stats, importing, export, config, users, audit):
        module.add_parsers(commands, connection)
    completion.add_parser(commands)
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
        try:
            code = _run(argv)
            sys.stdout.flush()  # a reader gone before the last output shows here, not at exit
        except BaseException as error:
            if not _reader_gone(error):
                raise
            _quiet_standard_output()
            return 0
        return code


def _reader_gone(error: BaseException) -> bool:
    """Whether `error` is only the reader of our output having gone (`queuedesk ... | head`)."""
    if isinstance(error, BaseExceptionGroup):
        return all(_reader_gone(inner) for inner in error.exceptions)
    return isinstance(error, BrokenPipeError)


def _quiet_standard_output() -> None:
    """What is still buffered for the gone reader goes nowhere: without this, Python's last flush
    at exit fails again and prints "Exception ignored ... BrokenPipeError"."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.__stdout__):
        try:
            os.dup2(devnull, stream.fileno())  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            continue
    os.close(devnull)


def _run(argv: Sequence[str] | None) -> int:
    from queuedesk.commands import extras

    lean_start.without_httpx_cli()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the app: what the whole parser gives for no arguments, without its commands
        if extras.missing(("app",)):
            print(extras.install_hint("queuedesk (the terminal app)", ("app",)), file=sys.stderr)
            print("  Without it, `queuedesk --help` lists the commands of the command line.", file=sys.stderr)
            return extras.HINT_EXIT
        lean_start.without_pydantic_plugin_search()
        from queuedesk.tui.main import run_app

        return run_app(app_parser().parse_args(argv))
    from queuedesk.commands.users import MOVED, database_keys_usage

    if database_keys_usage(argv):  # the old name of `admin-keys`, kept working
        print(MOVED, file=sys.stderr)
        argv[0] = "admin-keys"
    parser = build_parser()
    args = parser.parse_args(argv)
    what, needed = extras.needed(args)
    if missing := extras.missing(needed):
        print(extras.install_hint(what, missing), file=sys.stderr)
        return extras.HINT_EXIT
    try:
        return _dispatch(parser, args)
    except ModuleNotFoundError as error:
        extra = extras.extra_for(error)
        if extra is None:
            raise
        print(extras.install_hint(f"{what} ({error.name} is missing)", (extra,)), file=sys.stderr)
        return extras.HINT_EXIT


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
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
    if getattr(args, "completion_shell", None):
        from queuedesk.commands import completion

        return completion.run(args.completion_shell, parser)
    if getattr(args, "client_command", None) is not None:
        from queuedesk.commands.common import run
        from queuedesk.commands.terminal_streams import shown_streams

        with shown_streams():  # on a terminal, every line by the display rule (api/terminal_text.py)
            return run(args.client_command, args)
    parser.print_help()
    return 0
