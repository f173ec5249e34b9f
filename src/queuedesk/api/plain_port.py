"""Telling quickly that an https:// address points at a port that speaks plain HTTP.

A plain HTTP server (the original service behind gunicorn, a development server) reads a TLS
ClientHello as the start of a request line and waits for the rest: the handshake neither fails nor
ends, and without this the client waits for its connect time-out, retries, and blames slowness.
A TLS server answers a ClientHello at once, so a handshake that has had no answer for a few seconds
on a connection the server accepted is checked: a plain `HEAD /` on a second connection that gets
an `HTTP/` status line names the cause.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

TLS_STALL_SECONDS = 3.0  # a handshake without answer this long is looked into
PROBE_SECONDS = 3.0
# What OpenSSL says when the first bytes back are not TLS (an HTTP answer to the ClientHello).
NOT_TLS_WORDS = ("wrong version number", "record layer failure", "http request", "packet length too long")


class HandshakeWatch:
    """An httpcore `trace` callback that knows whether a request is inside its TLS handshake."""

    def __init__(self) -> None:
        self.in_handshake = False
        self.handshake_failed = False

    async def __call__(self, event: str, _info: dict[str, Any]) -> None:
        if event == "connection.start_tls.started":
            self.in_handshake = True
        elif event.startswith("connection.start_tls."):
            self.in_handshake = False
            self.handshake_failed = event.endswith(".failed")


def advice(url: httpx.URL) -> str:
    return (
        f"{url.host}:{url.port or 443} speaks plain HTTP, not TLS: the address probably should start "
        "with http://, not https://."
    )


def looks_like_plain_http(exc: BaseException) -> bool:
    """An SSL error whose words say the server answered the handshake with something that is not TLS."""
    text = str(exc).lower()
    return any(words in text for words in NOT_TLS_WORDS)


async def answers_plain_http(url: httpx.URL) -> bool:
    """True when a plain `HEAD /` to the URL's host and port gets an HTTP status line."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(url.host, url.port or 443), PROBE_SECONDS
        )
    except (OSError, TimeoutError):
        return False
    try:
        writer.write(f"HEAD / HTTP/1.0\r\nHost: {url.host}\r\n\r\n".encode())
        await writer.drain()
        first = await asyncio.wait_for(reader.read(5), PROBE_SECONDS)
    except (OSError, TimeoutError):
        return False
    finally:
        writer.close()
    return first == b"HTTP/"


async def send_watching(
    send: Callable[[HandshakeWatch], Awaitable[httpx.Response]], url: httpx.URL
) -> httpx.Response:
    """`send(watch)`'s answer; `PlainPort` as soon as a stalled handshake meets a plain HTTP port."""
    watch = HandshakeWatch()
    sending = asyncio.ensure_future(send(watch))
    try:
        while True:
            done, _ = await asyncio.wait({sending}, timeout=TLS_STALL_SECONDS)
            if done:
                return _result(sending, watch, url)
            if watch.in_handshake and await answers_plain_http(url):
                raise PlainPort(advice(url))
    finally:
        _let_go(sending)


def _let_go(sending: "asyncio.Future[httpx.Response]") -> None:
    """Nobody waits for the request any more (its port was named, or the caller was cancelled): it
    is cancelled, and how it ends is taken here, so that no "Task exception was never retrieved"
    traceback reaches the terminal (a one-worker port answers the probe only once the request
    has timed out, so the request may already have failed)."""
    if sending.done():
        _taken(sending)
        return
    sending.cancel()
    sending.add_done_callback(_taken)


def _taken(task: "asyncio.Future[httpx.Response]") -> None:
    if not task.cancelled():
        task.exception()


def _result(
    sending: "asyncio.Future[httpx.Response]", watch: HandshakeWatch, url: httpx.URL
) -> httpx.Response:
    try:
        return sending.result()
    except httpx.TimeoutException:
        if not watch.handshake_failed:
            raise
        raise PlainPort(
            f"{url.host}:{url.port or 443} accepted the connection but never answered the TLS "
            "handshake: it probably speaks plain HTTP, and the address should start with "
            "http://, not https://."
        ) from None


class PlainPort(Exception):
    """The https:// address is a plain HTTP port."""
