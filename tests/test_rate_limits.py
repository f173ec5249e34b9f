"""Rate limits against a real `queuedesk serve` over loopback: per key, on failed authentications per
address, the client address behind a trusted proxy, and the client honouring `Retry-After`.

The key limit is set small (`--rate-limit 5`: bursts of 10), and so is the failure limit
(`--auth-failure-limit 1`: bursts of 5), so that a loaded machine, slower than the refill of the
default (10 a second), cannot refill an address between two requests. Each test that guesses keys gives itself an address of its own through
X-Forwarded-For (loopback is a trusted proxy by default), so the tests do not share a bucket.
"""

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient, RetryPolicy, retry_after_seconds
from tests.support import KEYS, ROLES_SEED, ServerProcess, assert_envelope

KEY_RATE = 5
FAILURE_RATE = 1
FAILURE_BURST = 5 * FAILURE_RATE


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    flags = ["--rate-limit", str(KEY_RATE), "--auth-failure-limit", str(FAILURE_RATE)]
    server = ServerProcess(tmp_path_factory.mktemp("limited") / "qd.db", flags, seed=ROLES_SEED).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def untrusting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server that trusts no proxy on loopback (X-Forwarded-For from the tests is ignored), and
    limits no key."""
    flags = ["--forwarded-allow-ips", "192.0.2.1", "--rate-limit", "off"]
    flags += ["--auth-failure-limit", str(FAILURE_RATE)]
    server = ServerProcess(tmp_path_factory.mktemp("untrusting") / "qd.db", flags, seed=ROLES_SEED).start()
    yield server
    server.stop()


def _auth(role_or_key: str, address: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Token {KEYS.get(role_or_key, role_or_key)}"}
    if address is not None:
        headers["X-Forwarded-For"] = address
    return headers


def _guesses(client: httpx.Client, count: int, address: str | None) -> list[httpx.Response]:
    return [client.get("/me", headers=_auth(f"qd_guess{i:04d}", address)) for i in range(count)]


def _spend_failures(client: httpx.Client, address: str) -> None:
    """Guess from `address` until a guess is refused: its failures are used up at this moment."""
    for _ in range(FAILURE_BURST + 5):
        if _guesses(client, 1, address)[0].status_code == 429:
            return
    raise AssertionError(f"guesses from {address} were never refused")


def _first_refusal_of_a_new_key(client: httpx.Client, address: str) -> httpx.Response:
    """A valid key's first request from an address with no failures left is refused. A slow machine
    may refill a failure between the last guess and that request (the key is then admitted and
    remembered there), so each try takes another key never used from that address."""
    answer = None
    for role in ("worker", "worker2", "other_admin"):
        _spend_failures(client, address)
        answer = client.get("/me", headers=_auth(role, address))
        if answer.status_code == 429:
            assert "failed authentications" in answer.text, answer.text
            return answer
    raise AssertionError(f"no new key was refused from {address}: {answer}")


def _assert_rate_limited(response: httpx.Response) -> None:
    assert_envelope(response, 429, "rate_limited")
    retry_after = response.headers["retry-after"]
    assert retry_after.isdigit() and 1 <= int(retry_after) <= 60, retry_after


def test_a_burst_beyond_the_key_limit_is_429_while_another_key_gets_200(limited: ServerProcess) -> None:
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        answers = [client.get("/me", headers=_auth("supervisor")) for _ in range(4 * KEY_RATE)]
        other = client.get("/me", headers=_auth("worker2"))
        statuses = [a.status_code for a in answers]
        assert statuses[: 2 * KEY_RATE - 2].count(200) == 2 * KEY_RATE - 2, statuses
        assert 429 in statuses, statuses
        _assert_rate_limited(next(a for a in answers if a.status_code == 429))
        assert other.status_code == 200, other.text
        time.sleep(int(answers[-1].headers.get("retry-after", "1")))
        assert client.get("/me", headers=_auth("supervisor")).status_code == 200


def test_wrong_key_guesses_are_429_while_a_valid_key_from_that_address_still_works(
    limited: ServerProcess,
) -> None:
    address = "198.51.100.7"
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        assert client.get("/me", headers=_auth("admin", address)).status_code == 200
        started = time.monotonic()
        answers = _guesses(client, FAILURE_BURST + 10, address)
        refilled = FAILURE_RATE * (time.monotonic() - started)
        statuses = [a.status_code for a in answers]
        assert statuses[:FAILURE_BURST] == [401] * FAILURE_BURST, statuses
        assert set(statuses) == {401, 429}, statuses
        assert statuses.count(401) <= FAILURE_BURST + refilled + 1, (refilled, statuses)
        _assert_rate_limited(next(a for a in reversed(answers) if a.status_code == 429))
        # The key already used from there still works; another address is not affected.
        assert client.get("/me", headers=_auth("admin", address)).status_code == 200
        assert client.get("/me", headers=_auth("qd_elsewhere", "198.51.100.8")).status_code == 401
        # A valid key not yet seen from that address waits, like a guess, until the failures refill.
        refused = _first_refusal_of_a_new_key(client, address)
        _assert_rate_limited(refused)
        time.sleep(int(refused.headers["retry-after"]))
        assert client.get("/me", headers=refused.request.headers).status_code == 200


def test_forwarded_for_names_the_client_only_behind_a_trusted_proxy(
    limited: ServerProcess, untrusting: ServerProcess
) -> None:
    # Trusted (loopback, the default): each forwarded address has a bucket of its own.
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        assert _guesses(client, FAILURE_BURST + 10, "203.0.113.1")[-1].status_code == 429
        assert client.get("/me", headers=_auth("qd_guess", "203.0.113.2")).status_code == 401
    # Untrusted: the header is ignored, every guess counts against the peer itself.
    with httpx.Client(base_url=untrusting.url, timeout=10) as client:
        _spend_failures(client, "203.0.113.1")
        refused = client.get("/me", headers=_auth("qd_guess", "203.0.113.2"))
        _assert_rate_limited(refused)
        time.sleep(int(refused.headers["retry-after"]))  # the peer's failures refilled for the next test


def test_the_rate_limit_can_be_off(untrusting: ServerProcess) -> None:
    with httpx.Client(base_url=untrusting.url, timeout=10, headers=_auth("admin")) as client:
        assert {client.get("/me").status_code for _ in range(4 * KEY_RATE)} == {200}


async def test_the_client_waits_as_long_as_retry_after_says(limited: ServerProcess) -> None:
    retry = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
    async with QueueDeskClient(limited.url, KEYS["worker"], retry=retry) as client:
        with httpx.Client(base_url=limited.url, timeout=10) as raw:  # spend the key's burst
            statuses = [raw.get("/me", headers=_auth("worker")).status_code for _ in range(3 * KEY_RATE)]
            assert 429 in statuses, statuses
        started = time.monotonic()
        me = await client.me()
        waited = time.monotonic() - started
    assert me.email == "wes@acme.test"
    assert waited >= 0.8, waited  # the server's Retry-After (1 s), not the policy's 0.05 s backoff


def test_retry_after_as_seconds_or_an_http_date_capped() -> None:
    now = datetime(2026, 11, 23, 13, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("3", now) == 3
    assert retry_after_seconds("Mon, 23 Nov 2026 13:00:07 GMT", now) == 7
    assert retry_after_seconds("Mon, 23 Nov 2026 12:59:00 GMT", now) == 0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds("٣", now) is None
    assert RetryPolicy(max_retry_after=30).delay(0, "3600") == 30
    assert RetryPolicy().delay(0, "2") == 2


def test_guesses_from_many_addresses_of_one_ipv6_64_share_one_count(limited: ServerProcess) -> None:
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        answers = [
            client.get("/me", headers=_auth(f"qd_guess{i:04d}", f"2001:db8:77:1::{i + 1:x}"))
            for i in range(FAILURE_BURST + 10)
        ]
        statuses = [a.status_code for a in answers]
        assert 429 in statuses, statuses
        _assert_rate_limited(next(a for a in answers if a.status_code == 429))
        # The next /64 has a count of its own.
        assert client.get("/me", headers=_auth("qd_guess", "2001:db8:77:2::1")).status_code == 401


def test_a_users_many_keys_share_a_limit(limited: ServerProcess) -> None:
    """Keys minted for one user do not multiply what the user may send: round-robin over five of
    them, a 429 comes while no key has spent its own burst."""
    with httpx.Client(base_url=limited.url, timeout=10, headers=_auth("admin")) as admin:
        org = admin.get("/me").json()["organization_id"]
        user = admin.post(
            f"/orgs/{org}/users", json={"email": "many@acme.test", "name": "Many", "role": "worker"}
        )
        assert user.status_code == 200, user.text
        keys = [admin.post(f"/orgs/{org}/users/{user.json()['id']}/keys").json()["key"] for _ in range(5)]
    used = dict.fromkeys(keys, 0)
    with httpx.Client(base_url=limited.url, timeout=10) as client:
        for turn in range(10 * 2 * KEY_RATE):
            key = keys[turn % len(keys)]
            answer = client.get("/me", headers=_auth(key))
            if answer.status_code == 429:
                _assert_rate_limited(answer)
                assert "this user over all their API keys" in answer.text, answer.text
                assert max(used.values()) < 2 * KEY_RATE, used
                return
            used[key] += 1
    raise AssertionError(f"no request was refused: {used}")
