"""The token buckets behind the rate limits, on a clock the test moves."""

import pytest

from queuedesk.server.http.http_errors import ServiceError
from queuedesk.server.http.rate_limits import Buckets, RateLimits


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_its_burst_then_refills_at_its_rate() -> None:
    buckets = Buckets(rate=10, burst=50)
    assert [buckets.take("a", 0.0) for _ in range(50)] == [0.0] * 50
    assert buckets.take("a", 0.0) == pytest.approx(0.1)
    assert buckets.take("b", 0.0) == 0.0  # another key has its own bucket
    assert buckets.take("a", 0.1) == 0.0  # one token back after 1/rate seconds
    assert buckets.wait("a", 0.1) == pytest.approx(0.1)
    assert [buckets.take("a", 60.0) for _ in range(50)] == [0.0] * 50  # never more than the burst


def test_a_bucket_table_forgets_full_buckets_first_and_stays_bounded() -> None:
    buckets = Buckets(rate=1, burst=2, max_entries=10)
    for n in range(10):
        buckets.take(n, 0.0)
    buckets.take("late", 5.0)  # every earlier bucket is full again by then: all forgotten
    assert len(buckets._state) == 1
    for n in range(100):
        buckets.take(n, 5.0)
    assert len(buckets._state) <= 10


def _refusal(call: object) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()  # type: ignore[operator]
    return caught.value


def test_failures_lock_an_address_out_except_for_keys_already_good_there() -> None:
    clock = Clock()
    limits = RateLimits(per_key=None, clock=clock)
    limits.admit("10.0.0.1", "good")
    limits.settle("10.0.0.1", "good", user_id=1)
    for _ in range(50):
        limits.admit("10.0.0.1", "guess")
        limits.settle("10.0.0.1", "guess", user_id=None)
    refused = _refusal(lambda: limits.admit("10.0.0.1", "guess"))
    assert (refused.status, refused.problems[0].code, refused.headers["Retry-After"]) == (
        429,
        "rate_limited",
        "1",
    )
    limits.admit("10.0.0.1", "good")  # known from there: let through
    limits.admit("10.0.0.2", "guess")  # another address: its own count
    clock.now += 0.15
    limits.admit("10.0.0.1", "guess")  # a failure refilled


def test_a_key_over_its_rate_is_refused_with_the_seconds_to_wait() -> None:
    clock = Clock()
    limits = RateLimits(per_key=2, clock=clock)
    for _ in range(4):
        limits.settle("10.0.0.1", "k", user_id=1)
    refused = _refusal(lambda: limits.settle("10.0.0.1", "k", user_id=1))
    assert refused.status == 429 and refused.headers["Retry-After"] == "1"
    assert "at most 2 a second, bursts of 4" in refused.problems[0].message
    limits.settle("10.0.0.1", "other", user_id=2)
    clock.now += 0.5
    limits.settle("10.0.0.1", "k", user_id=1)


def test_the_failure_limit_per_address_is_a_setting_with_bursts_of_five_seconds() -> None:
    clock = Clock()
    limits = RateLimits(per_key=None, failures_per_address=2, clock=clock)
    for _ in range(10):
        limits.admit("10.0.0.1", "guess")
        limits.settle("10.0.0.1", "guess", user_id=None)
    refused = _refusal(lambda: limits.admit("10.0.0.1", "guess"))
    assert refused.headers["Retry-After"] == "1"
    clock.now += 0.5  # one failure back at 2 a second
    limits.admit("10.0.0.1", "guess")


def test_failures_are_counted_per_ipv6_64_and_per_ipv4_address() -> None:
    limits = RateLimits(per_key=None, failures_per_address=1, clock=Clock())
    for host in range(5):  # five addresses of one /64: one bucket
        limits.admit(f"2001:db8:1:2::{host + 1:x}", "guess")
        limits.settle(f"2001:db8:1:2::{host + 1:x}", "guess", user_id=None)
    _refusal(lambda: limits.admit("2001:db8:1:2:ffff::9", "guess"))
    limits.admit("2001:db8:1:3::1", "guess")  # the next /64: its own
    for _ in range(5):
        limits.settle("::ffff:10.0.0.9", "guess", user_id=None)
    _refusal(lambda: limits.admit("10.0.0.9", "guess"))  # IPv4-mapped: the IPv4 address's bucket
    limits.admit("10.0.0.10", "guess")


def test_a_users_keys_share_a_limit_above_one_keys() -> None:
    clock = Clock()
    limits = RateLimits(per_key=2, clock=clock)  # a key: bursts of 4; a user: 2x, bursts of 8
    for key in ("a", "b"):
        for _ in range(4):
            limits.settle("10.0.0.1", key, user_id=7)
    refused = _refusal(lambda: limits.settle("10.0.0.1", "c", user_id=7))
    assert "this user over all their API keys" in refused.problems[0].message
    limits.settle("10.0.0.1", "c", user_id=8)  # another user
