"""`queuedesk web` in a real browser: Debian's chromium, headless, driven by Playwright.

The terminal in the page draws on a canvas, so its text is read from xterm.js's buffer: the test
patches textual-serve's script to keep the terminal object on `window` (and asserts the patch
applied, so an upgrade that moves it fails here instead of passing blind). Web fonts cannot be
fetched here; that request is aborted.
"""

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.support import ADMIN_KEY, QUEUEDESK, DemoService, demo_environment, port_open, wait_until
from tests.support.browser import CHROMIUM
from tests.support.processes import free_port

TERMINAL_CREATED = "this.terminal=new v.Terminal("
KEEP_TERMINAL = "this.terminal=window.queuedeskTerminal=new v.Terminal("


@pytest.fixture
def web(tmp_path: Path) -> Iterator[str]:
    service = DemoService(tmp_path)
    port = free_port()
    command = [str(QUEUEDESK), "web", "--port", str(port), "--server-url", service.url]
    # The host's own connection is in the environment on purpose: the sessions must not get it.
    env = demo_environment(tmp_path, QUEUEDESK_TOKEN=ADMIN_KEY, QUEUEDESK_URL=service.url)
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: port_open(port), 30, "queuedesk web listening")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)
        service.stop()
    assert not list(tmp_path.glob("**/journal/*.json")), "a web session wrote a journal"
    assert not (tmp_path / "config.toml").exists() and not (tmp_path / "config").exists(), (
        "a web session saved a profile"
    )


def test_browser_signs_in_with_a_demo_key_and_sees_the_queues(web: str) -> None:
    from playwright.sync_api import Route, sync_playwright

    patched: list[bool] = []

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
            page.route("**/fonts.googleapis.com/**", lambda route: route.abort())
            page.route("**/static/js/textual.js", keep_terminal)
            page.goto(web)

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
        finally:
            browser.close()
