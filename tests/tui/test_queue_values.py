"""The Values column of the queue screen's lists follows the terminal's width, also after a resize."""

import httpx

from tests.conftest import make_queue
from tests.support.pilot import screen_text, settle
from tests.tui.conftest import MakeApp
from tests.tui.test_app import create, open_queue

LONG = "The printer on the third floor prints every page twice and then jams on the last one"


async def test_a_row_made_narrow_shows_its_whole_values_once_the_terminal_is_wider(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, name="Wide values")
    create(admin, org_id, queue, 1, paragraph=LONG)
    app = make_app("admin")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_queue(app, pilot, queue["id"])
        await settle(app, pilot)
        assert LONG[:9] in screen_text(app) and LONG not in screen_text(app)
        await pilot.resize_terminal(200, 40)
        await settle(app, pilot)
        assert LONG in screen_text(app), screen_text(app)
