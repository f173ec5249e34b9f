"""The webhook dispatcher: one per server process, sending what the outbox holds.

It wakes at once when this process writes an event, and otherwise sleeps until the next delivery
falls due (or a few seconds, to pick up events other processes wrote). Due rows are claimed in a
transaction (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so two processes never send the same attempt;
a claim lapses after `CLAIM_HOLD`, so a process that dies mid-attempt leaves its rows to others.
"""

import asyncio
import contextlib
import functools
import logging
import os
import random
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import httpx
import orjson

from queuedesk import __version__
from queuedesk.api.timestamps import format_timestamp, utcnow
from queuedesk.server.jobs.signing import signature_header
from queuedesk.server.rules.webhook_targets import BlockedTarget, Route, checked_address, pinned
from queuedesk.server.store import deliveries
from queuedesk.server.store.database import Database

log = logging.getLogger("queuedesk.webhooks")

RETRY_DELAYS = (5, 300, 1800, 7200, 18000, 36000, 36000)  # seconds, after the first attempt
ATTEMPT_TIMEOUT = 15.0
CLAIM_HOLD = timedelta(seconds=60)
BATCH = 50
MAX_IN_FLIGHT = 200
# Attempts recorded at once: 200 answers arriving together each asked the database for a connection
# and a PostgreSQL pool of 15 ran out (its 10 s wait failed them, and the API's requests waited too).
RECORDS_AT_ONCE = 4
# Test pings (B16) have a small pool of their own, so that pings held by a slow receiver never
# hold up deliveries; a ping that finds the pool full waits PING_POOL_WAIT at most.
PING_CONNECTIONS = 8
PING_POOL_WAIT = 2.0
IDLE_POLL = 5.0
FAILURES_LOGGED_EVERY = 60.0  # seconds: attempts that fail are logged one a minute, with a count of the rest
REAP_EVERY = 10.0  # seconds between looks for rows claimed by processes of this host that died
JITTER = 0.1


def _http_error(exc: httpx.HTTPError) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def make_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _is_dead_owner(owner: str, me: str) -> bool:
    """A claim left by a process of this host that no longer runs."""
    host, _, rest = owner.partition(":")
    pid_text, _, _nonce = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit() or owner == me:
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return True  # an earlier life of this pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Dispatcher:
    def __init__(
        self,
        db: Database,
        *,
        allow_private: bool,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        attempt_timeout: float = ATTEMPT_TIMEOUT,
        on_attempt: Callable[[str], None] | None = None,
    ) -> None:
        self.db = db
        self.allow_private = allow_private
        self.retry_delays = retry_delays
        self.attempt_timeout = attempt_timeout
        self.owner = make_owner()
        self._wake = asyncio.Event()
        self._stopping = False
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._recording = asyncio.Semaphore(RECORDS_AT_ONCE)
        self._loop: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self._ping_client: httpx.AsyncClient | None = None
        self._last_reap = 0.0
        # Told what came of each attempt: delivered, failed (for good) or retried (the metrics).
        self._on_attempt = on_attempt
        self._failures_logged_at = -FAILURES_LOGGED_EVERY
        self._failures_unlogged = 0

    async def _reap(self) -> None:
        """Give back the rows of processes of this host that died; other hosts' lapse after CLAIM_HOLD."""
        self._last_reap = time.monotonic()
        owners = await self.db.read(deliveries.claim_owners)
        dead = [owner for owner in owners if _is_dead_owner(owner, self.owner)]
        if dead:
            released = await self.db.write(deliveries.release_claims_of_dead, dead)
            log.info("resuming %d delivery(ies) left by stopped processes", released)

    async def start(self) -> None:
        await self._reap()
        tls = httpx.create_ssl_context()  # one load of the CA bundle (≈40 ms) for both clients
        self._client = httpx.AsyncClient(
            verify=tls,
            timeout=httpx.Timeout(self.attempt_timeout),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=MAX_IN_FLIGHT, max_keepalive_connections=50),
            headers={"User-Agent": f"QueueDesk/{__version__}"},
        )
        self._ping_client = httpx.AsyncClient(
            verify=tls,
            timeout=httpx.Timeout(self.attempt_timeout, pool=PING_POOL_WAIT),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=PING_CONNECTIONS, max_keepalive_connections=0),
            headers={"User-Agent": f"QueueDesk/{__version__}"},
        )
        self._loop = asyncio.create_task(self._run(), name="queuedesk-dispatcher")

    def wake(self) -> None:
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._loop is not None and not self._loop.done() and not self._stopping

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    async def stop(self, within: float | None = None) -> None:
        """Let attempts in flight finish (each is bounded, and all of them by `within` seconds when
        given); what cannot finish stays pending, for the next process."""
        self._stopping = True
        self._wake.set()
        if self._loop is not None:
            await self._loop
        pending = list(self._in_flight.values())
        if pending:
            log.info("dispatcher: finishing %d delivery attempt(s) in flight", len(pending))
            wait = self.attempt_timeout + 1 if within is None else min(within, self.attempt_timeout + 1)
            _done, unfinished = await asyncio.wait(pending, timeout=wait)
            if unfinished:
                log.warning("dispatcher: %d attempt(s) cut short; they stay pending", len(unfinished))
            for task in unfinished:
                task.cancel()
            await asyncio.gather(*unfinished, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.db.write(deliveries.release_claims, self.owner)
        for client in (self._client, self._ping_client):
            if client is not None:
                await client.aclose()

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()
            try:
                if time.monotonic() - self._last_reap > REAP_EVERY:
                    await self._reap()
                claimed = await self._claim()
            except Exception:
                self._failed("could not read the webhook outbox; retrying shortly", exc_info=True)
                claimed = -1
            if claimed == BATCH:
                continue  # more may be due right now
            await self._sleep(await self._pause(claimed))

    async def _claim(self) -> int:
        room = MAX_IN_FLIGHT - len(self._in_flight)
        if room <= 0:
            return 0
        rows = await self.db.write(deliveries.claim_due, self.owner, utcnow(), CLAIM_HOLD, min(BATCH, room))
        for row in rows:
            task = asyncio.create_task(self._deliver(row), name=f"delivery-{row['id']}")
            self._in_flight[row["id"]] = task
            task.add_done_callback(functools.partial(self._forget, row["id"]))
        return len(rows)

    def _forget(self, delivery_id: int, _done: asyncio.Task[None]) -> None:
        self._in_flight.pop(delivery_id, None)

    async def _pause(self, claimed: int) -> float:
        if claimed < 0:
            return 1.0
        try:
            due = await self.db.read(deliveries.next_due)
        except Exception:
            return 1.0
        if due is None:
            return IDLE_POLL
        return min(IDLE_POLL, max(0.0, (due - utcnow()).total_seconds()) + 0.01)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)

    async def _route(self, target: str) -> Route:
        if self.allow_private:
            return Route(target)
        return pinned(target, await checked_address(target))

    async def _send(self, row: dict[str, Any]) -> int:
        assert self._client is not None
        payload = row["payload"].encode()
        return await self._post(self._client, row["target"], row["event_id"], payload, row["secrets"])

    async def _post(
        self, client: httpx.AsyncClient, target: str, event_id: str, body: bytes, secrets_in_use: list[str]
    ) -> int:
        route = await self._route(target)
        timestamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "webhook-id": event_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signature_header(secrets_in_use, event_id, timestamp, body),
        }
        if route.host_header is not None:
            headers["Host"] = route.host_header
        extensions = {"sni_hostname": route.sni_hostname} if route.sni_hostname else None
        request = client.build_request(
            "POST", route.url, content=body, headers=headers, extensions=extensions
        )
        response = await client.send(request, stream=True)
        await response.aclose()  # the receiver's body is of no interest
        return response.status_code

    async def ping(self, queue_id: int, target: str, secrets_in_use: list[str]) -> dict[str, Any]:
        """B16: one signed `ping` to `target` now, through the same checks and timeout as a delivery;
        nothing is recorded and nothing is retried."""
        body = orjson.dumps({"type": "ping", "queue_id": queue_id, "sent_at": format_timestamp(utcnow())})
        started = time.monotonic()
        status_code: int | None = None
        error: str | None = None
        assert self._ping_client is not None
        try:
            async with asyncio.timeout(self.attempt_timeout):
                status_code = await self._post(
                    self._ping_client, target, deliveries.new_event_id(), body, secrets_in_use
                )
        except TimeoutError:
            error = f"no answer within {self.attempt_timeout:g} s"
        except httpx.PoolTimeout:
            error = "the server is sending as many test pings as it allows; try again shortly"
        except BlockedTarget as exc:
            error = f"blocked: {exc}"
        except httpx.HTTPError as exc:
            error = _http_error(exc)
        if status_code is not None and not 200 <= status_code < 300:
            error = f"the receiver answered {status_code}"
        return {
            "status_code": status_code,
            "error": error,
            "duration_ms": int((time.monotonic() - started) * 1000),
        }

    async def _deliver(self, row: dict[str, Any]) -> None:
        attempted_at = utcnow()
        started = time.monotonic()
        status_code: int | None = None
        error: str | None = None
        try:
            async with asyncio.timeout(self.attempt_timeout):
                status_code = await self._send(row)
        except TimeoutError:
            error = f"no answer within {self.attempt_timeout:g} s"
        except BlockedTarget as exc:
            error = f"blocked: {exc}"
        except httpx.HTTPError as exc:
            error = _http_error(exc)
        except asyncio.CancelledError:
            # Shutdown cut the attempt short: the row stays pending, unsent as far as we know.
            await asyncio.shield(self.db.write(deliveries.release_claims, self.owner, [row["id"]]))
            raise
        duration_ms = int((time.monotonic() - started) * 1000)
        if status_code is not None and not 200 <= status_code < 300:
            error = f"the receiver answered {status_code}"
        outcome = self._outcome(row, status_code, utcnow())
        try:
            async with self._recording:
                await self.db.write(
                    deliveries.record_attempt,
                    row["id"],
                    self.owner,
                    attempted_at,
                    status_code,
                    error,
                    duration_ms,
                    outcome,
                )
        except Exception:
            log.exception("could not record the attempt of delivery %s; it will be retried", row["id"])
        status = outcome.get("status") or "retried"
        if self._on_attempt is not None:
            self._on_attempt(status)
        if status == "failed":
            log.warning("delivery %s to %s failed for good: %s", row["event_id"], row["target"], error)
        elif error is not None:
            self._failed(
                f"delivery {row['event_id']} to queue {row['queue_id']}'s webhook: {error}; retried later"
            )

    def _failed(self, message: str, *, exc_info: bool = False) -> None:
        """A failure that may repeat many times a second (a receiver down, the database away): one
        line a minute at most, saying how many were not logged meanwhile."""
        now = time.monotonic()
        if now - self._failures_logged_at < FAILURES_LOGGED_EVERY:
            self._failures_unlogged += 1
            return
        unlogged, self._failures_unlogged = self._failures_unlogged, 0
        self._failures_logged_at = now
        more = f" (and {unlogged} other failure(s) since the last line)" if unlogged else ""
        log.warning("%s%s", message, more, exc_info=exc_info)

    def _outcome(self, row: dict[str, Any], status_code: int | None, now: datetime) -> dict[str, Any]:
        return attempt_outcome(status_code, row["retry_step"], now, self.retry_delays)


def attempt_outcome(
    status_code: int | None, retry_step: int, now: datetime, retry_delays: Sequence[float]
) -> dict[str, Any]:
    """What an attempt makes of its delivery: delivered on a 2xx; failed for good on a 410 or once
    the retries are used up; else (no answer, or any other status) due again after the step's delay,
    stretched by up to JITTER."""
    if status_code is not None and 200 <= status_code < 300:
        return {"status": "delivered", "delivered_at": now, "next_attempt_at": None}
    if status_code == 410:
        return {"status": "failed", "next_attempt_at": None}
    if retry_step >= len(retry_delays):
        return {"status": "failed", "next_attempt_at": None}
    delay = retry_delays[retry_step] * random.uniform(1.0, 1.0 + JITTER)
    return {"next_attempt_at": now + timedelta(seconds=delay), "retry_step": retry_step + 1}
