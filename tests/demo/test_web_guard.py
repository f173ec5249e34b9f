"""`queuedesk web`'s gate over real HTTP and WebSockets: no app process starts for another page's
origin or without this run's key (or the password), and at most --max-sessions run."""

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest

from tests.demo.web_support import WebProcess, start_web

EVIL = "http://evil.example"


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebProcess]:
    process = start_web(tmp_path, "--max-sessions", "1")
    yield process
    process.stop()


def _signed_in(web: WebProcess) -> httpx.Client:
    client = httpx.Client(base_url=web.origin, timeout=20)
    answer = client.get(web.address.removeprefix(web.origin))
    assert answer.status_code == 303 and answer.headers["location"] == "/", answer.text
    assert "queuedesk_web" in client.cookies
    return client


async def _websocket(web: WebProcess, origin: str, cookies: dict[str, str]) -> int:
    """The handshake's status: 101 when an app process was started for it."""
    async with aiohttp.ClientSession(cookies=cookies) as session:
        try:
            async with session.ws_connect(f"ws://127.0.0.1:{web.port}/ws", headers={"Origin": origin}) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status


def test_the_page_needs_this_runs_key(web: WebProcess) -> None:
    assert "?key=" in web.address
    with httpx.Client(base_url=web.origin, timeout=20) as anonymous:
        refused = anonymous.get("/")
        assert refused.status_code == 401 and "printed" in refused.text
        assert anonymous.get("/?key=not-the-key").status_code == 401
    client = _signed_in(web)
    page = client.get("/")
    assert page.status_code == 200 and "/ws" in page.text
    client.close()


def test_a_websocket_from_another_origin_or_without_the_key_starts_nothing(web: WebProcess) -> None:
    client = _signed_in(web)
    cookies = dict(client.cookies)
    client.close()
    assert asyncio.run(_websocket(web, EVIL, cookies)) == 403
    assert asyncio.run(_websocket(web, web.origin, {})) == 403
    assert asyncio.run(_websocket(web, "null", cookies)) == 403
    assert web.app_processes() == []


def test_sessions_are_capped_with_a_clear_page(web: WebProcess) -> None:
    client = _signed_in(web)
    cookies = dict(client.cookies)
    try:

        async def hold_one_and_try_another() -> tuple[int, int, int]:
            async with aiohttp.ClientSession(cookies=cookies) as session:
                url = f"ws://127.0.0.1:{web.port}/ws"
                async with session.ws_connect(url, headers={"Origin": web.origin}):
                    deadline = time.monotonic() + 30
                    while not web.app_processes() and time.monotonic() < deadline:
                        await asyncio.sleep(0.1)
                    page = await asyncio.to_thread(client.get, "/")
                    second = await _websocket(web, web.origin, cookies)
                    return len(web.app_processes()), page.status_code, second

        running, page_status, second = asyncio.run(hold_one_and_try_another())
        assert running == 1
        assert page_status == 503
        assert second == 503
        deadline = time.monotonic() + 30  # the session ended: room again
        while client.get("/").status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.get("/").status_code == 200
    finally:
        client.close()


def test_a_password_instead_of_the_key(tmp_path: Path) -> None:
    web = start_web(tmp_path, "--password", "open sesame")
    try:
        assert "?key=" not in web.address
        with httpx.Client(base_url=web.origin, timeout=20) as client:
            form = client.get("/")
            assert form.status_code == 401 and 'type="password"' in form.text
            wrong = client.post("/sign-in", data={"password": "guess"}, headers={"Origin": web.origin})
            assert wrong.status_code == 401
            elsewhere = client.post("/sign-in", data={"password": "open sesame"}, headers={"Origin": EVIL})
            assert elsewhere.status_code == 403 and "queuedesk_web" not in client.cookies
            right = client.post("/sign-in", data={"password": "open sesame"}, headers={"Origin": web.origin})
            assert right.status_code == 303
            assert client.get("/").status_code == 200
    finally:
        web.stop()


def test_password_guesses_are_limited_and_the_cookie_is_never_the_password(tmp_path: Path) -> None:
    """Issue 43, finding 8: guesses were unlimited (486 to 999 a second) and the cookie was the password.
    After 5 wrong guesses the client must wait, and meanwhile even the right password is refused
    unchecked (429 with Retry-After); the cookie is a random token that alone signs in, and the
    password as a cookie signs in nothing."""
    password = "open sesame 42"
    web = start_web(tmp_path, "--password", password)
    try:
        with httpx.Client(base_url=web.origin, timeout=20) as client:
            origin = {"Origin": web.origin}
            # A guess that is not ASCII is a wrong guess, never a server error.
            wrong = [
                client.post("/sign-in", data={"password": f"guess ✓{n}"}, headers=origin) for n in range(5)
            ]
            assert [answer.status_code for answer in wrong] == [401] * 5
            limited = client.post("/sign-in", data={"password": "guess 6"}, headers=origin)
            assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
            held = client.post("/sign-in", data={"password": password}, headers=origin)
            assert held.status_code == 429 and "queuedesk_web" not in client.cookies
            assert client.get("/", params={"key": "a guess"}).status_code == 429
        forged = {"queuedesk_web": password}
        with httpx.Client(base_url=web.origin, timeout=20, cookies=forged) as visitor:
            assert visitor.get("/").status_code == 401
            assert asyncio.run(_websocket(web, web.origin, forged)) == 403
        # The operator's own browser, through a reverse proxy on this machine, is another client.
        (tmp_path / "behind").mkdir()
        behind = start_web(tmp_path / "behind", "--password", password, "--public-url", "http://q.example")
        try:
            with httpx.Client(base_url=behind.origin, timeout=20) as proxied:
                guessing = {"Origin": "http://q.example", "X-Forwarded-For": "203.0.113.9"}
                for n in range(6):
                    proxied.post("/sign-in", data={"password": f"guess {n}"}, headers=guessing)
                mine = {"Origin": "http://q.example", "X-Forwarded-For": "198.51.100.7"}
                signed = proxied.post("/sign-in", data={"password": password}, headers=mine)
                assert signed.status_code == 303, signed.text
                token = signed.cookies["queuedesk_web"]
                assert password not in token and len(token) >= 40
        finally:
            behind.stop()
    finally:
        web.stop()
