"""Which webhook targets are acceptable: absolute http(s) URLs, and public hosts unless allowed."""

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from queuedesk.api.blocks import MAX_URL_LENGTH, is_http_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def is_public(address: IPAddress) -> bool:
    """Global unicast only: no loopback, private, link-local, CGNAT, unique-local or mapped forms."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return is_public(mapped)
    return address.is_global and not address.is_multicast


async def resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]


def shape_problem(target: str) -> str | None:
    if len(target) > MAX_URL_LENGTH:
        return f"The webhook target is longer than {MAX_URL_LENGTH} characters."
    if not is_http_url(target):
        return f"{target!r} is not an absolute http or https URL."
    return None


async def address_problem(target: str) -> str | None:
    """Why this target may not be called from here, or None when its host is public."""
    parts = urlsplit(target)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = await resolve(host, port)
    except OSError as exc:
        return f"The host {host!r} does not resolve ({exc.strerror or exc})."
    blocked = [str(a) for a in addresses if not is_public(a)]
    if blocked:
        return (
            f"The host {host!r} is or resolves to a non-public address ({', '.join(blocked)}); "
            "start the server with --allow-private-webhooks to allow it."
        )
    return None
