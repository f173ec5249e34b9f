"""The whole task readable (issue 27): the task pane scrolls by keyboard, the queue's description
(its instructions) shows above the task, rendered, and folds. Against a real `queuedesk serve`."""

import httpx

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.widgets.instructions import Instructions
from tests.conftest import make_queue
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import footer_line, open_queue, shows
from tests.tui.test_work import CATEGORY, MESSAGE, add_tasks, form_of, start_work, work

DESCRIPTION = "## Before you tag\n\nCall **Sue** when the parcel *came late*.\n\n- one\n- two"
LONG = "\n".join(f"line {n} of the customer's story" for n in range(1, 201))


async def test_a_long_task_scrolls_by_keyboard_and_the_instructions_show_above_it_rendered(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    admin.patch(f"/orgs/{org_id}/queues/{queue['id']}", json={"description": DESCRIPTION}).raise_for_status()
    add_tasks(admin, org_id, queue, [{"message": LONG}])
    app = make_app("worker")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        await settle(app, pilot)
        # Folded on a small terminal: one line says what they are and which key shows them.
        assert shows(app, "▶ Instructions (f2 shows them)"), screen_text(app)
        assert "Scroll task" in footer_line(app), footer_line(app)
        pane = form_of(app).task_pane()
        assert pane is not None and pane.scroll_y == 0
        assert not shows(app, "line 60 of the customer's story")
        await pilot.press("ctrl+down", "ctrl+down", "ctrl+down")
        await until(app, pilot, lambda: pane.scroll_y > 20, "the task pane scrolled down")
        assert not shows(app, "line 1 of the customer's story")
        await pilot.press("ctrl+up", "ctrl+up", "ctrl+up")
        await until(app, pilot, lambda: pane.scroll_y == 0, "the task pane scrolled back up")
        assert form_of(app).values() == {"category": None}  # the keys reached no field
        await pilot.press("f2")
        await settle(app, pilot)
        assert shows(app, "Before you tag") and shows(app, "Call Sue when the parcel came late"), screen_text(
            app
        )
        assert "**" not in screen_text(app) and "##" not in screen_text(app)
        await pilot.press("f2")
        await settle(app, pilot)
        assert not shows(app, "Before you tag")
        assert work(app).query_one(Instructions).expanded is False


async def test_the_queue_screen_shows_the_instructions_folded_and_i_unfolds_them(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    admin.patch(f"/orgs/{org_id}/queues/{queue['id']}", json={"description": DESCRIPTION}).raise_for_status()
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        await until(app, pilot, lambda: shows(app, "▶ Instructions (i shows them)"), "the folded line")
        await pilot.press("i")
        await until(app, pilot, lambda: shows(app, "Call Sue when the parcel came late"), "the instructions")
        assert shows(app, "▼ Instructions (i folds them)")
