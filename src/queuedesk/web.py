"""`queuedesk web`: the terminal app in a browser, through textual-serve.

Every browser session runs its own app process, which starts on the Connect screen: each person
signs in with their own key. The sessions get none of this machine's connection (its QUEUEDESK_*
variables and profiles are not passed on) and write nothing to its disk (no profile, no journal of
unsent work; see tui/settings.web_session). Pictures use the half-cell renderer, which a browser's
terminal draws.
"""

import argparse
import os
import shlex
import sys
from pathlib import Path

from queuedesk.tui.terminal.browser_rules import ALLOWED_SERVERS_VARIABLE, IMAGE_ORIGINS_VARIABLE

WEB_HELP = """\
The app in a browser: each browser session runs its own app and signs in with its own key.
Nothing is saved on this machine for a session (no profile, no journal of unsent work).

It listens on loopback (127.0.0.1) by default. To offer it to others, keep it there and put a
reverse proxy with TLS in front that passes WebSockets on, and give the address people use:

  queuedesk web --port 8100 --public-url https://queues.example.com

  # Caddy:  queues.example.com { reverse_proxy 127.0.0.1:8100 }
  # nginx:  location / { proxy_pass http://127.0.0.1:8100; proxy_http_version 1.1;
  #                      proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";
  #                      proxy_set_header Host $host; }

An app process starts only for a browser that has this run's key: the address it prints
carries one, new at every start (or give --password and type it on the page). A WebSocket from
any other page (another Origin) is refused, and at most --max-sessions (8) run at once. Still,
restrict who reaches the page at the proxy (single sign-on, basic auth or an allow-list) when it
is not on a private network.
"""

PASSWORD_VARIABLE = "QUEUEDESK_WEB_PASSWORD"
PAGE_TEMPLATES = Path(__file__).parent / "web_page"  # app_index.html, in place of textual-serve's
SESSION_ENTRY = "queuedesk.tui.terminal.host_programs"  # the app, with no program run on the host
LOCAL_SERVERS = ("http://127.0.0.1:8000", "http://localhost:8000")  # `queuedesk serve`'s default
# This machine's connection: never handed to a browser session.
HOST_CONNECTION_VARIABLES = (
    "QUEUEDESK_URL",
    "QUEUEDESK_TOKEN",
    "QUEUEDESK_ORG",
    "QUEUEDESK_PROFILE",
    "QUEUEDESK_CONFIG",
    PASSWORD_VARIABLE,
)


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    web = commands.add_parser(
        "web",
        help="the app in a browser (textual-serve)",
        description=WEB_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    web.set_defaults(web_command=True)
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    web.add_argument("--port", type=int, default=8100, help="port to listen on (default 8100)")
    web.add_argument("--public-url", metavar="URL", help="the address browsers use, behind a reverse proxy")
    web.add_argument("--server-url", metavar="URL", help="the QueueDesk server the Connect screen offers")
    web.add_argument(
        "--allow-server",
        metavar="URL",
        action="append",
        nargs="+",
        help="a QueueDesk server the sessions may connect to (repeatable; default: --server-url, or "
        "the local one, http://127.0.0.1:8000)",
    )
    web.add_argument(
        "--password",
        help="a password to type on the page, instead of the key in the printed address "
        "(also read from QUEUEDESK_WEB_PASSWORD)",
    )
    web.add_argument(
        "--max-sessions", type=int, default=8, help="browser sessions (app processes) at once (default 8)"
    )


def session_environment(
    base: dict[str, str],
    server_url: str | None,
    allowed: list[str] | None = None,
    image_origins: list[str] | None = None,
) -> dict[str, str]:
    """What each browser session's app process gets: this environment without the host's connection,
    and the servers it may connect to."""
    environment = {name: value for name, value in base.items() if name not in HOST_CONNECTION_VARIABLES}
    environment["QUEUEDESK_WEB_SESSION"] = "1"
    environment["QUEUEDESK_IMAGE_RENDERER"] = "halfcell"
    environment.pop("QUEUEDESK_WEB_SERVER_URL", None)
    if server_url:
        environment["QUEUEDESK_WEB_SERVER_URL"] = server_url
    if not allowed:
        allowed = [server_url] if server_url else list(LOCAL_SERVERS)
    environment[ALLOWED_SERVERS_VARIABLE] = " ".join(allowed)
    environment[IMAGE_ORIGINS_VARIABLE] = " ".join(image_origins or [])
    return environment


def serve_web(
    host: str,
    port: int,
    *,
    demo_url: str | None = None,
    public_url: str | None = None,
    password: str | None = None,
    max_sessions: int = 8,
    allowed_servers: list[str] | None = None,
    image_origins: list[str] | None = None,
) -> int:
    try:
        from queuedesk.web_guard import GuardedServer, new_secret
    except ModuleNotFoundError:
        print("queuedesk: the web mode needs textual-serve: pip install textual-serve", file=sys.stderr)
        return 2
    if max_sessions < 1:
        print("queuedesk: --max-sessions must be at least 1", file=sys.stderr)
        return 2
    password = password or os.environ.pop(PASSWORD_VARIABLE, None) or None
    # textual-serve starts each session with a copy of this process's environment.
    environment = session_environment(dict(os.environ), demo_url, allowed_servers, image_origins)
    os.environ.clear()
    os.environ.update(environment)
    # Each session's app starts behind the guard that refuses to start any program on this host.
    command = f"{shlex.quote(sys.executable)} -m {SESSION_ENTRY}"
    where = (public_url or f"http://{host}:{port}").rstrip("/")
    secret = password or new_secret()
    address = f"{where}/" if password else f"{where}/?key={secret}"
    print(
        f"queuedesk web: the app on {address} (each browser session signs in; stop with Ctrl+C)",
        file=sys.stderr,
    )
    server = GuardedServer(
        command,
        host=host,
        port=port,
        public_url=public_url,
        secret=secret,
        password_given=password is not None,
        max_sessions=max_sessions,
    )
    server.templates_path = PAGE_TEMPLATES  # our page: it loads nothing from outside this server
    server.serve()
    return 0


def run(args: argparse.Namespace) -> int:
    return serve_web(
        args.host,
        args.port,
        demo_url=args.server_url,
        public_url=args.public_url,
        password=args.password,
        max_sessions=args.max_sessions,
        allowed_servers=[url for group in args.allow_server or [] for url in group],
    )
