"""Which of QueueDesk's extras a command needs, and what to say when one is not installed.

`pip install queuedesk` is the client (`queuedesk.api`) and the command line; `queuedesk[app]` adds
the terminal app and `queuedesk web`, `queuedesk[server]` the service, `queuedesk[postgres]` its
PostgreSQL driver. Before a command runs, the extras it needs are looked up (not imported); while
it runs, a module found missing is named by the extra that installs it. Either way the command
says what to install and exits with status 2, never with a traceback.
"""

import argparse
from importlib.util import find_spec

# The modules of each extra that QueueDesk imports itself, looked up before a command that needs
# the extra runs.
PROBES = {
    "app": ("textual", "textual_image", "textual_serve"),
    "server": ("uvicorn", "starlette", "sqlalchemy", "orjson", "prometheus_client"),
    "postgres": ("asyncpg",),
}

# The extra that installs each top-level module QueueDesk imports beyond the plain install.
PROVIDED_BY = {
    "textual": "app",
    "textual_image": "app",
    "textual_serve": "app",
    "aiohttp": "app",
    "aiohttp_jinja2": "app",
    "jinja2": "app",
    "PIL": "app",
    "uvicorn": "server",
    "starlette": "server",
    "sqlalchemy": "server",
    "orjson": "server",
    "prometheus_client": "server",
    "httptools": "server",
    "uvloop": "server",
    "asyncpg": "postgres",
}

HINT_EXIT = 2


def needed(args: argparse.Namespace) -> tuple[str, tuple[str, ...]]:
    """What the parsed command is called in a message, and the extras it needs."""
    command = getattr(args, "command", None)
    if command is None:
        return "queuedesk (the terminal app)", ("app",)
    if command == "web":
        return "queuedesk web", ("app",)
    if command == "demo":
        return "queuedesk demo", ("server",) if args.no_app else ("app", "server")
    if getattr(args, "service_command", None) is not None:
        return f"queuedesk {command}", ("server",)
    return f"queuedesk {command}", ()


def missing(extras: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(extra for extra in extras if any(find_spec(module) is None for module in PROBES[extra]))


def extra_for(error: ModuleNotFoundError) -> str | None:
    """The extra that installs the module `error` found missing (None: not one of an extra's)."""
    return PROVIDED_BY.get((error.name or "").split(".")[0])


def install_hint(what: str, extras: tuple[str, ...]) -> str:
    """`queuedesk web needs QueueDesk's app extra, which is not installed: pip install ...`"""
    names = ",".join(extras)
    which = "extras, which are" if len(extras) > 1 else "extra, which is"
    return (
        f"{what} needs QueueDesk's {' and '.join(extras)} {which} not installed:\n"
        f"  pip install 'queuedesk[{names}]'\n"
        f"  (installed as a tool: pipx install --force 'queuedesk[{names}]' "
        f"or uv tool install --force 'queuedesk[{names}]')"
    )
