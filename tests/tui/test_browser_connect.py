"""The app in a browser session connects only to the servers the operator allowed, and never shows
what another kind of server answered: whoever drives the page cannot read the serving machine's
internal addresses through the Connect screen."""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import KEYS, ServerProcess
from tests.tui.test_app import SIZE, connect_problem

SECRET = "ami-id: internal-9f8e7d"


class Internal:
    """A web server inside the serving machine's network: it answers every GET with a secret."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        internal = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                internal.asked.append(self.path)
                body = SECRET.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/latest/meta-data#"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()


@pytest.fixture
def internal() -> Iterator[Internal]:
    made = Internal()
    yield made
    made.stop()


@pytest.fixture
def browser_session(monkeypatch: pytest.MonkeyPatch, server: ServerProcess) -> None:
    monkeypatch.setenv("QUEUEDESK_WEB_SESSION", "1")
    monkeypatch.setenv("QUEUEDESK_WEB_ALLOWED_SERVERS", server.url)


async def test_an_address_not_allowed_is_never_asked(
    browser_session: None, internal: Internal, clock: ManualClock
) -> None:
    app = QueueDeskApp(Target(internal.url, KEYS["admin"], None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, "connects only to the servers its operator allows")
    assert "--allow-server" in said and SECRET not in said
    assert internal.asked == []


async def test_an_allowed_server_that_is_not_queuedesk_is_not_quoted(
    monkeypatch: pytest.MonkeyPatch, browser_session: None, internal: Internal, clock: ManualClock
) -> None:
    monkeypatch.setenv("QUEUEDESK_WEB_ALLOWED_SERVERS", internal.url)
    app = QueueDeskApp(Target(internal.url, KEYS["admin"], None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, "does not answer like a task queue server")
    assert "internal-9f8e7d" not in said and "ami-id" not in said, said


async def test_the_allowed_server_is_reached(
    browser_session: None, server: ServerProcess, clock: ManualClock
) -> None:
    from queuedesk.tui.screens.connect import ConnectScreen
    from tests.tui.test_app import until

    app = QueueDeskApp(Target(server.url, KEYS["admin"], None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(app, pilot, lambda: app.session is not None, "the session opens")
        assert not isinstance(app.screen, ConnectScreen)
