"""What the app may reach when it runs in a browser session (`queuedesk web`): only the QueueDesk
servers the operator allowed (`--allow-server`), so that whoever drives the page cannot make the
serving machine fetch its internal addresses; and what it says of an answer that is not a QueueDesk
server's (never the answer's body)."""

import os
from urllib.parse import urlsplit

ALLOWED_SERVERS_VARIABLE = "QUEUEDESK_WEB_ALLOWED_SERVERS"  # space-separated addresses
# Image servers the operator trusts although they are not public (the demo's picture server).
IMAGE_ORIGINS_VARIABLE = "QUEUEDESK_WEB_IMAGE_ORIGINS"


class ServerNotAllowed(Exception):
    """The address is not one the browser session may connect to."""


def origin(url: str) -> str:
    """scheme://host:port, lower case, with the scheme's default port written out."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def allowed_servers() -> list[str]:
    return os.environ.get(ALLOWED_SERVERS_VARIABLE, "").split()


def check_allowed(url: str) -> None:
    """ServerNotAllowed unless `url` is on one of the allowed servers (same scheme, host and port)."""
    allowed = allowed_servers()
    if origin(url) and origin(url) in {origin(server) for server in allowed}:
        return
    listing = ", ".join(allowed) if allowed else "none"
    raise ServerNotAllowed(
        f"In the browser this app connects only to the servers its operator allows ({listing}). "
        "Ask them to add yours with `queuedesk web --allow-server URL`."
    )


def trusted_image_origin(url: str) -> bool:
    """Whether images at `url` come from a server the operator named (fetched without the guard)."""
    named = {origin(server) for server in os.environ.get(IMAGE_ORIGINS_VARIABLE, "").split()}
    return bool(origin(url)) and origin(url) in named
