"""Which webhook targets may be called: absolute http(s) URLs, and public hosts unless allowed.

The same check runs when a target is set and again before every delivery; at delivery the
connection then goes to the address that was checked, so a name that re-resolves elsewhere in
between (DNS rebinding) cannot reach an internal address.
"""

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from queuedesk.api.blocks import MAX_URL_LENGTH, control_problem, is_http_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class BlockedTarget(Exception):
    """The target may not be called from here; the message says why and what to do."""


# IPv6 forms whose low 32 bits are an IPv4 address a packet to them reaches (the IPv4-mapped form
# and 6to4 / Teredo have the standard library's own accessors).
IPV4_IN_LOW_BITS = (
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (deprecated), ::a.b.c.d
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated (SIIT), ::ffff:0:a.b.c.d
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64, the well-known prefix
)
# Never public, whatever they carry: local-use NAT64 (its IPv4 may sit anywhere in the prefix,
# depending on the operator's prefix length) and site-local (deprecated, still routed inside sites).
NEVER_PUBLIC = (
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("fec0::/10"),
)


def carried_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, compatible, translated, NAT64, 6to4, Teredo)."""
    carried: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        carried.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        carried.append(address.sixtofour)
    if address.teredo is not None:
        carried.extend(address.teredo)  # the Teredo server and the client behind its NAT
    if any(address in network for network in IPV4_IN_LOW_BITS):
        carried.append(ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF))
    return carried


def is_public(address: IPAddress) -> bool:
    """Global unicast only: no loopback, private, link-local, CGNAT, unique-local or site-local
    address, and no IPv6 form carrying an IPv4 address that is not public itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in network for network in NEVER_PUBLIC):
            return False
        if not all(is_public(v4) for v4 in carried_ipv4(address)):
            return False
        if address.ipv4_mapped is not None:
            return True  # the standard library calls the whole mapped range non-global: the IPv4 decides
    return address.is_global and not address.is_multicast


def _shown(address: IPAddress) -> str:
    """An address for a refusal, with the IPv4 it carries: `::7f00:1 (127.0.0.1)`."""
    carried = carried_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else []
    return f"{address} ({', '.join(map(str, carried))})" if carried else str(address)


async def resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def shape_problem(target: str) -> str | None:
    if len(target) > MAX_URL_LENGTH:
        return f"The webhook target is longer than {MAX_URL_LENGTH} characters."
    if (problem := control_problem(target)) is not None:
        return f"The webhook target {problem}."
    if not is_http_url(target):
        return f"{target!r} is not an absolute http or https URL."
    return None


async def checked_address(target: str) -> IPAddress:
    """The public address to connect to for `target`, or BlockedTarget."""
    parts = urlsplit(target)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = await resolve(host, port)
    except OSError as exc:
        raise BlockedTarget(f"The host {host!r} does not resolve ({exc.strerror or exc}).") from None
    blocked = sorted({_shown(a) for a in addresses if not is_public(a)})
    if blocked or not addresses:
        raise BlockedTarget(
            f"The host {host!r} is or resolves to a non-public address ({', '.join(blocked)}); "
            "start the server with --allow-private-webhooks to allow it."
        )
    return addresses[0]


async def address_problem(target: str) -> str | None:
    try:
        await checked_address(target)
    except BlockedTarget as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class Route:
    """Where a delivery's connection really goes, and what the receiver is told."""

    url: str
    host_header: str | None = None
    sni_hostname: str | None = None


def pinned(target: str, address: IPAddress) -> Route:
    """`target` with its host replaced by the checked address; Host and TLS keep the name."""
    parts = urlsplit(target)
    host = parts.hostname or ""
    try:
        ipaddress.ip_address(host)
        return Route(target)  # already an address
    except ValueError:
        pass
    shown = f"[{address}]" if address.version == 6 else str(address)
    netloc = shown if parts.port is None else f"{shown}:{parts.port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:  # credentials in the target go to the receiver as they would unpinned (HTTP basic auth)
        netloc = f"{userinfo}@{netloc}"
    url = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    host_header = host if parts.port is None else f"{host}:{parts.port}"
    return Route(url, host_header, host if parts.scheme == "https" else None)
