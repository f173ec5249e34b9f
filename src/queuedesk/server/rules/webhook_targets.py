"""Which webhook targets may be called: absolute http(s) URLs, and public hosts unless allowed.

The same check runs when a target is set and again before every delivery; at delivery the
connection then goes to the address that was checked, so a name that re-resolves elsewhere in
between (DNS rebinding) cannot reach an internal address.

The address rules themselves (public or not, resolving, pinning) are `queuedesk.api.public_addresses`,
which the browser mode's image fetching uses too.
"""

from urllib.parse import urlsplit, urlunsplit

from queuedesk.api import public_addresses
from queuedesk.api.blocks import MAX_URL_LENGTH, control_problem, is_http_url
from queuedesk.api.public_addresses import (
    BlockedTarget,
    IPAddress,
    Route,
    carried_ipv4,
    is_public,
    pinned,
    resolve,
)

__all__ = [
    "BlockedTarget",
    "IPAddress",
    "Route",
    "address_problem",
    "carried_ipv4",
    "checked_address",
    "is_public",
    "masked",
    "pinned",
    "resolve",
    "shape_problem",
]

ADVICE = "start the server with --allow-private-webhooks to allow it."


def shape_problem(target: str) -> str | None:
    if len(target) > MAX_URL_LENGTH:
        return f"The webhook target is longer than {MAX_URL_LENGTH} characters."
    if (problem := control_problem(target)) is not None:
        return f"The webhook target {problem}."
    if not is_http_url(target):
        return f"{target!r} is not an absolute http or https URL."
    return None


async def checked_address(target: str) -> IPAddress:
    """The public address to connect to for `target`, or BlockedTarget saying how to allow it."""
    return await public_addresses.checked_address(target, advice=ADVICE)


async def address_problem(target: str) -> str | None:
    try:
        await checked_address(target)
    except BlockedTarget as exc:
        return str(exc)
    return None


HIDDEN = "***"


def masked(target: str) -> str:
    """The target as non-admins and the audit log see it: every place a URL carries a credential
    hidden. A password (`user:***@host`), a user name alone (a token: `***@host`), each query
    value (`?token=***&channel=***`, a bare `?abc123` as `?***`) and a fragment; the scheme, host,
    port, path and query names stay. A target that does not parse is hidden whole."""
    try:
        parts = urlsplit(target)
    except ValueError:
        return HIDDEN
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if at:
        user, colon, _ = userinfo.partition(":")
        userinfo = f"{user}:{HIDDEN}" if colon else HIDDEN
        parts = parts._replace(netloc=f"{userinfo}@{hostport}")
    if parts.query:
        pieces = (piece.partition("=") for piece in parts.query.split("&"))
        query = "&".join(
            f"{name}={HIDDEN}" if equals else (HIDDEN if name else "") for name, equals, _ in pieces
        )
        parts = parts._replace(query=query)
    if parts.fragment:
        parts = parts._replace(fragment=HIDDEN)
    return urlunsplit(parts)
