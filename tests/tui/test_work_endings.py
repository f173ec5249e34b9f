"""How the worker's loop ends when the worker did not end it (issue 42, findings 4, 7, 8): what was
typed on a task that leaves unsubmitted is kept (the task's draft on the server where it can be, else
the local journal) and the worker is told where; the claims go back, or their leases run out, as
`docs/work-endings.md` says. Against a real `queuedesk serve`; helpers from `test_work`."""

import time
from datetime import UTC, datetime

import httpx
import pytest

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.work.work_session import HELD_CHECK_SECONDS
from tests.conftest import make_queue
from tests.support import Organization
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_access_changes import user_id
from tests.tui.test_app import notes
from tests.tui.test_work import (  # noqa: F401  (start_server is a fixture)
    CATEGORY,
    MESSAGE,
    NOTE,
    PAST_GRACE,
    SIZE,
    StartServer,
    add_tasks,
    advance,
    form_of,
    journal_entries,
    org_of,
    qpath,
    restarted_app,
    shown_task,
    start_server,
    start_work,
    task_on_server,
    waiting_text,
    work,
)

KEPT_HERE = "kept on this computer"


def kept_entries(task_id: int) -> list[dict]:
    return [e for e in journal_entries() if e["task_id"] == task_id and e["extra"].get("kept")]


def drafts_of(client: httpx.Client, org: int, queue: dict, count: int) -> dict[int, object]:
    """The drafts `client`'s user kept (B6) on the `count` tasks it claims next, by task; given back."""
    path = f"{qpath(org, queue)}/tasks"
    drafts: dict[int, object] = {}
    for _ in range(count):
        claimed = client.post(f"{path}/next", json={"exclude": list(drafts)}).json()
        drafts[claimed["id"]] = claimed["draft"]
    for task_id in drafts:
        client.post(f"{path}/{task_id}/release").raise_for_status()
    return drafts


@pytest.mark.parametrize("how", ["revoked", "disabled"])
async def test_typing_on_an_open_task_is_kept_in_the_journal_when_the_key_is_refused(
    make_app: MakeApp, clock: ManualClock, own_org: Organization, how: str
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, _second = add_tasks(admin, own_org.id, queue, [{"message": "a"}, {"message": "b"}])
    wes = user_id(admin, own_org, "worker")
    key = admin.post(f"{own_org.path}/users/{wes}/keys").json()
    app = make_app(token=key["key"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("2", "tab", *"call back")
        await settle(app, pilot)
        if how == "revoked":
            admin.delete(f"{own_org.path}/users/{wes}/keys/{key['id']}").raise_for_status()
        else:
            admin.patch(f"{own_org.path}/users/{wes}", json={"disabled": True}).raise_for_status()
        await advance(app, pilot, clock, HELD_CHECK_SECONDS)  # the check of the tasks held
        await until(app, pilot, lambda: isinstance(app.screen, ConnectScreen), "back to Connect")
        (entry,) = kept_entries(first)
        assert (entry["state"], entry["data"]) == ("failed", {"category": "blue", "note": "call back"})
        said = [n for n in notes(app) if KEPT_HERE in n and f"task {first}" in n]
        assert said and "R on the queue list" in said[0], notes(app)


async def test_undo_then_leaving_keeps_the_next_tasks_typing_as_its_draft(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("1", "enter")
        assert await shown_task(app, pilot) == second
        await pilot.press("3", "tab", *"second thoughts", "escape")
        await settle(app, pilot)
        await pilot.press("u")
        assert await shown_task(app, pilot) == first
        await pilot.press("escape")
        await until(app, pilot, lambda: not isinstance(app.screen, WorkScreen), "the work screen is left")
        await settle(app, pilot)
    assert task_on_server(admin, org_id, queue, second)["status"] == "open"
    assert drafts_of(worker, org_id, queue, 2) == {
        first: {"category": "red", "note": None},
        second: {"category": "green", "note": "second thoughts"},
    }


async def test_a_flush_drops_the_task_on_screen_and_the_one_ahead_within_5_s_keeping_the_typing(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, _second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: len(work(app).ahead) == 1, "the next is claimed ahead")
        await pilot.press("2", "tab", *"half done")
        await settle(app, pilot)
        assert admin.put(f"{qpath(org_id, queue)}/flush").status_code == 200
        await advance(app, pilot, clock, HELD_CHECK_SECONDS)
        await until(app, pilot, lambda: work(app).current is None, "the task on screen is dropped")
        assert work(app).ahead == []
        (lost,) = [n for n in notes(app) if "Task lost" in n]
        assert f"Task {first}: this task was removed from the queue (flushed)" in lost, lost
        assert KEPT_HERE in lost, lost
        (entry,) = kept_entries(first)
        assert entry["data"] == {"category": "blue", "note": "half done"}
        await until(app, pilot, lambda: "The queue is empty" in waiting_text(app), "the empty queue is said")


async def test_leaving_after_an_admin_removed_the_chosen_option_gives_the_task_back_and_keeps_the_typing(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("3", "tab", *"green it is", "escape")
        await settle(app, pilot)
        assert form_of(app).values()["category"] == "green"
        fewer = {
            **CATEGORY,
            "single_selection": {"is_required": True, "options": CATEGORY["single_selection"]["options"][:2]},
        }  # type: ignore[index]
        edited = admin.patch(qpath(org_id, queue), json={"data": [MESSAGE, fewer, NOTE]})
        assert edited.status_code == 200, edited.text
        await pilot.press("escape")
        await until(app, pilot, lambda: not isinstance(app.screen, WorkScreen), "the work screen is left")
        await settle(app, pilot)
        for task_id in (first, second):
            assert task_on_server(admin, org_id, queue, task_id)["status"] == "open", task_id
        (entry,) = kept_entries(first)
        assert entry["data"] == {"category": "green", "note": "green it is"}
        assert not any("correct" in n.lower() for n in notes(app)), notes(app)
        assert any(f"Task {first} given back" in n and "R on the queue list" in n for n in notes(app)), notes(
            app
        )
    assert drafts_of(worker, org_id, queue, 2)[first] == {"note": "green it is"}


async def test_a_lost_lease_keeps_the_typing_in_the_journal_and_says_so(
    clock: ManualClock,
    start_server: StartServer,  # noqa: F811
) -> None:
    own = start_server("--lease-seconds", "2")
    admin, wyn = own.client("admin"), own.client("worker2")
    org = org_of(admin)
    queue = make_queue(admin, org, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, _second = add_tasks(admin, org, queue, [{"message": "a"}, {"message": "b"}])
    app = restarted_app("worker", own.url, clock, at=datetime.now(UTC))
    clock = app.clock  # type: ignore[assignment]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("1", "tab", *"mine")
        await settle(app, pilot)
        time.sleep(2.2)  # the laptop sleeps: the lease runs out and Wyn takes the task
        assert wyn.post(f"{qpath(org, queue)}/tasks/next").json()["id"] == first
        for _ in range(4):
            await advance(app, pilot, clock, HELD_CHECK_SECONDS)
            if getattr(work(app).current, "id", None) != first:
                break
        await until(app, pilot, lambda: any("Task lost" in n for n in notes(app)), "the loss is said")
        (lost,) = [n for n in notes(app) if "Task lost" in n]
        assert f"Task {first} is no longer yours" in lost and KEPT_HERE in lost, lost
        (entry,) = kept_entries(first)
        assert entry["data"] == {"category": "red", "note": "mine"}, screen_text(app)


async def test_a_browser_tab_closing_keeps_the_typing_as_a_draft_and_gives_the_claims_back(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    """textual-serve ends a browser session's app with its web driver's `quit`, which posts
    Textual's ExitApp: the app quits as ctrl+q does instead of ending in place (typing lost, the
    task and the one ahead held for the whole lease)."""
    from textual.messages import ExitApp

    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": m} for m in "ab"])
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        await pilot.press("2", "tab", *"typed in the browser")
        await until(app, pilot, lambda: form_of(app).values().get("note") == "typed in the browser", "typed")
        app.post_message(ExitApp())  # what the web driver does on textual-serve's `quit`
        await until(app, pilot, lambda: not app.is_running, "the app ended")
    task = task_on_server(admin, org_id, queue, first)
    ahead = task_on_server(admin, org_id, queue, second)
    assert (task["status"], task["assignment"]["assigned_to"]) == ("open", None)
    mine = worker.get(f"{qpath(org_id, queue)}/tasks/{first}").json()["draft"]
    assert (mine["category"], mine.get("note")) == ("blue", "typed in the browser")
    assert ahead["assignment"]["assigned_to"] is None
