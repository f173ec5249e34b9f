"""`queuedesk web` in a real browser: Debian's chromium, headless, driven by Playwright.

The terminal in the page draws on a canvas, so its text is read from xterm.js's buffer: the test
patches textual-serve's script to keep the terminal object on `window` (and asserts the patch
applied, so an upgrade that moves it fails here instead of passing blind). Every request for
another host than `queuedesk web`'s own is aborted and recorded: the page must render without any.
"""

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.demo.support import ADMIN_KEY, DemoService
from tests.demo.web_support import WebProcess, start_web
from tests.support.browser import CHROMIUM

TERMINAL_CREATED = "this.terminal=new v.Terminal("
KEEP_TERMINAL = "this.terminal=window.queuedeskTerminal=new v.Terminal("


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebProcess]:
    service = DemoService(tmp_path)
    # The host's own connection is in the environment on purpose: the sessions must not get it.
    process = start_web(
        tmp_path, "--server-url", service.url, QUEUEDESK_TOKEN=ADMIN_KEY, QUEUEDESK_URL=service.url
    )
    try:
        yield process
    finally:
        process.stop()
        service.stop()
    assert not list(tmp_path.glob("**/journal/*.json")), "a web session wrote a journal"
    assert not (tmp_path / "config.toml").exists() and not (tmp_path / "config").exists(), (
        "a web session saved a profile"
    )


def test_browser_signs_in_with_a_demo_key_and_sees_the_queues(web: WebProcess) -> None:
    from playwright.sync_api import Route, sync_playwright

    patched: list[bool] = []
    outside: list[str] = []

    def only_its_own_server(route: Route) -> None:
        if urlsplit(route.request.url).netloc == urlsplit(web.origin).netloc:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    def keep_terminal(route: Route) -> None:
        response = route.fetch()
        script = response.text()
        patched.append(TERMINAL_CREATED in script)
        route.fulfill(response=response, body=script.replace(TERMINAL_CREATED, KEEP_TERMINAL))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.route("**/*", only_its_own_server)
            page.route("**/static/js/textual.js", keep_terminal)  # the later route is asked first
            page.goto(web.address)  # with this run's key, as `queuedesk web` printed it

            def screen() -> str:
                return page.evaluate(
                    """() => { const t = window.queuedeskTerminal; if (!t) return "";
                    const b = t.buffer.active; const lines = [];
                    for (let i = 0; i < b.length; i++) { lines.push(b.getLine(i).translateToString(true)); }
                    return lines.join("\\n"); }"""
                )

            def shows(text: str, timeout: float = 30) -> str:
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    now = screen()
                    if text in now:
                        return now
                    time.sleep(0.2)
                raise AssertionError(f"{text!r} never appeared in the browser; the screen:\n{screen()}")

            assert patched == [True], (
                "textual-serve's script changed: the test can no longer read the terminal"
            )
            connect = shows("Connect to a QueueDesk server")
            assert "web session" in connect and "nothing is saved" in connect
            assert "Save as profile" not in connect
            # No key of the host: the key field is empty, the address is the one offered.
            page.click("#terminal")  # the keyboard goes to the terminal once it has the focus
            page.wait_for_timeout(300)
            # One key at a time: typed at full speed under load (load 11), the key arrived wrong once.
            page.keyboard.type(ADMIN_KEY, delay=40)
            page.wait_for_timeout(300)
            page.keyboard.press("Enter")
            queues = shows("Photo moderation")
            for name in ("Support triage", "Receipt checks", "Alex Admin (admin)"):
                assert name in queues
            assert outside == [], "the page asked other hosts"
        finally:
            browser.close()


CROSS_ORIGIN_PAGE = """<!doctype html><script>
window.outcome = new Promise((resolve) => {
  const socket = new WebSocket("ws://127.0.0.1:%d/ws?width=80&height=24");
  socket.onopen = () => resolve("opened");
  socket.onerror = () => resolve("refused");
});
</script>"""


def test_a_cross_origin_page_cannot_open_a_session(web: WebProcess, tmp_path: Path) -> None:
    """A page on another origin, in a browser that has signed in to `queuedesk web`, tries its
    WebSocket: refused, and no app process starts."""
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    page_dir = tmp_path / "elsewhere"
    page_dir.mkdir()
    (page_dir / "index.html").write_text(CROSS_ORIGIN_PAGE % web.port)
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(page_dir))  # noqa: E731
    elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                context = browser.new_context()
                own = context.new_page()
                own.route("**/fonts.googleapis.com/**", lambda route: route.abort())
                # The page's own script would open a session of its own, some time after the
                # load: without it the page only signs in, and no process is expected at all.
                own.route("**/static/js/textual.js", lambda route: route.abort())
                own.goto(web.address)  # signed in: the browser holds the cookie
                own.close()
                assert web.app_processes() == []
                visitor = context.new_page()
                visitor.goto(f"http://localhost:{elsewhere.server_address[1]}/index.html")
                assert visitor.evaluate("window.outcome") == "refused"
                time.sleep(0.5)
                assert web.app_processes() == []
            finally:
                browser.close()
    finally:
        elsewhere.shutdown()
