"""`queuedesk config path` and `queuedesk config show`: where settings live and which are in force."""

import argparse
from typing import Any

from queuedesk.api.config import ConfigError, config_path, load_config, mask, resolve_connection
from queuedesk.commands.common import OK, UsageError, print_json, print_table

NOT_SET = "not set"


async def show_path(args: argparse.Namespace) -> int:
    print(config_path())
    return OK


def _in_force(args: argparse.Namespace) -> dict[str, Any]:
    path = config_path()
    try:
        config = load_config(path)
        connection = resolve_connection(url=args.url, token=args.token, org=args.org, profile=args.profile)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    origins = connection.origins if connection is not None else {}
    values = {
        "url": connection.url if connection else None,
        "token": mask(connection.token) if connection and connection.token is not None else None,
        "org": connection.org if connection else None,
    }
    settings = {key: {"value": values[key], "source": origins.get(key, NOT_SET)} for key in values}
    if settings["org"]["value"] is None and connection is not None:
        settings["org"]["source"] = "not set: asked from the server (/me) when it can tell"
    return {
        "config_file": str(path),
        "config_file_exists": path.exists(),
        "profile": connection.profile if connection else None,
        "default_profile": config.default_profile,
        "profiles": sorted(config.profiles),
        **settings,
    }


async def show(args: argparse.Namespace) -> int:
    found = _in_force(args)
    if args.json:
        print_json(found)
        return OK
    exists = "" if found["config_file_exists"] else " (not there yet)"
    profiles = ", ".join(
        f"{name} (default)" if name == found["default_profile"] else name for name in found["profiles"]
    )
    print(f"config file: {found['config_file']}{exists}")
    print(f"profiles: {profiles or 'none'}")
    print_table(
        ["setting", "value", "from"],
        [(key, found[key]["value"], found[key]["source"]) for key in ("url", "token", "org")],
    )
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    config = commands.add_parser("config", help="where the settings live and which are in force")
    actions = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    path = actions.add_parser("path", help="print the configuration file's path")
    path.set_defaults(client_command=show_path)
    showing = actions.add_parser(
        "show",
        parents=[connection],
        help="the server, key (masked) and organization in force, and where each comes from",
    )
    showing.set_defaults(client_command=show)
