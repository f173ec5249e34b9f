"""The work screen with keys typed in bursts, and ways out of it with input on the task: what the
server ends up holding. Against a real `queuedesk serve`; helpers from `test_work`."""

import httpx
import pytest
from textual import events

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.work import WorkScreen
from tests.conftest import make_queue
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import notes
from tests.tui.test_work import (
    CATEGORY,
    MESSAGE,
    NOTE,
    PAST_GRACE,
    SIZE,
    add_tasks,
    advance,
    completed,
    form_of,
    on_screen,
    shown_task,
    start_work,
    status,
    stored,
    task_on_server,
    work,
)


def burst(app: QueueDeskApp, *keys: str) -> None:
    """Keys as a fast typist (or a busy machine) delivers them: all in the app's queue at once, as
    the terminal driver posts them. (`pilot.press` waits for the app to be idle after each key.)"""
    characters = {"enter": "\r", "space": " "}
    for key in keys:
        app.post_message(events.Key(key, characters.get(key, key if len(key) == 1 else None)))


async def test_keys_typed_right_after_enter_never_change_the_task_it_sent(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    first, second, third = add_tasks(admin, org_id, queue, [{"message": m} for m in "abc"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        burst(app, "1", "enter", "2")  # one burst, no pause between the keys
        assert await shown_task(app, pilot, second) == second
        # The 2 was typed before task `second` was painted: not applied, and said so; or it came
        # after the paint and belongs to `second`. Never to `first`, and never silently dropped.
        if form_of(app).values() == {"category": None}:
            assert "“2” was not applied: no task was on screen yet." in status(app), status(app)
            await pilot.press("2")
        assert form_of(app).values() == {"category": "blue"}
        await pilot.press("enter")
        assert await shown_task(app, pilot) == third
        await advance(app, pilot, clock, PAST_GRACE)
    done = completed(admin, org_id, queue)
    assert {task_id: done[task_id]["data"]["category"] for task_id in done} == {first: "red", second: "blue"}


async def test_at_80_columns_a_refused_key_is_named_where_it_can_be_read(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """The typing fuzzer's short run at 80x24: the counts line ("… avg 0.9 s · 12 more in the
    queue") wrapped onto the status's second line, so the line naming a refused key was never on
    screen."""
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Customer messages to sort by team")
    ids = add_tasks(admin, org_id, queue, [{"message": m} for m in "abcdefghijklmnop"])
    app = make_app("worker")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == ids[0]
        for task_id in ids[1:3]:
            await pilot.press("1", "enter")
            assert await shown_task(app, pilot, task_id) == task_id
        clock.advance(90)  # a rate per hour joins the counts line
        await settle(app, pilot)
        work(app).rules.refusal = "“2” was not applied: no task was on screen yet."
        work(app).pane.show_status()
        await settle(app, pilot)
        screen = screen_text(app)
        assert "“2” was not applied" in screen, screen
        assert "/h" in status(app)  # the counts line is as long as it gets


async def test_a_task_given_back_with_a_draft_never_comes_back_to_the_screen(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    ids = add_tasks(admin, org_id, queue, [{"message": m} for m in "abcd"])
    # A claim held from before, as a restarted app (or a second window) leaves it.
    response = worker.post(f"/orgs/{org_id}/queues/{queue['id']}/tasks/next")
    assert response.status_code == 200, response.text
    held = response.json()["id"]
    app = make_app("worker")
    seen: list[int] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == held
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        await pilot.press("3", "ctrl+s")
        for digit in "12":
            seen.append(await shown_task(app, pilot))
            assert seen[-1] != held, f"task {held} was given back and came back: {seen}"
            await until(app, pilot, lambda: work(app).ahead or len(seen) == len(ids) - 1, "claimed ahead")
            assert held not in [t.id for t in work(app).ahead]
            await pilot.press(digit, "enter")
            last = seen[-1]
            await until(
                app, pilot, lambda last=last: getattr(work(app).current, "id", None) != last, "next task"
            )
        await advance(app, pilot, clock, PAST_GRACE)
    task = task_on_server(admin, org_id, queue, held)
    assert (task["status"], task["assignment"]["assigned_to"]) == ("open", None)
    assert task["data"]["category"] is None  # the draft is kept apart, the worker's own
    mine = worker.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks/{held}").json()
    assert mine["draft"] == {"category": "green"}
    done = completed(admin, org_id, queue)
    assert held not in done and len(done) == 2


@pytest.mark.parametrize("way_out", [("escape",), ("tab", "escape", "escape"), ("ctrl+q",)])
async def test_leaving_or_quitting_with_input_on_the_task_keeps_it_as_a_draft(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, way_out: tuple[str, ...]
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": m} for m in "ab"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        keys = ["2", *way_out]
        if way_out[0] == "tab":
            keys = ["2", "tab", *"took a while", *way_out[1:]]
        await pilot.press(*keys)
        await settle(app, pilot)
        if way_out != ("ctrl+q",):
            assert not isinstance(app.screen, WorkScreen)
            assert f"Task {first} given back with what you entered kept as a draft" in " ".join(notes(app))
    task = task_on_server(admin, org_id, queue, first)
    assert (task["status"], task["assignment"]["assigned_to"]) == ("open", None)
    note = "took a while" if way_out[0] == "tab" else None
    assert task["data"] == stored(blocks, message="a")  # the draft is kept apart, the worker's own
    mine = worker.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks/{first}").json()["draft"]
    assert (mine["category"], mine.get("note")) == ("blue", note)
    ahead = task_on_server(admin, org_id, queue, second)  # nothing entered there: given back as it was
    assert ahead["assignment"]["assigned_to"] is None and ahead["data"] == stored(blocks, message="b")


async def test_an_option_chosen_below_the_fold_is_scrolled_into_view(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    # Names that take two lines in the form's half of 80 columns: 24 rows show about 8 options.
    options = [{"id": f"o{n}", "name": f"Option number {n}, the kind of thing it is"} for n in range(1, 13)]
    pick = {"id": "pick", "name": "Pick one", "type": "single_selection"}
    pick["single_selection"] = {"is_required": True, "options": options}  # type: ignore[assignment]
    queue = make_queue(admin, org_id, [MESSAGE, pick, NOTE], label="Work")
    add_tasks(admin, org_id, queue, [{"message": "twelve"}])
    app = make_app("worker")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        assert "●" not in screen_text(app) and "Option number 12," not in screen_text(app), screen_text(app)
        await pilot.press("1", "2")
        await until(app, pilot, lambda: form_of(app).values()["pick"] == "o12", "option 12 is chosen")
        await until(app, pilot, lambda: "Option number 12," in screen_text(app), "option 12 is in view")
        assert "●" in screen_text(app), screen_text(app)


async def test_with_submit_on_choice_a_second_digit_in_a_burst_never_changes_the_task_sent(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    first, second, _third = add_tasks(admin, org_id, queue, [{"message": m} for m in "abc"])
    app = make_app("worker", submit_on_choice=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        burst(app, "1", "2")  # the 1 sends the task; the 2 must not change it
        assert await shown_task(app, pilot, second) == second
        await settle(app, pilot)
        if on_screen(app, second):
            assert form_of(app).values() == {"category": None}
            assert "“2” was not applied: no task was on screen yet." in status(app), status(app)
        await advance(app, pilot, clock, PAST_GRACE)
    done = completed(admin, org_id, queue)
    assert done[first]["data"]["category"] == "red"
