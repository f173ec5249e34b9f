"""Which webhook targets may be called (`queuedesk.server.rules.webhook_targets`): the URL's shape, public
addresses only, and the connection pinned to the address that was checked.

No network: targets are literal addresses, and names are answered by a stand-in for the resolver
(`socket.getaddrinfo`, which the event loop calls in a thread).
"""

import asyncio
import ipaddress
import socket
import string
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.api.blocks import MAX_URL_LENGTH
from queuedesk.server.rules.webhook_targets import (
    BlockedTarget,
    Route,
    address_problem,
    checked_address,
    is_public,
    masked,
    pinned,
    shape_problem,
)
from tests.unit.strategies import PROPERTY

NOT_PUBLIC = [
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",  # link-local: the cloud metadata service
    "100.64.0.1",  # carrier-grade NAT
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",  # multicast
    "192.0.2.1",  # documentation
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "2001:db8::1",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "2002:7f00:1::1",  # 6to4 around 127.0.0.1
    "2002:a00:1::1",  # 6to4 around 10.0.0.1
]
PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:830::200e"]


def address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


def url_host(text: str) -> str:
    return f"[{text}]" if ":" in text else text


def answering(monkeypatch: pytest.MonkeyPatch, answer: Callable[[str], list[str]]) -> list[str]:
    """Resolve names with `answer` (a list of addresses, or OSError raised); the names asked are kept."""
    asked: list[str] = []

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        asked.append(host)
        found = answer(host)
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in found
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def check(target: str) -> Any:
    return asyncio.run(checked_address(target))


# --- the shape ----------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["https://hooks.example.com/queuedesk", "http://203.0.113.5:8080/x?y=1"])
def test_absolute_http_urls_have_the_shape(target):
    assert shape_problem(target) is None


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("ftp://example.com/", "is not an absolute http or https URL"),
        ("/relative/path", "is not an absolute http or https URL"),
        ("https://exa mple.com/", "is not an absolute http or https URL"),
        ("https://example.com:70000/", "is not an absolute http or https URL"),
        ("https://example.com/" + "a" * MAX_URL_LENGTH, f"longer than {MAX_URL_LENGTH} characters"),
    ],
)
def test_other_targets_are_refused_with_the_reason(target, says):
    assert says in (shape_problem(target) or "")


# --- which addresses are public -----------------------------------------------------------------


@pytest.mark.parametrize("text", NOT_PUBLIC)
def test_internal_and_special_addresses_are_not_public(text):
    assert not is_public(address(text))


@pytest.mark.parametrize("text", PUBLIC)
def test_global_unicast_addresses_are_public(text):
    assert is_public(address(text))


ipv4 = st.integers(min_value=0, max_value=2**32 - 1).map(ipaddress.IPv4Address)


@PROPERTY
@given(ipv4)
def test_an_ipv4_address_wrapped_in_ipv6_is_judged_as_itself(v4):
    """IPv4-mapped (`::ffff:a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`) forms reach the same host."""
    mapped = ipaddress.IPv6Address(f"::ffff:{v4}")
    six_to_four = ipaddress.IPv6Address((0x2002 << 112) | (int(v4) << 80) | 1)
    assert six_to_four.sixtofour == v4
    assert is_public(mapped) == is_public(v4) == is_public(six_to_four)


@PROPERTY
@given(
    st.sampled_from(
        ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10"]
    ),
    st.integers(min_value=0),
)
def test_no_address_of_an_internal_network_is_public(network, offset):
    net = ipaddress.ip_network(network)
    assert not is_public(net[offset % net.num_addresses])


@PROPERTY
@given(st.sampled_from(["::1/128", "fe80::/10", "fc00::/7"]), st.integers(min_value=0))
def test_no_ipv6_loopback_link_local_or_unique_local_address_is_public(network, offset):
    net = ipaddress.ip_network(network)
    assert not is_public(net[offset % net.num_addresses])


# --- the check before a call --------------------------------------------------------------------


@pytest.mark.parametrize("text", NOT_PUBLIC)
def test_a_target_at_a_non_public_address_is_blocked(text):
    with pytest.raises(BlockedTarget, match="--allow-private-webhooks") as raised:
        check(f"http://{url_host(text)}:8080/hook")
    assert f"The host {text!r} is not a public address" in str(raised.value)


@pytest.mark.parametrize("text", PUBLIC)
def test_a_target_at_a_public_address_is_that_address(text, monkeypatch):
    asked = answering(monkeypatch, lambda host: pytest.fail(f"looked up {host}"))
    assert check(f"https://{url_host(text)}/hook") == address(text)
    assert asked == []  # a literal address is never looked up


def test_a_name_resolving_to_public_addresses_is_checked_as_its_first(monkeypatch):
    asked = answering(monkeypatch, lambda host: ["93.184.216.34", "2606:2800:220:1::1"])
    assert check("https://hooks.example.com/x") == address("93.184.216.34")
    assert asked == ["hooks.example.com"]


def test_a_name_with_any_internal_address_is_blocked(monkeypatch):
    answering(monkeypatch, lambda host: ["93.184.216.34", "10.0.0.7"])
    with pytest.raises(BlockedTarget, match=r"'inside\.example\.com' is not a public address") as raised:
        check("https://inside.example.com/")
    assert "10.0.0.7" not in str(raised.value)  # what it resolves to is not told


def test_a_scoped_link_local_answer_is_blocked(monkeypatch):
    answering(monkeypatch, lambda host: ["fe80::1%eth0"])
    with pytest.raises(BlockedTarget, match=r"'printer\.local' is not a public address") as raised:
        check("http://printer.local/")
    assert "fe80" not in str(raised.value)


def test_a_name_without_addresses_is_blocked(monkeypatch):
    answering(monkeypatch, lambda host: [])
    with pytest.raises(BlockedTarget):
        check("http://nothing.example/")


def test_a_name_that_does_not_resolve_is_blocked_saying_so(monkeypatch):
    def fail(host: str) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    answering(monkeypatch, fail)
    with pytest.raises(
        BlockedTarget, match=r"'nowhere\.invalid' does not resolve \(Name or service not known\)"
    ):
        check("https://nowhere.invalid/")


def test_address_problem_is_the_reason_or_none(monkeypatch):
    answering(monkeypatch, lambda host: ["8.8.4.4"])
    assert asyncio.run(address_problem("https://dns.example/")) is None
    assert "not a public address" in (asyncio.run(address_problem("http://127.0.0.1/")) or "")


# --- pinning ------------------------------------------------------------------------------------

_labels = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=10)
hostnames = st.builds(lambda a, b: f"{a}.{b}", _labels, st.sampled_from(["com", "example", "io"]))
addresses = st.sampled_from(PUBLIC).map(address)


@PROPERTY
@given(
    st.sampled_from(["http", "https"]),
    hostnames,
    st.none() | st.integers(min_value=1, max_value=65535),
    st.sampled_from(["", "/", "/hooks/queuedesk", "/a%20b/c"]),
    st.sampled_from(["", "token=abc", "a=1&b=2"]),
    addresses,
)
def test_a_pinned_target_goes_to_the_address_and_names_the_host(scheme, host, port, path, query, checked):
    netloc = host if port is None else f"{host}:{port}"
    target = f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")
    route = pinned(target, checked)
    parts = urlsplit(route.url)
    assert parts.scheme == scheme
    assert ipaddress.ip_address(parts.hostname or "") == checked  # the connection goes where was checked
    assert parts.port == port
    assert parts.path == (path or "/")
    assert parts.query == query
    assert route.host_header == netloc  # the receiver sees the name it was given
    assert route.sni_hostname == (host if scheme == "https" else None)  # TLS checks the name's certificate


@pytest.mark.parametrize("target", ["http://93.184.216.34/hook", "https://[2606:4700:4700::1111]:8443/x?y=1"])
def test_a_target_at_an_address_is_left_as_it_is(target):
    assert pinned(target, address("8.8.8.8")) == Route(target)


def test_a_fragment_is_not_sent():
    assert pinned("https://hooks.example.com/x#part", address("1.1.1.1")).url == "https://1.1.1.1/x"


# --- what supervisors and the audit log see of a target ------------------------------------------

MASKED = [
    ("http://hook-user:hunter2@host/in", "http://hook-user:***@host/in"),
    ("https://tok3n@host/", "https://***@host/"),
    ("https://tok3n:@host/", "https://tok3n:***@host/"),
    ("https://host/in?token=tok3n", "https://host/in?token=***"),
    ("https://host/in?channel=ops&access_token=tok3n", "https://host/in?channel=***&access_token=***"),
    ("https://host/in?tok3n", "https://host/in?***"),
    ("https://host/in?a=1&&tok3n", "https://host/in?a=***&&***"),
    ("https://u:p@host:8443/in?sig=tok3n#tok3n", "https://u:***@host:8443/in?sig=***#***"),
    ("https://host/in", "https://host/in"),
    ("https://[2001:db8::1]:8443/in?k=tok3n", "https://[2001:db8::1]:8443/in?k=***"),
]


@pytest.mark.parametrize(("target", "shown"), MASKED)
def test_every_credential_a_url_can_carry_is_masked(target: str, shown: str) -> None:
    assert masked(target) == shown


# A secret begins with what no name, host or path here holds, so finding it means it leaked.
SECRET = st.text(string.ascii_letters + string.digits, min_size=6, max_size=24).map(lambda s: f"S3{s}")


@PROPERTY
@given(
    secret=SECRET,
    place=st.sampled_from(["user", "password", "query value", "bare query", "fragment"]),
    name=st.text(string.ascii_lowercase, min_size=1, max_size=8),
)
def test_a_credential_anywhere_but_the_host_and_path_never_shows(secret: str, place: str, name: str) -> None:
    target = {
        "user": f"https://{secret}@hooks.example.com/in",
        "password": f"https://{name}:{secret}@hooks.example.com/in",
        "query value": f"https://hooks.example.com/in?{name}={secret}",
        "bare query": f"https://hooks.example.com/in?x=1&{secret}",
        "fragment": f"https://hooks.example.com/in#{secret}",
    }[place]
    shown = masked(target)
    assert secret not in shown, (target, shown)
    assert urlsplit(shown).hostname == "hooks.example.com" and urlsplit(shown).path == "/in"
