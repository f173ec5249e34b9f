"""Public addresses: whether the machine QueueDesk runs on may connect to a URL's host for someone
else (a webhook target an admin set; in the browser mode, an image a task names). Only global
unicast addresses are public; a name is resolved and judged by every address it has, and the
connection then goes to the address that was checked (`pinned`), so a name that re-resolves
elsewhere in between (DNS rebinding) cannot reach an internal address.
"""

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class BlockedTarget(Exception):
    """The address may not be called from here; the message says why (and what to do)."""


# IPv6 forms whose low 32 bits are an IPv4 address a packet to them reaches (the IPv4-mapped form
# and 6to4 / Teredo have the standard library's own accessors).
IPV4_IN_LOW_BITS = (
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (deprecated), ::a.b.c.d
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated (SIIT), ::ffff:0:a.b.c.d
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64, the well-known prefix
)
# Never public, whatever they carry: local-use NAT64 (its IPv4 may sit anywhere in the prefix,
# depending on the operator's prefix length) and site-local (deprecated, still routed inside sites).
NEVER_PUBLIC_V6 = (
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("fec0::/10"),
    # IANA's special-purpose blocks that are not globally reachable, whatever the standard library
    # of the day says (its lists lag the registry): IETF protocol assignments, documentation, SRv6.
    ipaddress.IPv6Network("2001::/23"),
    ipaddress.IPv6Network("2001:db8::/32"),
    ipaddress.IPv6Network("3fff::/20"),
    ipaddress.IPv6Network("5f00::/16"),
    ipaddress.IPv6Network("100::/64"),
)
# The IPv4 blocks IANA's special-purpose registry marks not globally reachable, and 192.88.99.0/24
# (the deprecated 6to4 relay anycast). All of 192.0.0.0/24, its two anycast services included.
NEVER_PUBLIC_V4 = tuple(
    ipaddress.IPv4Network(block)
    for block in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
    )
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
    if isinstance(address, ipaddress.IPv4Address):
        if any(address in network for network in NEVER_PUBLIC_V4):
            return False
    else:
        if any(address in network for network in NEVER_PUBLIC_V6):
            return False
        if not all(is_public(v4) for v4 in carried_ipv4(address)):
            return False
        if address.ipv4_mapped is not None:
            return True  # the standard library calls the whole mapped range non-global: the IPv4 decides
    return address.is_global and not address.is_multicast


async def resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


async def checked_address(target: str, *, advice: str = "") -> IPAddress:
    """The public address to connect to for `target`, or BlockedTarget (its message ending with
    `advice`, when given)."""
    parts = urlsplit(target)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = await resolve(host, port)
    except OSError as exc:
        raise BlockedTarget(f"The host {host!r} does not resolve ({exc.strerror or exc}).") from None
    if not addresses or not all(is_public(a) for a in addresses):
        # What the name resolved to is not said: an admin would learn the server's inside from it.
        raise BlockedTarget(f"The host {host!r} is not a public address" + (f"; {advice}" if advice else "."))
    return addresses[0]


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
