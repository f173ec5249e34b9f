"""A history the server fails to give (a 500) says so where the count would be, and in the table,
after the notification is gone: never "0 tasks" (issue 40, finding 4). `r` reads it again."""

import re
from collections.abc import Iterator

import httpx
import pytest
from textual.widgets import Static

from tests.support import ServerProcess
from tests.support.faulty_http import FaultyHttp
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, create, open_queue, plain, show_tab


@pytest.fixture
def front(server: ServerProcess) -> Iterator[FaultyHttp]:
    made = FaultyHttp(server.url, r"/tasks/completed").start()
    yield made
    made.stop()


async def test_a_history_answered_with_500_says_it_was_not_read(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh, front: FaultyHttp
) -> None:
    queue = fresh("Failing history")
    create(admin, org_id, queue, n=2)
    complete(worker, org_id, queue)
    app = make_app("admin", url=front.url)
    async with app.run_test(size=(100, 30)) as pilot:  # no toasts: what stays on screen
        screen = await open_queue(app, pilot, queue["id"])
        await show_tab(app, pilot, "tab-completed")
        note = screen.query_one("#history-note", Static)
        await until(app, pilot, lambda: front.failed and not screen.history.busy, "the history failed")
        await until(app, pilot, lambda: "not read" in plain(note).lower(), "the note says it was not read")
        assert "0 tasks" not in plain(note), plain(note)
        assert "500" in plain(note) or "server error" in plain(note).lower(), plain(note)
        assert "r tries again" in screen_text(app), screen_text(app)

        front.failing = re.compile("^$")  # the server answers again
        await pilot.press("r")
        await until(app, pilot, lambda: plain(note).startswith("1 task"), "r reads the history again")
        assert "r tries again" not in screen_text(app)
