"""`/` on the Pending tab finds tasks by text in any of their values, in any case (B2's `q`), against
a real `queuedesk serve`; escape closes the field without leaving the queue."""

import httpx

from queuedesk.tui.screens.queue import QueueScreen
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import create, open_queue
from tests.tui.test_table_order import ids


async def test_slash_searches_the_pending_tasks_values_in_any_case(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Searched")
    plain = create(admin, org_id, queue, 4)
    (wanted,) = create(admin, org_id, queue, 1, paragraph="The Printer is on fire")
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await until(app, pilot, lambda: ids(screen.pending) == [*plain, wanted], "every pending task")
        await pilot.press("slash", *"PRINTER", "enter")
        await until(app, pilot, lambda: ids(screen.pending) == [wanted], "the task with the text")
        assert "Tasks with “PRINTER” in a value" in screen_text(app)
        await pilot.press("slash")
        assert app.focused is not None and app.focused.id == "pending-search", app.focused
        await pilot.press("escape")  # closes the field, the search stays, the queue stays open
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen) and ids(screen.pending) == [wanted]
        await pilot.press("slash", "ctrl+u", "enter")  # an empty search: every task again
        await until(app, pilot, lambda: ids(screen.pending) == [*plain, wanted], "every pending task again")
        assert "in a value" not in screen_text(app)
