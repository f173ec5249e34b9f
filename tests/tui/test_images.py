"""ImageFetcher against a real local HTTP server made to fail; ImageView and ImageScreen in an app."""

import asyncio
import io
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import aclosing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PIL import Image
from textual.app import App, ComposeResult
from textual.widgets import Static

from queuedesk.tui.modals.image import ImageScreen
from queuedesk.tui.terminal import system_viewer
from queuedesk.tui.terminal.system_viewer import open_externally
from queuedesk.tui.widgets import image_view
from queuedesk.tui.widgets.image_view import ImageView
from queuedesk.tui.work import image_fetch
from queuedesk.tui.work.image_fetch import MAX_IMAGE_BYTES, ImageFetcher, ImageUnavailable


def png_bytes(size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


PNG = png_bytes()
TOO_LARGE = MAX_IMAGE_BYTES + 1024


class Handler(BaseHTTPRequestHandler):
    """Each path answers one way; every request is counted."""

    protocol_version = "HTTP/1.1"
    hits: ClassVar[Counter[str]] = Counter()
    release: ClassVar[threading.Event] = threading.Event()
    held: ClassVar[threading.Event] = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.hits[self.path] += 1
        route = getattr(self, "route_" + self.path.strip("/").replace(".", "_").replace("-", "_"), None)
        try:
            if route is None:
                self.send_error(404)
            else:
                route()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading, as it should for an image that is too large

    def answer(self, body: bytes, content_type: str, *, length: bool = True) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def route_good_png(self) -> None:
        self.answer(PNG, "image/png")

    def route_octet(self) -> None:
        self.answer(PNG, "application/octet-stream")

    def route_moved(self) -> None:
        self.send_response(302)
        self.send_header("Location", "/good.png")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_page_html(self) -> None:
        self.answer(b"<html><body>Not here</body></html>", "text/html; charset=utf-8")

    def route_declared_large(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(TOO_LARGE))
        self.end_headers()
        self.wfile.write(PNG)  # the client must refuse on the header alone

    def route_streamed_large(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        chunk = b"\0" * 65536
        for _ in range(TOO_LARGE // len(chunk) + 1):
            self.wfile.write(chunk)

    def route_silent(self) -> None:
        self.release.wait(30)  # never answers (until the test ends)

    def route_flaky_png(self) -> None:
        if self.hits[self.path] == 1:  # the host had a moment's trouble; asked again, it answers
            self.send_error(503)
        else:
            self.answer(PNG, "image/png")

    def route_held_png(self) -> None:
        self.held.wait(30)  # answers once the test lets it
        self.answer(PNG, "image/png")


@pytest.fixture(scope="module")
def image_server() -> Iterator[str]:
    Handler.release.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    Handler.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _fresh_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    Handler.hits.clear()
    monkeypatch.setenv("QUEUEDESK_IMAGE_RENDERER", "halfcell")


async def reason(fetcher: ImageFetcher, url: str) -> str:
    with pytest.raises(ImageUnavailable) as caught:
        await fetcher.fetch(url)
    assert str(caught.value) == caught.value.reason
    return caught.value.reason


# --- the fetcher ---------------------------------------------------------------------------------


async def test_a_good_image_is_fetched_once_and_then_served_from_the_cache(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        url = f"{image_server}/good.png"
        assert await fetcher.fetch(url) == PNG
        assert await fetcher.fetch(url) == PNG
        assert Handler.hits["/good.png"] == 1
        picture = await fetcher.picture(url)
        assert picture.size == (40, 30)
        assert Handler.hits["/good.png"] == 1
        fetcher.forget(url)
        await fetcher.fetch(url)
        assert Handler.hits["/good.png"] == 2


async def test_the_content_decides_not_the_content_type_and_redirects_are_followed(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        assert await fetcher.fetch(f"{image_server}/octet") == PNG
        assert await fetcher.fetch(f"{image_server}/moved") == PNG


async def test_failures_say_why_and_are_remembered(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        assert await reason(fetcher, f"{image_server}/missing.png") == "HTTP 404"
        assert await reason(fetcher, f"{image_server}/missing.png") == "HTTP 404"
        assert Handler.hits["/missing.png"] == 1  # a bad image is not asked for again
        assert await reason(fetcher, f"{image_server}/page.html") == "not an image (text/html)"
        known = fetcher.cached(f"{image_server}/page.html")
        assert isinstance(known, ImageUnavailable) and known.reason == "not an image (text/html)"


async def test_larger_than_10_mib_is_refused_on_the_header_and_while_streaming(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        assert await reason(fetcher, f"{image_server}/declared-large") == "larger than 10 MiB"
        assert await reason(fetcher, f"{image_server}/streamed-large") == "larger than 10 MiB"


async def test_a_server_that_never_answers_times_out(image_server: str) -> None:
    async with aclosing(ImageFetcher(timeout=0.3)) as fetcher:
        started = time.monotonic()
        assert await reason(fetcher, f"{image_server}/silent") == "no answer within 0.3 s"
        assert (
            time.monotonic() - started < 10
        )  # the 0.3 s given, not the default 10 s (a loaded machine is slow)


async def test_the_default_limits_are_10_mib_and_10_s() -> None:
    fetcher = ImageFetcher()
    assert (fetcher.max_bytes, fetcher.timeout) == (10 * 1024 * 1024, 10.0)
    assert image_fetch._seconds_text(fetcher.timeout) == "10 s"


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/a.png", "file:///etc/passwd", "javascript:alert(1)", "/relative.png", ""],
)
async def test_only_http_and_https_addresses(url: str) -> None:
    fetcher = ImageFetcher()
    assert await reason(fetcher, url) == "only http and https addresses"


async def test_nobody_listening_is_said(image_server: str) -> None:
    async with aclosing(ImageFetcher(timeout=2)) as fetcher:
        text = await reason(fetcher, "http://127.0.0.1:9/x.png")
        assert text == "could not connect to 127.0.0.1:9"


async def test_prefetch_warms_the_cache_and_shares_one_request(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        url = f"{image_server}/good.png"
        fetcher.prefetch(url)
        fetcher.prefetch(url)
        results = await asyncio.gather(fetcher.fetch(url), fetcher.fetch(url))
        assert results == [PNG, PNG]
        assert Handler.hits["/good.png"] == 1
        bad = f"{image_server}/page.html"
        fetcher.prefetch(bad)
        for _ in range(100):
            if fetcher.cached(bad) is not None:
                break
            await asyncio.sleep(0.02)
        assert isinstance(fetcher.cached(bad), ImageUnavailable)


# --- the view and the full screen ----------------------------------------------------------------


class ViewApp(App[None]):
    def __init__(self, url: str | None, fetcher: ImageFetcher) -> None:
        super().__init__()
        self.url = url
        self.image_fetcher = fetcher

    def compose(self) -> ComposeResult:
        yield ImageView(self.url)


def note(view: ImageView) -> str:
    return str(view.query_one(".image-note", Static).render())


async def test_image_view_shows_the_reason_it_cannot_show_an_image(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        app = ViewApp(f"{image_server}/page.html", fetcher)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            view = app.query_one(ImageView)
            assert view.state == "unavailable"
            assert view.reason == "not an image (text/html)"
            assert note(view) == "Image not shown: not an image (text/html) (z, then r, tries again)"
            assert str(view.query_one(".image-caption", Static).render()) == f"{image_server}/page.html"
            view.show(f"{image_server}/good.png")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert view.state == "shown"
            assert type(view.query_one(".image-picture")).__name__ == "HalfcellImage"
            assert not view.query_one(".image-note").display


async def test_a_prefetched_image_is_there_on_the_first_paint(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        url = f"{image_server}/good.png"
        fetcher.prefetch(url)
        await fetcher.fetch(url)
        app = ViewApp(url, fetcher)
        async with app.run_test(size=(80, 24)):
            view = app.query_one(ImageView)
            assert view.state == "shown"
            assert len(app.workers) == 0  # nothing left to fetch or decode
            assert view.query_one(".image-picture").size.height == 12


async def test_image_view_shows_loading_while_the_server_thinks(image_server: str) -> None:
    # The server answers when the test lets it, not after a time: under load the app's own start
    # outlasted a 0.5 s and then a 2 s timeout, and the view had given up before the test looked.
    Handler.held.clear()
    async with aclosing(ImageFetcher()) as fetcher:
        app = ViewApp(f"{image_server}/held.png", fetcher)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            view = app.query_one(ImageView)
            assert view.state == "loading"
            assert note(view) == "Loading image…"
            Handler.held.set()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert view.state == "shown", view.reason


async def test_image_screen_opens_full_screen_and_escape_closes_it(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        app = ViewApp(None, fetcher)
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.query_one(ImageView).state == "empty"
            await app.push_screen(ImageScreen(f"{image_server}/good.png"))
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, ImageScreen)
            picture = app.screen.query_one(".image-picture")
            assert picture.size.height > 12  # larger than in the task pane
            await pilot.press("escape")
            assert not isinstance(app.screen, ImageScreen)


def test_open_externally_starts_the_viewer_without_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[list[str], dict[str, Any]]] = []

    class FakePopen:
        def __init__(self, args: list[str], **kwargs: Any) -> None:
            started.append((args, kwargs))

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(system_viewer.sys, "platform", "linux")
    monkeypatch.setattr(system_viewer.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(system_viewer.subprocess, "Popen", FakePopen)
    open_externally("https://example.com/p.png")
    assert started[0][0] == ["/usr/bin/xdg-open", "https://example.com/p.png"]
    assert started[0][1]["start_new_session"] is True  # never tied to the app's terminal
    with pytest.raises(ImageUnavailable, match="only http and https"):
        open_externally("file:///etc/passwd")
    monkeypatch.setattr(system_viewer.shutil, "which", lambda name: None)
    with pytest.raises(ImageUnavailable, match="no system viewer"):
        open_externally("https://example.com/p.png")
    assert len(started) == 1


def test_the_viewer_is_waited_for_and_leaves_no_zombie(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    viewer = tmp_path / "xdg-open"
    viewer.write_text("#!/bin/sh\nexit 0\n")
    viewer.chmod(0o755)
    monkeypatch.setattr(system_viewer.sys, "platform", "linux")
    monkeypatch.setenv("PATH", str(tmp_path))
    process = open_externally("https://example.com/p.png")
    assert process is not None
    deadline = time.monotonic() + 10
    while process.returncode is None and time.monotonic() < deadline:  # set by the reaping thread
        time.sleep(0.02)
    assert process.returncode == 0
    with pytest.raises(ChildProcessError):  # reaped: nothing left to wait for
        os.waitpid(process.pid, os.WNOHANG)


async def test_r_in_the_full_view_tries_a_failed_picture_again(image_server: str) -> None:
    async with aclosing(ImageFetcher()) as fetcher:
        url = f"{image_server}/flaky.png"
        app = ViewApp(url, fetcher)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            pane = app.query_one(ImageView)
            assert pane.state == "unavailable" and pane.reason == "HTTP 503"
            app.push_screen(ImageScreen(url, fetcher=fetcher), lambda _: pane.refresh_from_cache())
            await pilot.pause()
            full = app.screen.query_one(ImageView)
            assert full.state == "unavailable" and "(r tries again)" in note(full)  # remembered, not asked
            await pilot.press("r")
            await app.screen.workers.wait_for_complete()
            await pilot.pause()
            assert full.state == "shown"
            await pilot.press("escape")
            await pilot.pause()
            assert pane.state == "shown"  # the picture fetched there is shown here too
        assert Handler.hits["/flaky.png"] == 2


def test_the_renderer_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert image_view.image_widget_class("halfcell").__name__ == "HalfcellImage"
    assert image_view.image_widget_class("auto") is image_view.image_widgets.Image
    # Imported inside a running app the terminal was not asked: half cells, which work everywhere.
    monkeypatch.setattr(image_view, "TERMINAL_ASKED", False)
    assert image_view.image_widget_class("auto").__name__ == "HalfcellImage"


def test_fit_cells_keeps_the_proportions() -> None:
    cell = image_view.get_cell_size()
    # 40 x 10 cells of picture grow to the 12 rows allowed, keeping 4:1.
    assert image_view.fit_cells((cell.width * 40, cell.height * 10), columns=100, rows=12) == (48, 12)
    assert image_view.fit_cells((4000, 100), columns=30, rows=12) == (30, 1)  # wide: limited by columns
    assert image_view.fit_cells((100, 4000), columns=30, rows=12)[1] == 12  # tall: limited by rows


def test_a_browser_session_launches_nothing_on_the_host(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`o` in `queuedesk web` would run the viewer on the host for whoever drives the page: a real
    `xdg-open` on the PATH that leaves a mark when run is never run."""
    mark = tmp_path / "ran"
    viewer = tmp_path / "bin" / "xdg-open"
    viewer.parent.mkdir()
    viewer.write_text(f"#!/bin/sh\ntouch {mark}\n")
    viewer.chmod(0o755)
    monkeypatch.setenv("PATH", f"{viewer.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("QUEUEDESK_WEB_SESSION", "1")
    with pytest.raises(ImageUnavailable, match="off in the browser mode"):
        open_externally("https://example.com/p.png")
    time.sleep(0.5)
    assert not mark.exists()


async def test_a_browser_session_fetches_no_image_from_an_internal_address(
    image_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In `queuedesk web` the serving machine fetches for whoever drives the page: an image at a
    loopback or private address is refused by the webhooks' guard, and nothing is asked of it."""
    monkeypatch.setenv("QUEUEDESK_WEB_SESSION", "1")
    port = image_server.rsplit(":", 1)[1]
    async with aclosing(ImageFetcher()) as fetcher:
        for url in (f"{image_server}/good.png", f"http://localhost:{port}/good.png", "http://10.0.0.1/p.png"):
            assert "not a public address" in await reason(fetcher, url)
    assert Handler.hits["/good.png"] == 0


async def test_a_browser_session_fetches_from_an_image_server_the_operator_named(
    image_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's pictures are on loopback: `queuedesk demo --web` names their server, and only it."""
    monkeypatch.setenv("QUEUEDESK_WEB_SESSION", "1")
    monkeypatch.setenv("QUEUEDESK_WEB_IMAGE_ORIGINS", image_server)
    async with aclosing(ImageFetcher()) as fetcher:
        assert await fetcher.fetch(f"{image_server}/good.png") == PNG
        assert "not a public address" in await reason(fetcher, "http://10.0.0.1/p.png")
