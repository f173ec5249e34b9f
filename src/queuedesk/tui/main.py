"""`queuedesk` with no command: resolve the connection and settings, then run the app."""

import argparse
import contextlib
import importlib
import os
import sys
import threading
from dataclasses import dataclass

from pydantic import SecretStr

from queuedesk import collector
from queuedesk.api.config import (
    AppSettings,
    ConfigError,
    ConfigFile,
    Profile,
    app_settings,
    config_path,
    load_config,
    resolve_connection,
    save_profile,
)
from queuedesk.api.numbers import positive_seconds
from queuedesk.compat.anyio_private import ASYNCIO_BACKEND
from queuedesk.tui.settings import WEB_SERVER_URL_VARIABLE, SaveProfile, Target, web_session


def add_app_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the terminal app (queuedesk with no command)")
    group.add_argument("--url", help="server URL (default: $QUEUEDESK_URL, then the profile)")
    group.add_argument("--token", help="API key (default: $QUEUEDESK_TOKEN, then the profile)")
    group.add_argument("--org", type=int, help="organization id (asked from the server when it can tell)")
    group.add_argument("--profile", metavar="NAME", help="a saved connection (default: the default profile)")
    group.add_argument(
        "--refresh",
        type=_seconds,
        metavar="SECONDS",
        help="how often live views refresh (default 5, or the config)",
    )
    group.add_argument(
        "--utc",
        action="store_true",
        default=None,
        help="show times and read date filters in UTC (default: the local zone, or utc in the config)",
    )


def _seconds(text: str) -> float:
    """--refresh's value: a number of seconds above 0 (not nan, not inf)."""
    seconds = positive_seconds(text)
    if seconds is None:
        raise argparse.ArgumentTypeError(f"takes a number of seconds above 0, such as 2 or 0.5, not {text!r}")
    return seconds


def _save(name: str, url: str, token: str, org: int | None) -> None:
    save_profile(name, Profile(url=url, token=SecretStr(token), org=org), make_default=True)


_FIRST_SCREEN_NEEDS = (
    "queuedesk.tui.screens.queues",
    "httpcore",
    "anyio",
    ASYNCIO_BACKEND,
    "h11",
    "sniffio",
)  # not certifi: only https loads it, when its client is made (api/client/transport.py)
_FIRST_SCREEN_NEEDS_TO_CONNECT = ("queuedesk.tui.screens.connect", *_FIRST_SCREEN_NEEDS)


def _import_quietly(name: str) -> None:
    # Only a head start: a module that fails here fails again, and shows, where it is really used.
    with contextlib.suppress(Exception):
        importlib.import_module(name)


def _ask_the_terminal() -> threading.Thread:
    """Start textual-image's questions to the terminal in a thread; join it before the app runs.

    Images pick Kitty, Sixel or half cells, and their size, from the terminal's answers, asked when
    textual-image is imported, which works only before the app takes over the terminal. Most
    terminals (tmux among them) never answer the Kitty question, so the import waits out a 0.1 s
    timeout: a thread waits while the app's modules are imported. Its dependencies are imported
    first, so that the thread imports textual-image's own modules only and the two threads never
    import the same module.
    """
    import PIL.Image  # noqa: F401
    import textual.app  # noqa: F401

    asking = threading.Thread(
        target=_import_quietly, args=("textual_image.widget",), name="terminal-query", daemon=True
    )
    asking.start()
    return asking


@dataclass(frozen=True)
class Start:
    """What the app starts with: where to connect (None: the Connect screen asks) and its settings."""

    target: Target | None
    settings: AppSettings
    save_profile: SaveProfile | None
    profile_name: str = "default"  # the name the Connect screen offers to save the connection as
    config_file: str = ""  # where the settings were read, for messages about them


def _check_theme(settings: AppSettings, where: str) -> None:
    from textual.theme import BUILTIN_THEMES

    if settings.theme is not None and settings.theme not in BUILTIN_THEMES:
        raise ConfigError(
            f"{config_path()}: {where}: {settings.theme!r} is not a theme; the themes: "
            f"{', '.join(sorted(BUILTIN_THEMES))}."
        )


def prepare(args: argparse.Namespace, *, save_profiles: bool = True) -> Start:
    """The connection and settings flags, the environment and the file give; ConfigError if wrong."""
    web = web_session()  # a browser session: no host configuration read, nothing saved
    config = ConfigFile() if web else load_config()
    connection = (
        None
        if web
        else resolve_connection(url=args.url, token=args.token, org=args.org, profile=args.profile)
    )
    in_force, origins = app_settings(config, args.profile)
    target = None
    if web and os.environ.get(WEB_SERVER_URL_VARIABLE):  # only the address to offer, never a key
        target = Target(os.environ[WEB_SERVER_URL_VARIABLE], None, None, "the web server")
    if connection is not None:
        target = Target(connection.url, connection.token, connection.org, connection.source)
    flags = {"refresh_seconds": args.refresh, "utc": getattr(args, "utc", None)}
    settings = in_force.model_copy(update={key: value for key, value in flags.items() if value})
    _check_theme(settings, origins["theme"])
    return Start(
        target,
        settings,
        _save if save_profiles and not web else None,
        profile_name=(connection.profile if connection and connection.profile else args.profile) or "default",
        config_file=str(config_path()) if not web else "",
    )


def run_app(args: argparse.Namespace, *, save_profiles: bool = True) -> int:
    """`save_profiles=False` (the demo): the Connect screen saves no profile."""
    try:
        start = prepare(args, save_profiles=save_profiles)
    except ConfigError as exc:
        print(f"queuedesk: {exc}", file=sys.stderr)
        return 2
    target = start.target
    from queuedesk.tui.terminal.terminal_session import quits_on_sigterm, title_kept

    with title_kept():  # the Kitty question sets tmux's pane title (terminal_session.py)
        asking = _ask_the_terminal()
        try:
            # What the first screen needs, imported while the terminal is being asked; httpx imports
            # its transport (httpcore, anyio, h11) only when the first client is made.
            for name in _FIRST_SCREEN_NEEDS if target and target.token else _FIRST_SCREEN_NEEDS_TO_CONNECT:
                _import_quietly(name)
            from queuedesk.tui.app import QueueDeskApp
        finally:
            # Also after ctrl+c: the thread sets the terminal back as it found it. And
            # queuedesk.tui.widgets.image_view, imported where pictures are shown, relies on the answers.
            asking.join()
    app = QueueDeskApp(
        target,
        settings=start.settings,
        save_profile=start.save_profile,
        profile_name=start.profile_name,
        config_file=start.config_file,
    )
    collector.freeze_the_apps_start()  # it stays off until the first screen is up (QueueDeskApp.on_mount)
    with title_kept(), quits_on_sigterm(app):
        app.run()
    return app.return_code or 0
