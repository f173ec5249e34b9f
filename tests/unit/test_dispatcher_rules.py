"""The webhook dispatcher's rules (`queuedesk.server.jobs.dispatcher`): what an attempt's answer makes of a
delivery (delivered, retried after the schedule's delay, failed for good), which claims were left by
processes that died, and how a transport error is written in the log."""

import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.server.jobs.dispatcher import (
    JITTER,
    RETRY_DELAYS,
    Dispatcher,
    _http_error,
    _is_dead_owner,
    attempt_outcome,
    make_owner,
)
from queuedesk.server.store.deliveries import OUTCOME_KEYS
from tests.unit.strategies import PROPERTY

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
statuses = st.none() | st.integers(min_value=100, max_value=599)
steps = st.integers(min_value=0, max_value=len(RETRY_DELAYS) + 2)
schedules = st.lists(st.floats(min_value=0, max_value=86_400), min_size=0, max_size=8).map(tuple)


@PROPERTY
@given(statuses, steps, schedules)
def test_every_outcome_is_one_the_store_can_record(status, step, schedule):
    """`deliveries.record_attempt` takes only these keys, and always `next_attempt_at`."""
    outcome = attempt_outcome(status, step, NOW, schedule)
    assert set(outcome) <= OUTCOME_KEYS
    assert "next_attempt_at" in outcome
    assert (outcome["next_attempt_at"] is None) == ("status" in outcome)  # settled, or due again
    assert outcome.get("status") in (None, "delivered", "failed")


@PROPERTY
@given(st.integers(min_value=200, max_value=299), steps)
def test_a_2xx_is_delivered_whatever_came_before(status, step):
    assert attempt_outcome(status, step, NOW, RETRY_DELAYS) == {
        "status": "delivered",
        "delivered_at": NOW,
        "next_attempt_at": None,
    }


@PROPERTY
@given(steps)
def test_410_gone_fails_for_good_at_once(step):
    assert attempt_outcome(410, step, NOW, RETRY_DELAYS) == {"status": "failed", "next_attempt_at": None}


@PROPERTY
@given(
    statuses.filter(lambda s: s is None or (s != 410 and not 200 <= s < 300)),
    st.integers(min_value=0, max_value=len(RETRY_DELAYS) - 1),
)
def test_anything_else_is_retried_after_the_steps_delay_with_jitter(status, step):
    """No answer, a redirect (not followed), 4xx but 410, 5xx: due again, a step further on."""
    outcome = attempt_outcome(status, step, NOW, RETRY_DELAYS)
    assert set(outcome) == {"next_attempt_at", "retry_step"}  # no status: the delivery stays pending
    assert outcome["retry_step"] == step + 1
    delay = outcome["next_attempt_at"] - NOW
    assert (
        timedelta(seconds=RETRY_DELAYS[step]) <= delay <= timedelta(seconds=RETRY_DELAYS[step] * (1 + JITTER))
    )


@PROPERTY
@given(statuses.filter(lambda s: s is None or not 200 <= s < 300), st.integers(min_value=0, max_value=5))
def test_once_the_retries_are_used_up_it_fails(status, beyond):
    outcome = attempt_outcome(status, len(RETRY_DELAYS) + beyond, NOW, RETRY_DELAYS)
    assert outcome == {"status": "failed", "next_attempt_at": None}


def test_a_receiver_that_always_fails_gets_the_whole_schedule_then_gives_up():
    """1 attempt + one per delay, each due after its delay (in order, growing), then failed."""
    assert list(RETRY_DELAYS) == sorted(RETRY_DELAYS)  # a back-off: never sooner than the last wait
    step, now, waits, attempts = 0, NOW, [], 0
    while True:
        attempts += 1
        outcome = attempt_outcome(503, step, now, RETRY_DELAYS)
        if outcome["next_attempt_at"] is None:
            break
        waits.append((outcome["next_attempt_at"] - now).total_seconds())
        now, step = outcome["next_attempt_at"], outcome["retry_step"]
    assert outcome["status"] == "failed"
    assert attempts == len(RETRY_DELAYS) + 1
    assert all(d <= w <= d * (1 + JITTER) for w, d in zip(waits, RETRY_DELAYS, strict=True))


def test_a_dispatcher_uses_its_own_schedule():
    dispatcher = Dispatcher(None, allow_private=False, retry_delays=(1.0, 2.0))  # type: ignore[arg-type]
    assert dispatcher._outcome({"retry_step": 1}, None, NOW)["retry_step"] == 2
    assert dispatcher._outcome({"retry_step": 2}, 500, NOW) == {"status": "failed", "next_attempt_at": None}


# --- claims left by processes that died ---------------------------------------------------------


def finished_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_an_owner_names_this_host_and_process():
    host, pid, nonce = make_owner().split(":")
    assert (host, int(pid)) == (socket.gethostname(), os.getpid())
    assert len(nonce) == 8 and make_owner() != make_owner()


def test_dead_owners_are_processes_of_this_host_that_no_longer_run():
    me = make_owner()
    here = socket.gethostname()
    assert not _is_dead_owner(me, me)  # this dispatcher
    assert _is_dead_owner(f"{here}:{os.getpid()}:0badcafe", me)  # an earlier life of this pid
    assert not _is_dead_owner(f"{here}:{os.getppid()}:12345678", me)  # alive: the parent
    assert _is_dead_owner(f"{here}:{finished_pid()}:12345678", me)


@pytest.mark.parametrize(
    "owner", ["elsewhere.example:1:12345678", "", "no-colons", "{host}:pid:1", "{host}::"]
)
def test_owners_of_other_hosts_or_unreadable_are_left_alone(owner):
    assert not _is_dead_owner(owner.format(host=socket.gethostname()), make_owner())


# --- how a transport error is written -----------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "written"),
    [
        (
            httpx.ConnectError("All connection attempts failed"),
            "ConnectError: All connection attempts failed",
        ),
        (httpx.ReadTimeout(""), "ReadTimeout"),
        (httpx.RemoteProtocolError("Server disconnected"), "RemoteProtocolError: Server disconnected"),
    ],
)
def test_a_transport_error_is_its_type_and_message(exc, written):
    assert _http_error(exc) == written
