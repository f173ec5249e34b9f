"""A key typed once what it acts on is painted is never dropped nor misapplied (issue 25), also in a
burst: the queue list's filter typed right after `/`, and the keys after the filter's `enter`.
Against the suite's real server."""

import httpx
from textual.widgets import Input

from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.queues import QueuesScreen
from tests.conftest import make_queue
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home
from tests.tui.test_key_bursts import burst
from tests.tui.test_work import SIZE


async def test_the_letters_typed_right_after_slash_are_the_queue_lists_filter(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, label="Filtered")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        burst(app, "/" + queue["name"])
        await settle(app, pilot)
        assert screen.query_one("#queues-filter", Input).value == queue["name"]
        assert list(screen.table.rows) == [str(queue["id"])]


async def test_enter_after_the_filter_in_one_burst_opens_the_queue_filtered_to(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    make_queue(admin, org_id, label="Before")  # listed first while the filter is not applied yet
    queue = make_queue(admin, org_id, label="Filtered")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        assert isinstance(screen, QueuesScreen)
        burst(app, "/" + queue["name"], "enter", "enter")  # the filter kept, then the queue opened
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "a queue opens")
        opened = app.screen
        assert isinstance(opened, QueueScreen) and opened.queue.id == queue["id"], opened.queue.name
