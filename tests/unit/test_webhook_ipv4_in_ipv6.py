"""The SSRF guard and IPv6 forms that carry an IPv4 address (`queuedesk.server.rules.webhook_targets`):
each form is judged by the IPv4 it carries as well as by itself, site-local and local-use NAT64 are
never public, and a pinned connection keeps the target's credentials.

No network beyond loopback: targets are literal addresses; the credentials test posts to a real
receiver on 127.0.0.1.
"""

import asyncio
import base64
import ipaddress

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.server.rules.webhook_targets import (
    BlockedTarget,
    carried_ipv4,
    checked_address,
    is_public,
    pinned,
)
from tests.receiver import Receiver
from tests.unit.strategies import PROPERTY

V4 = ipaddress.IPv4Address
V6 = ipaddress.IPv6Address


def ipv4_compatible(v4: V4) -> V6:
    return V6(int(v4))


def ipv4_mapped(v4: V4) -> V6:
    return V6((0xFFFF << 32) | int(v4))


def ipv4_translated(v4: V4) -> V6:
    return V6((0xFFFF << 48) | int(v4))


def nat64(v4: V4) -> V6:
    return V6((0x64FF9B << 96) | int(v4))


def six_to_four(v4: V4) -> V6:
    return V6((0x2002 << 112) | (int(v4) << 80) | 1)


def teredo(server: V4, client: V4) -> V6:
    return V6((0x2001_0000 << 96) | (int(server) << 64) | (int(client) ^ 0xFFFF_FFFF))


FORMS = {
    "compatible": ipv4_compatible,
    "mapped": ipv4_mapped,
    "translated": ipv4_translated,
    "nat64": nat64,
    "6to4": six_to_four,
}

# What was accepted before: the standard library calls these global.
FORMERLY_ACCEPTED = [
    "::7f00:1",  # IPv4-compatible 127.0.0.1
    "::127.0.0.1",
    "::a9fe:a9fe",  # IPv4-compatible 169.254.169.254, the cloud metadata service
    "::ffff:0:7f00:1",  # IPv4-translated 127.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 169.254.169.254
    "64:ff9b::7f00:1",
    "64:ff9b::a00:1",  # NAT64 10.0.0.1
    "64:ff9b:1::808:808",  # local-use NAT64: never public
    "64:ff9b:1:ffff::a9fe:a9fe",
    "fec0::1",  # site-local
    "feff:ffff::1",
]


@pytest.mark.parametrize("text", FORMERLY_ACCEPTED)
def test_ipv6_forms_around_internal_ipv4_and_site_local_are_not_public(text):
    assert not is_public(ipaddress.ip_address(text))


@pytest.mark.parametrize("text", FORMERLY_ACCEPTED)
def test_a_target_at_such_an_address_is_blocked(text):
    with pytest.raises(BlockedTarget, match=r"not a public address.*--allow-private-webhooks"):
        asyncio.run(checked_address(f"http://[{text}]:8080/hook"))


def test_the_refusal_does_not_name_the_ipv4_address_carried():
    with pytest.raises(BlockedTarget) as raised:
        asyncio.run(checked_address("http://[::7f00:1]/"))
    assert "127.0.0.1" not in str(raised.value)


@pytest.mark.parametrize(
    "text", ["64:ff9b::808:808", "::ffff:0:101:101", "2002:808:808::1", "::ffff:8.8.8.8"]
)
def test_a_form_carrying_a_public_ipv4_is_public(text):
    assert is_public(ipaddress.ip_address(text))


ipv4 = st.integers(min_value=0, max_value=2**32 - 1).map(V4)


@PROPERTY
@given(st.sampled_from(sorted(FORMS)), ipv4)
def test_every_form_carrying_an_ipv4_address_is_judged_as_that_address(form, v4):
    wrapped = FORMS[form](v4)
    assert carried_ipv4(wrapped) == [v4]
    assert is_public(wrapped) == is_public(v4)


@PROPERTY
@given(ipv4, ipv4)
def test_a_teredo_address_is_never_public(server, client):
    address = teredo(server, client)
    assert carried_ipv4(address) == [server, client]
    assert not is_public(address)


@PROPERTY
@given(st.sampled_from(["fec0::/10", "64:ff9b:1::/48"]), st.integers(min_value=0))
def test_no_site_local_or_local_use_nat64_address_is_public(network, offset):
    net = ipaddress.ip_network(network)
    assert not is_public(net[offset % net.num_addresses])


# --- credentials in a pinned target -------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "userinfo"),
    [
        ("https://hook:s3cret@hooks.example.com/x", "hook:s3cret"),
        ("http://hook@hooks.example.com:8080/x", "hook"),
        ("https://a%40b:p%3Aw@hooks.example.com/x?y=1", "a%40b:p%3Aw"),
    ],
)
def test_a_pinned_target_keeps_its_credentials(target, userinfo):
    route = pinned(target, ipaddress.ip_address("93.184.216.34"))
    assert route.url.startswith(target.split("://")[0] + f"://{userinfo}@93.184.216.34")
    assert route.host_header is not None and "@" not in route.host_header


def test_the_receiver_of_a_pinned_target_gets_the_credentials_as_basic_auth():
    receiver = Receiver().start()
    try:
        route = pinned(f"http://hook:s3cret@hooks.example.test:{receiver.port}/hook", V4("127.0.0.1"))
        assert route.host_header is not None
        response = httpx.post(route.url, content=b"{}", headers={"Host": route.host_header}, timeout=5)
        assert response.status_code == 200
    finally:
        receiver.stop()
    [received] = receiver.received
    assert received.headers["host"] == f"hooks.example.test:{receiver.port}"
    assert received.headers["authorization"] == "Basic " + base64.b64encode(b"hook:s3cret").decode()
