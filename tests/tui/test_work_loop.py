"""The worker's loop, round 2 (issue 27): nothing a worker entered is lost or miscounted, against a
real `queuedesk serve`. Helpers from `test_work`."""

import httpx

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.work import WorkScreen
from tests.conftest import make_queue
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import notes
from tests.tui.test_work import (
    CATEGORY,
    MESSAGE,
    NOTE,
    SIZE,
    add_tasks,
    form_of,
    start_work,
    stored,
    task_on_server,
)


async def test_a_draft_kept_on_leaving_is_filled_in_again_when_its_author_claims_the_task(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "a"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == task_id
        await pilot.press("2", "tab", *"ask sue", "escape", "escape")
        await until(app, pilot, lambda: not isinstance(app.screen, WorkScreen), "the work screen is left")
        await settle(app, pilot)
        # Kept apart (B6): the task's data is as it was, for anyone else who claims it.
        assert task_on_server(admin, org_id, queue, task_id)["data"] == stored(blocks, message="a")
        assert await start_work(app, pilot, queue) == task_id
        assert form_of(app).values() == {"category": "blue", "note": "ask sue"}
        assert any(f"Your draft on task {task_id} is filled in again" in n for n in notes(app)), notes(app)
    assert task_on_server(admin, org_id, queue, task_id)["data"] == stored(blocks, message="a")
