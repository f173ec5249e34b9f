"""`queuedesk` with no command: resolve the connection and settings, then run the app."""

import argparse
import sys

from queuedesk.api.config import ConfigError, Profile, load_config, resolve_connection, save_profile
from queuedesk.tui.settings import AppSettings, Target


def add_app_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the terminal app (queuedesk with no command)")
    group.add_argument("--url", help="server URL (default: $QUEUEDESK_URL, then the profile)")
    group.add_argument("--token", help="API key (default: $QUEUEDESK_TOKEN, then the profile)")
    group.add_argument("--org", type=int, help="organization id (asked from the server when it can tell)")
    group.add_argument("--profile", metavar="NAME", help="a saved connection (default: the default profile)")
    group.add_argument(
        "--refresh",
        type=float,
        metavar="SECONDS",
        help="how often live views refresh (default 5, or the config)",
    )


def _save(name: str, url: str, token: str, org: int | None) -> None:
    save_profile(name, Profile(url=url, token=token, org=org), make_default=True)


def run_app(args: argparse.Namespace) -> int:
    try:
        config = load_config()
        connection = resolve_connection(url=args.url, token=args.token, org=args.org, profile=args.profile)
    except ConfigError as exc:
        print(f"queuedesk: {exc}", file=sys.stderr)
        return 2
    if args.refresh is not None and args.refresh <= 0:
        print("queuedesk: --refresh takes a number of seconds above 0", file=sys.stderr)
        return 2
    target = None
    if connection is not None:
        target = Target(connection.url, connection.token, connection.org, connection.source)
    settings = AppSettings(
        refresh_seconds=args.refresh or config.app.refresh_seconds,
        theme=config.app.theme,
        submit_on_choice=config.app.submit_on_choice,
        keys=dict(config.app.keys),
        profile_name=(connection.profile if connection and connection.profile else args.profile) or "default",
    )
    # Images pick Kitty/Sixel/half-cells by asking the terminal, which works only before the app
    # takes over the terminal; importing the module does it.
    import queuedesk.tui.images  # noqa: F401
    from queuedesk.tui.app import QueueDeskApp

    app = QueueDeskApp(target, settings=settings, save_profile=_save)
    app.run()
    return app.return_code or 0
