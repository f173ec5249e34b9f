"""The whole task readable (issue 27): the task pane scrolls by keyboard, the queue's description
(its instructions) shows above the task, rendered, and folds. Against a real `queuedesk serve`."""

import httpx
from textual.widgets import TextArea

from queuedesk.api.config import AppSettings, ConfigFile, load_config, save_config
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.keys import KeysScreen
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.widgets.instructions import Instructions
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import app_for, screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import footer_line, open_queue, shows
from tests.tui.test_work import (
    CATEGORY,
    MESSAGE,
    NOTE,
    PAST_GRACE,
    add_tasks,
    advance,
    completed,
    form_of,
    open_work,
    start_work,
    status,
    waiting_text,
    work,
)

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
        assert "^↓ Scro" in footer_line(app), footer_line(app)  # cut short at 80 columns
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


async def test_submit_on_choice_is_offered_where_it_applies_kept_for_the_next_start_and_f1_lists_field_keys(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    one_choice = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    two_fields = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    for queue in (one_choice, two_fields):
        add_tasks(admin, org_id, queue, [{"message": "a"}])
    app = make_app("worker")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await start_work(app, pilot, two_fields)
        await settle(app, pilot)
        assert "Submit on choice" not in footer_line(app), footer_line(app)  # two fields: no one key
        await pilot.press("f1")
        await until(app, pilot, lambda: isinstance(app.screen, KeysScreen), "the keys are listed")
        assert shows(app, "1\u20133 choose") and shows(app, "In the field Category"), screen_text(app)
        assert shows(app, "In the field Note"), screen_text(app)
        assert not shows(app, "Submit on choice"), screen_text(app)  # does not apply here
        await pilot.press("escape", "escape")
        await until(app, pilot, lambda: not isinstance(app.screen, (KeysScreen, WorkScreen)), "back")

        await start_work(app, pilot, one_choice)
        await settle(app, pilot)
        assert "Submit on choice" in footer_line(app), footer_line(app)
        await pilot.press("ctrl+t")
        await settle(app, pilot)
        assert "submit on choice" in status(app)
    assert load_config().app.submit_on_choice is True  # the next start has it on


async def test_the_next_start_reads_submit_on_choice_from_the_file(
    server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    add_tasks(admin, org_id, queue, [{"message": "a"}])
    save_config(ConfigFile(app=AppSettings(submit_on_choice=True)))
    app = app_for(server, "worker", **load_config().app.model_dump())
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        assert "submit on choice" in status(app)


async def test_free_text_takes_a_line_break_with_ctrl_n_and_enter_still_submits(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    first, _second = add_tasks(admin, org_id, queue, [{"message": m} for m in "ab"])
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("2", "tab", *"first")
        assert shows(app, "ctrl+n new line"), screen_text(app)
        await pilot.press("ctrl+n")
        await until(app, pilot, lambda: isinstance(app.focused, TextArea), "the field takes lines now")
        await pilot.press(*"second")
        assert form_of(app).values()["note"] == "first\nsecond"
        await pilot.press("ctrl+j")
        await until(app, pilot, lambda: "done 1" in status(app), "sent")
        await advance(app, pilot, clock, PAST_GRACE)
    assert completed(admin, org_id, queue)[first]["data"]["note"] == "first\nsecond"


async def test_rich_text_in_a_task_is_rendered_as_markdown(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    brief = {"id": "brief", "name": "Brief", "type": "rich_text"}
    queue = make_queue(admin, org_id, [brief, CATEGORY], label="Work")
    add_tasks(admin, org_id, queue, [{"brief": "## Refund\n\nThe parcel came **late** twice.\n\n- ask why"}])
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        await settle(app, pilot)
        assert shows(app, "Refund") and shows(app, "The parcel came late twice."), screen_text(app)
        assert "**" not in screen_text(app) and "##" not in screen_text(app), screen_text(app)


async def test_a_queue_with_bounding_boxes_is_refused_before_any_claim_with_the_reason(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    boxes = {"id": "boxes", "name": "Boxes", "type": "bounding_boxes"}
    queue = make_queue(admin, org_id, [MESSAGE, boxes], label="Work")
    (task_id,) = add_tasks(
        admin,
        org_id,
        queue,
        [{"message": "a", "boxes": {"image": "http://images.example/a.png", "boxes": []}}],
    )
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await open_work(app, pilot, queue)
        await until(app, pilot, lambda: waiting_text(app), "the screen says why")
        assert "needs another tool" in waiting_text(
            app
        ) and "Boxes (drawing boxes on the image)" in waiting_text(app)
        await settle(app, pilot)
        assert work(app).current is None
    task = admin.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks/{task_id}").json()
    assert task["assignment"]["assigned_to"] is None, task
