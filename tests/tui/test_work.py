"""The work screen against a real `queuedesk serve`: what the worker sees and what the server ends up
holding, for every way a submission can go (sent after the undo grace, undone, refused, offline,
left behind by a crash). Time moves only with `clock.advance`.
"""

import itertools
import json
import uuid
from typing import Any

import httpx
from textual.pilot import Pilot

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.images import ImageView
from queuedesk.tui.journal import data_dir
from queuedesk.tui.outbox import UNDO_SECONDS
from queuedesk.tui.screens.work import WorkScreen
from tests.conftest import make_queue
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, plain, settle, until
from tests.tui.test_images import PNG, Handler, image_server  # noqa: F401  (fixture)

SIZE = (100, 30)
PAST_GRACE = UNDO_SECONDS + 0.5
_tags = itertools.count(1)

OPTIONS = [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}, {"id": "green", "name": "Green"}]
MESSAGE = {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}}
CATEGORY = {
    "id": "category",
    "name": "Category",
    "type": "single_selection",
    "single_selection": {"is_required": True, "options": OPTIONS},
}
PHOTO = {"id": "photo", "name": "Photo", "type": "image"}
NOTE = {"id": "note", "name": "Note", "type": "text", "text": {"placeholder": "anything to add?"}}
# The worker's everyday queue: a message to read, a picture to look at, one choice to make.
LABELLING = [MESSAGE, CATEGORY, PHOTO]


# --- the server, seen over HTTP -------------------------------------------------------------------


def new_queue(admin: httpx.Client, org: int, blocks: list[dict[str, Any]], label: str = "Work") -> dict:
    """A fresh queue with a name no other queue contains (the home filter finds it alone)."""
    return make_queue(admin, org, blocks, name=f"{label}-{uuid.uuid4().hex[:10]}")


def qpath(org: int, queue: dict) -> str:
    return f"/orgs/{org}/queues/{queue['id']}"


def add_tasks(admin: httpx.Client, org: int, queue: dict, items: list[dict[str, Any]]) -> list[int]:
    ids = []
    for data in items:
        response = admin.post(f"{qpath(org, queue)}/tasks/create", json={"data": data})
        assert response.status_code == 200, response.text
        ids.append(response.json()["id"])
    return ids


def task_on_server(client: httpx.Client, org: int, queue: dict, task_id: int) -> dict:
    response = client.get(f"{qpath(org, queue)}/tasks/{task_id}")
    assert response.status_code == 200, response.text
    return response.json()


def completed(admin: httpx.Client, org: int, queue: dict) -> dict[int, dict]:
    page = admin.get(f"{qpath(org, queue)}/tasks/completed", params={"limit": 1000}).json()
    return {t["id"]: t for t in page["tasks"]}


def pending(admin: httpx.Client, org: int, queue: dict) -> dict[int, dict]:
    page = admin.get(f"{qpath(org, queue)}/tasks", params={"limit": 1000}).json()
    return {t["id"]: t for t in page["tasks"]}


# --- the app --------------------------------------------------------------------------------------


def work(app: QueueDeskApp) -> WorkScreen:
    assert isinstance(app.screen, WorkScreen), type(app.screen)
    return app.screen


def form_of(app: QueueDeskApp) -> TaskForm:
    form = work(app).form
    assert form is not None
    return form


def status(app: QueueDeskApp) -> str:
    return plain(work(app).query_one("#work-status"))


def waiting_text(app: QueueDeskApp) -> str:
    waiting = work(app).query_one("#work-waiting")
    return plain(waiting) if waiting.display else ""


def journal_entries() -> list[dict]:
    """What the app's journal holds on disk now (every server and user of this test's data dir)."""
    found = []
    for path in sorted((data_dir() / "journal").glob("*.json")):
        if not path.name.startswith("."):
            found += json.loads(path.read_text())
    return found


def on_screen(app: QueueDeskApp, task_id: int | None = None) -> bool:
    screen = app.screen
    return (
        isinstance(screen, WorkScreen)
        and screen.ready
        and screen.current is not None
        and (task_id is None or screen.current.id == task_id)
        and screen.form is not None
        and screen.form.display
    )


async def shown_task(app: QueueDeskApp, pilot: Pilot, task_id: int | None = None) -> int:
    """Wait until a task (this one) is on the work screen, ready for keys; its id."""
    await until(app, pilot, lambda: on_screen(app, task_id), f"task {task_id or ''} is on screen")
    current = work(app).current
    assert current is not None
    return current.id


async def open_work(app: QueueDeskApp, pilot: Pilot, queue: dict) -> list[str]:
    """From home, with keys only: filter the list down to `queue`, then `w`. The keys pressed."""
    screen = await home(app, pilot)
    await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
    keys = ["slash", *queue["name"], "enter", "w"]
    await pilot.press(*keys[:-1])
    assert screen.table.current_key == str(queue["id"])
    await pilot.press("w")
    return keys


async def start_work(app: QueueDeskApp, pilot: Pilot, queue: dict) -> int:
    await open_work(app, pilot, queue)
    return await shown_task(app, pilot)


async def advance(app: QueueDeskApp, pilot: Pilot, clock: ManualClock, seconds: float) -> None:
    clock.advance(seconds)
    await settle(app, pilot)


# --- the worker's day -----------------------------------------------------------------------------


async def test_a_worker_completes_20_tasks_with_the_keyboard_alone(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    org_id: int,
    image_server: str,  # noqa: F811
) -> None:
    queue = new_queue(admin, org_id, LABELLING)
    photo = f"{image_server}/good.png"
    made = add_tasks(admin, org_id, queue, [{"message": f"report {i}", "photo": photo} for i in range(20)])
    Handler.hits.clear()
    app = make_app("worker")
    chosen: dict[int, str] = {}
    keys_per_task: list[int] = []
    stalls: list[str] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        keys = await open_work(app, pilot, queue)
        for n in range(20):
            task_id = await shown_task(app, pilot)
            form = form_of(app)
            assert form.editor("message").value() == f"report {made.index(task_id)}"
            view = form.query_one(ImageView)
            await until(app, pilot, lambda v=view: v.state == "shown", "the picture is shown")
            assert view.url == photo
            assert f"task {task_id}" in status(app)
            digit = "123"[n % 3]
            chosen[task_id] = OPTIONS[n % 3]["id"]
            keys += [digit, "enter"]
            await pilot.press(digit, "enter")
            keys_per_task.append(len(keys))
            keys = []
            await settle(app, pilot, 1)
            if n < 19 and not on_screen(app):
                # The next task should be there at once; note what the worker saw instead, and
                # let time pass (the screen polls) so the rest of the day can still be checked.
                left = len(pending(admin, org_id, queue)) - len(work(app).qd.outbox_task_ids(queue["id"]))
                stalls.append(f"after task {n + 1} ({left} waiting on the server): {waiting_text(app)!r}")
                for _ in range(15):
                    if on_screen(app):
                        break
                    await advance(app, pilot, clock, 1)
            clock.advance(2)  # a fast worker: two seconds a task
            await settle(app, pilot, 1)
        await settle(app, pilot)
        assert "done 20 · skipped 0" in status(app)
        await advance(app, pilot, clock, PAST_GRACE)
        assert journal_entries() == []
    print(f"keys per task: {keys_per_task}")
    assert max(keys_per_task[1:]) <= 2, keys_per_task
    done = completed(admin, org_id, queue)
    assert sorted(done) == sorted(made)
    for task_id, task in done.items():
        assert task["completed_by"] == "wes@acme.test"
        assert task["data"] == {
            "message": f"report {made.index(task_id)}",
            "category": chosen[task_id],
            "photo": photo,
        }
    assert Handler.hits["/good.png"] == 1  # fetched once for the session, shown twenty times
    assert stalls == [], "the next task was not on screen after a submit: " + "; ".join(stalls)
