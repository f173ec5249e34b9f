"""The work screen against a real `queuedesk serve`: what the worker sees and what the server ends up
holding, for every way a submission can go (sent after the undo grace, undone, refused, offline,
left behind by a crash). Time moves only with `clock.advance`.
"""

import json
import socket
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.modals.task import TaskScreen
from queuedesk.tui.screens.create import CreateTaskScreen
from queuedesk.tui.screens.review import ReviewScreen
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.widgets.image_view import ImageView
from queuedesk.tui.work.journal import data_dir
from queuedesk.tui.work.outbox import UNDO_SECONDS
from queuedesk.tui.work.work_session import EMPTY_POLL_SECONDS, QUEUE_CHECK_SECONDS
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.support.pilot import screen_text, settle, until
from tests.tcp_proxy import TcpProxy
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, notes, plain, shows
from tests.tui.test_images import Handler, image_server  # noqa: F401  (fixture)

SIZE = (100, 30)
PAST_GRACE = UNDO_SECONDS + 0.5

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


def qpath(org: int, queue: dict) -> str:
    return f"/orgs/{org}/queues/{queue['id']}"


def add_tasks(admin: httpx.Client, org: int, queue: dict, items: list[dict[str, Any]]) -> list[int]:
    ids = []
    for data in items:
        response = admin.post(f"{qpath(org, queue)}/tasks/create", json={"data": data})
        assert response.status_code == 200, response.text
        ids.append(response.json()["id"])
    return ids


def two_tasks_on_the_servers_time(
    admin: httpx.Client, org_id: int, clock: ManualClock
) -> tuple[dict, int, int]:
    """A queue with two tasks; the app's clock set to now, as heartbeats are timed from the
    server's lease (900 s here)."""
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    clock.current = datetime.now(UTC)
    return queue, first, second


def stored(blocks: list[dict[str, Any]], **values: Any) -> dict[str, Any]:
    """A task's data as the server keeps it: every block of the queue, None where no value."""
    return {block["id"]: values.get(block["id"]) for block in blocks}


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


def work(app: QueueDeskApp) -> WorkScreen | ReviewScreen:
    assert isinstance(app.screen, WorkScreen | ReviewScreen), type(app.screen)
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
        isinstance(screen, WorkScreen | ReviewScreen)
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


async def open_work(app: QueueDeskApp, pilot: Pilot, queue: dict, *, keyboard: bool = False) -> list[str]:
    """From home, `w` on the queue's row; the keys pressed.

    With `keyboard`, the row is found with keys too (the filter: `/`, the name, `enter`); else the
    cursor is put on it directly, which is quicker (every key pressed costs a test ~0.1 s).
    """
    screen = await home(app, pilot)
    await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed")
    keys = ["w"]
    if keyboard:
        keys = (
            ["escape", "slash", *queue["name"], "enter", "w"]
            if screen.view.filter
            else ["slash", *queue["name"], "enter", "w"]
        )
        await pilot.press(*keys[:-1])
    else:
        if screen.view.filter:
            await pilot.press("escape")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
    assert screen.table.current_key == str(queue["id"])
    await pilot.press("w")
    return keys


async def start_work(app: QueueDeskApp, pilot: Pilot, queue: dict) -> int:
    await open_work(app, pilot, queue)
    return await shown_task(app, pilot)


async def advance(app: QueueDeskApp, pilot: Pilot, clock: ManualClock, seconds: float) -> None:
    clock.advance(seconds)
    await settle(app, pilot)


def restarted_app(role: str, url: str, clock: ManualClock, *, at: datetime | None = None) -> QueueDeskApp:
    """The app started again (same data directory) on a clock of its own, at the same time (or `at`).

    A new clock, because `ManualClock` keeps the timers of an app that is gone (a real process
    takes them with it): advancing the old clock would run them on a closed app.
    """
    target = Target(url, KEYS[role], None, "test")
    return QueueDeskApp(target, settings=AppSettings(), clock=ManualClock(current=at or clock.now()))


# --- servers of the test's own (stopped, restarted, short leases, slow answers) -----------------

StartServer = Callable[..., ServerProcess]


@pytest.fixture
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartServer]:
    """`start_server(*args)`: a server of the test's own with the roles seed; `start_server(like=s)`
    starts `s` again on its port and database. All are stopped after the test."""
    started: list[ServerProcess] = []

    def start(*args: str, like: ServerProcess | None = None) -> ServerProcess:
        if like is None:
            made = ServerProcess(tmp_path_factory.mktemp("own") / "own.db", list(args), seed=ROLES_SEED)
        else:
            made = ServerProcess(like.db_path, like.extra_args, port=like.port)
        started.append(made.start())
        return made

    yield start
    for made in started:
        made.stop()


def org_of(client: httpx.Client) -> int:
    return client.get("/me").json()["organization_id"]


class _HeldBack:
    """A socket whose received chunks wait `proxy.delay` seconds before they are passed on."""

    def __init__(self, sock: socket.socket, proxy: "SlowProxy") -> None:
        self._sock = sock
        self._proxy = proxy

    def recv(self, size: int) -> bytes:
        chunk = self._sock.recv(size)
        if chunk and self._proxy.delay:
            time.sleep(self._proxy.delay)
        return chunk

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class SlowProxy(TcpProxy):
    """The server behind a proxy whose answers can be held back (`delay` seconds per chunk)."""

    delay = 0.0

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            from_server = source.getpeername() == self.upstream
        except OSError:
            from_server = False
        super()._pipe(_HeldBack(source, self) if from_server else source, target)  # type: ignore[arg-type]


# --- the worker's day -----------------------------------------------------------------------------


async def test_a_worker_completes_20_tasks_with_the_keyboard_alone(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    org_id: int,
    image_server: str,  # noqa: F811
) -> None:
    queue = make_queue(admin, org_id, LABELLING, label="Work")
    photo = f"{image_server}/good.png"
    made = add_tasks(admin, org_id, queue, [{"message": f"report {i}", "photo": photo} for i in range(20)])
    Handler.hits.clear()
    app = make_app("worker")
    chosen: dict[int, str] = {}
    keys_per_task: list[int] = []
    stalls: list[str] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        keys = await open_work(app, pilot, queue, keyboard=True)
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
                for _ in range(3):
                    if on_screen(app):
                        break
                    await advance(app, pilot, clock, EMPTY_POLL_SECONDS)
            clock.advance(2)  # a fast worker: two seconds a task
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


# --- the form's checks and the server's --------------------------------------------------------


async def test_enter_with_a_required_block_empty_sends_nothing_and_says_what_is_missing(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "the printer is on fire"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == task_id
        await pilot.press("enter")
        await settle(app, pilot)
        assert work(app).current is not None and work(app).current.id == task_id  # the task stays
        assert form_of(app).editor("category").shown_problem == "required"
        assert "Not sent: Category is required." in status(app)
        assert "done 0" in status(app)
        assert journal_entries() == []
        await advance(app, pilot, clock, PAST_GRACE)
        assert on_screen(app, task_id)
        await pilot.press("1")  # fixed: the word goes with the problem
        await settle(app, pilot)
        assert "Not sent" not in status(app), status(app)
    held = task_on_server(admin, org_id, queue, task_id)
    assert held["status"] == "in_progress" and held["assignment"]["assigned_to"] == "wes@acme.test"
    assert completed(admin, org_id, queue) == {}


async def test_in_a_multi_line_note_enter_is_a_new_line_and_ctrl_j_submits(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    draft = "the customer wrote three paragraphs about the delivery; the gist: it came late twice"
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "long story", "note": draft}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == task_id
        await pilot.press("2", "tab")
        area = app.focused
        assert isinstance(area, TextArea), f"a long note gets the multi-line area, not {area!r}"
        await pilot.press(*"ok", "enter", *"yes", "enter")  # after the note: the cursor comes in at its end
        await settle(app, pilot, 1)
        assert on_screen(app, task_id) and "done 0" in status(app)  # enter was a new line
        await pilot.press("ctrl+j")
        await settle(app, pilot)
        assert "done 1" in status(app) and not on_screen(app, task_id)
        await advance(app, pilot, clock, PAST_GRACE)
    (done,) = completed(admin, org_id, queue).values()
    assert done["data"] == stored(blocks, message="long story", category="blue", note=f"{draft}ok\nyes\n")


async def test_a_value_the_server_refuses_is_shown_on_its_field(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """The admin changes the options while the worker is on a task: the form (which read the queue
    when the screen opened) lets `red` through, the server refuses it for `data.category`."""
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "is it red?"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == task_id
        changed = {**CATEGORY, "single_selection": {"is_required": True, "options": OPTIONS[1:]}}
        response = admin.patch(qpath(org_id, queue), json={"data": [MESSAGE, changed]})
        assert response.status_code == 200, response.text
        await pilot.press("1", "enter")  # Red, gone from the queue a moment ago
        await advance(app, pilot, clock, PAST_GRACE)
        # Refused, and nothing lost: the values are kept, the worker is told.
        assert completed(admin, org_id, queue) == {}
        assert task_on_server(admin, org_id, queue, task_id)["status"] == "in_progress"
        (entry,) = journal_entries()
        assert entry["task_id"] == task_id and entry["data"] == {"category": "red"}
        assert entry["state"] == "failed" and "not an option" in entry["error"]
        assert any("Submission refused" in n and "category='red'" in n for n in notes(app)), notes(app)
        # ... and shown where it belongs: on the Category field of that task, which is still
        # the worker's (a 400 changes nothing on the server). Time for one poll of the screen.
        await settle(app, pilot)
        if not on_screen(app):
            await advance(app, pilot, clock, EMPTY_POLL_SECONDS)
        shown = work(app).current
        assert on_screen(app, task_id), (
            f"the refused task {task_id} is not back on screen (showing {shown and shown.id}; "
            f"{waiting_text(app)!r}); the refusal was only a notification: {notes(app)}"
        )
        category = form_of(app).editor("category")
        assert category.shown_problem is not None and "not an option" in category.shown_problem, (
            f"task {task_id} is back, but Category shows no problem (value {category.value()!r}, "
            f"problem {category.shown_problem!r}, form problem line "
            f"{plain(form_of(app).query_one('#form-problem'))!r})"
        )
        assert category.value() == "red"  # what the worker chose, kept
        assert "refused" in status(app)
        # The queue was read again: the options are today's, and a new answer goes through.
        assert category.names() == ["Blue", "Green"]  # type: ignore[attr-defined]
        await pilot.press("1", "enter")
        await settle(app, pilot)
        assert [(e["task_id"], e["state"]) for e in journal_entries()] == [(task_id, "held")]
        await advance(app, pilot, clock, PAST_GRACE)
        assert journal_entries() == []  # the refused attempt is done with
    (done,) = completed(admin, org_id, queue).values()
    assert (done["id"], done["data"]["category"]) == (task_id, "blue")


async def test_skip_gives_the_task_back_and_ctrl_s_keeps_a_draft_on_it(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    first, second, third = add_tasks(admin, org_id, queue, [{"message": f"m{i}"} for i in range(3)])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("s")
        assert await shown_task(app, pilot) == second  # the next one, at once
        await settle(app, pilot)
        skipped = task_on_server(admin, org_id, queue, first)
        assert skipped["status"] == "open" and skipped["assignment"]["assigned_to"] is None
        assert skipped["data"] == stored(blocks, message="m0")
        assert "skipped 1" in status(app)

        await pilot.press("2", "tab", *"ask sue", "ctrl+s")
        assert await shown_task(app, pilot) == third
        await settle(app, pilot)
        drafted = task_on_server(admin, org_id, queue, second)
        assert drafted["status"] == "open" and drafted["assignment"]["assigned_to"] is None
        assert drafted["data"] == stored(blocks, message="m1")  # the draft is kept apart, the worker's own
        draft = worker.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks/{second}").json()["draft"]
        assert (draft["category"], draft["note"]) == ("blue", "ask sue")
        assert "skipped 2" in status(app)
        assert form_of(app).editor("category").value() is None  # nothing carried over
    assert completed(admin, org_id, queue) == {}


async def test_the_status_bar_counts_time_on_the_task_and_the_session_and_letters_in_a_field_are_text(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    org_id: int,
    image_server: str,  # noqa: F811
) -> None:
    """Time on a task stands still under the full-screen image and after 2 minutes without a key
    (shown as idle); done, skipped, the average and the rate are the session's. Inside the note,
    `s`, `z` and `u` are text; `f6` skips from there."""
    queue = make_queue(admin, org_id, [*LABELLING, NOTE], label="Work")
    photo = f"{image_server}/good.png"
    first, second, third = add_tasks(admin, org_id, queue, [{"message": m, "photo": photo} for m in "abc"])
    began = clock.now()
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await advance(app, pilot, clock, 3)
        assert f"task {first} · 3 s" in status(app)

        await pilot.press("z")
        await until(
            app, pilot, lambda: type(app.screen).__name__ == "ImageScreen", "the image fills the screen"
        )
        await advance(app, pilot, clock, 10)
        await pilot.press("escape")
        await settle(app, pilot, 1)
        assert f"task {first} · 3 s" in status(app), "time ran on while the image covered the screen"
        await advance(app, pilot, clock, 2)
        assert f"task {first} · 5 s" in status(app)

        await pilot.press("tab", "s", "z", "u")  # into the note: letters, not skip / image / undo
        await settle(app, pilot, 1)
        assert on_screen(app, first) and form_of(app).editor("note").value() == "szu"
        assert "skipped 0" in status(app)
        await pilot.press("f6")  # skip, from inside the field
        assert await shown_task(app, pilot) == second
        assert "skipped 1" in status(app)
        assert task_on_server(admin, org_id, queue, first)["status"] == "open"

        await advance(app, pilot, clock, 121)  # no key for over 2 minutes
        assert f"task {second} · idle" in status(app)
        await pilot.press("2")  # back: the idle stretch past 2 minutes is not counted
        assert f"task {second} · 2 min 00 s" in status(app)
        await pilot.press("enter")
        assert await shown_task(app, pilot) == third
        await pilot.press("3", "tab")
        await advance(app, pilot, clock, 100)
        await pilot.press("x")  # a key the note keeps to itself is activity all the same
        await advance(app, pilot, clock, 30)
        assert f"task {third} · 2 min 10 s" in status(app)
        await pilot.press("enter")
        await settle(app, pilot)
        session = (clock.now() - began).total_seconds()
        assert session == 3 + 10 + 2 + 121 + 100 + 30
        per_hour = 2 / (session / 3600)
        assert f"done 2 · skipped 1 · avg 125.0 s · {per_hour:,.0f}/h" in status(app), status(app)
        await advance(app, pilot, clock, PAST_GRACE)
    done = completed(admin, org_id, queue)
    assert {i: t["data"]["category"] for i, t in done.items()} == {second: "blue", third: "green"}
    assert done[third]["data"]["note"] == "x"


# --- undo ----------------------------------------------------------------------------------------


async def test_undo_within_the_grace_brings_the_task_back_and_nothing_reached_the_server(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int, receiver: Receiver
) -> None:
    blocks = [MESSAGE, CATEGORY, NOTE]
    queue = make_queue(admin, org_id, blocks, label="Work")
    hooked = admin.put(f"{qpath(org_id, queue)}/webhook", json={"target": receiver.url})
    assert hooked.status_code in (200, 201), hooked.text
    first, second = add_tasks(admin, org_id, queue, [{"message": "one"}, {"message": "two"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("3", "tab", *"smoke", "escape", "enter")
        assert await shown_task(app, pilot) == second
        assert "done 1" in status(app)
        await advance(app, pilot, clock, UNDO_SECONDS - 1)
        assert task_on_server(admin, org_id, queue, first)["status"] == "in_progress"

        await pilot.press("u")
        assert await shown_task(app, pilot) == first
        form = form_of(app)
        assert form.values() == {"note": "smoke", "category": "green"}
        assert f"Task {first} is back" in status(app) and "done 0" in status(app)
        assert journal_entries() == []
        await advance(app, pilot, clock, PAST_GRACE)  # long past the grace: still nothing sent
        held = task_on_server(admin, org_id, queue, first)
        assert held["status"] == "in_progress" and held["data"] == stored(blocks, message="one")
        assert completed(admin, org_id, queue) == {}
        assert receiver.received == []

        # Sent again, it goes once the grace is over; then undo is too late.
        await pilot.press("enter")
        assert await shown_task(app, pilot) == second
        await advance(app, pilot, clock, PAST_GRACE)
        done = completed(admin, org_id, queue)
        assert list(done) == [first]
        assert done[first]["data"] == {"message": "one", "category": "green", "note": "smoke"}
        await pilot.press("u")
        assert f"Too late to undo: task {first} was already sent." in status(app)
        assert on_screen(app, second)
    (hook,) = receiver.wait_for(1)
    assert json.loads(hook.body)["id"] == first


async def test_submit_on_choice_sends_with_the_digit_alone(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")  # one block to fill, a selection
    ids = add_tasks(admin, org_id, queue, [{"message": f"m{i}"} for i in range(4)])
    app = make_app("worker", submit_on_choice=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == ids[0]
        assert "submit on choice" in status(app)
        await pilot.press("3")
        assert await shown_task(app, pilot) == ids[1]
        await pilot.press("ctrl+t")
        assert "Submit on choice off." in status(app)
        await pilot.press("1")
        await settle(app, pilot)
        assert on_screen(app, ids[1]) and form_of(app).values() == {"category": "red"}
        await pilot.press("ctrl+t", "2")  # on again: the digit sends
        assert await shown_task(app, pilot) == ids[2]
        await advance(app, pilot, clock, PAST_GRACE)
    done = completed(admin, org_id, queue)
    assert {i: t["data"]["category"] for i, t in done.items()} == {ids[0]: "green", ids[1]: "blue"}


# --- claims taken away ---------------------------------------------------------------------------


SHORT_LEASE = 3  # seconds


async def test_a_lost_lease_is_explained_and_a_refused_submission_is_kept_never_retried(
    clock: ManualClock, start_server: StartServer
) -> None:
    # Leases of a few seconds, on the server's real clock: long enough that a loaded machine's round
    # of the app never outlasts one between two of Wyn's renewals, short enough to wait out.
    own = start_server("--lease-seconds", str(SHORT_LEASE))
    admin, wyn = own.client("admin"), own.client("worker2")
    org = org_of(admin)
    queue = make_queue(admin, org, [MESSAGE, CATEGORY], label="Work")
    first, second = add_tasks(admin, org, queue, [{"message": "a"}, {"message": "b"}])
    # Heartbeats are timed from the lease's end as the server tells it: the clock starts at the
    # real time, so the first one is due in 5 s whatever the day the test runs.
    app = restarted_app("worker", own.url, clock, at=datetime.now(UTC))
    clock = app.clock  # type: ignore[assignment]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: [t.id for t in work(app).ahead] == [second], "the next is claimed")
        sent: list[int] = []
        assert app.outbox is not None
        real_complete = app.outbox.client.complete

        async def complete(queue_id: int, task_id: int, data: dict[str, Any]) -> Any:
            sent.append(task_id)
            return await real_complete(queue_id, task_id, data)

        app.outbox.client.complete = complete  # type: ignore[method-assign]  (a spy: counts, changes nothing)

        # Wes looks away; his lease runs out and Wyn takes the task.
        time.sleep(SHORT_LEASE + 0.2)
        assert wyn.post(f"{qpath(org, queue)}/tasks/next").json()["id"] == first
        # The heartbeat finds out. It is due within a third of the lease left at the claim, on the
        # app's clock that stood still since the app started: more than 5 s when a loaded machine
        # took long between the two, so the clock goes on until the task changes. Wyn renews his
        # claim as he goes (or, once it ran out, Wes would take the task back).
        beat = f"{qpath(org, queue)}/tasks/{first}/heartbeat"
        for _ in range(6):
            assert wyn.post(beat).status_code == 200
            await advance(app, pilot, clock, 5)
            if getattr(work(app).current, "id", None) != first:
                break
        assert await shown_task(app, pilot) == second
        assert any("Task lost" in n and f"Task {first} is no longer yours" in n for n in notes(app)), notes(
            app
        )

        # Wes answers the next one, but it too goes to Wyn during the grace: refused, kept, told.
        assert wyn.post(beat).status_code == 200
        await pilot.press("2", "enter")
        await settle(app, pilot)
        time.sleep(SHORT_LEASE + 0.2)
        taken = wyn.post(f"{qpath(org, queue)}/tasks/next", json={"exclude": [first]})
        assert taken.json()["id"] == second, taken.text
        assert wyn.post(beat).status_code == 200
        await advance(app, pilot, clock, PAST_GRACE)
        assert sent == [second]
        (entry,) = journal_entries()
        assert (entry["task_id"], entry["state"], entry["data"]) == (second, "failed", {"category": "blue"})
        refused = [n for n in notes(app) if "Submission refused" in n]
        assert len(refused) == 1 and f"Task {second}" in refused[0] and "category='blue'" in refused[0]
        assert "All 2 open tasks are being worked on by others" in waiting_text(app), screen_text(app)
        for _ in range(3):  # past every step of the backoff: never sent again
            for task_id in (first, second):
                assert wyn.post(f"{qpath(org, queue)}/tasks/{task_id}/heartbeat").status_code == 200
            await advance(app, pilot, clock, 30)
        assert sent == [second]
        assert journal_entries()[0]["state"] == "failed"
        assert len([n for n in notes(app) if "Submission refused" in n]) == 1
    assert completed(admin, org, queue) == {}
    for task_id in (first, second):
        assert task_on_server(admin, org, queue, task_id)["assignment"]["assigned_to"] == "wyn@acme.test"


async def test_a_flush_during_the_grace_is_a_404_reported_with_the_values_and_the_next_task_goes_too(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue, first, second = two_tasks_on_the_servers_time(admin, org_id, clock)
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("1", "enter")
        assert await shown_task(app, pilot) == second
        assert admin.put(f"{qpath(org_id, queue)}/flush").status_code == 200
        await advance(app, pilot, clock, PAST_GRACE)
        (entry,) = journal_entries()
        assert (entry["task_id"], entry["state"], entry["data"]) == (first, "failed", {"category": "red"})
        assert any("Submission refused" in n and "category='red'" in n for n in notes(app)), notes(app)
        # The task on screen went with the flush: the next heartbeat (a third of the lease on)
        # says so, and the queue is empty.
        await advance(app, pilot, clock, 300)
        await until(app, pilot, lambda: waiting_text(app), "the screen says why there is no task")
        assert any("Task lost" in n and f"Task {second}" in n for n in notes(app)), notes(app)
        assert "The queue is empty" in waiting_text(app)
        assert journal_entries()[0]["state"] == "failed"  # kept, never retried
    assert completed(admin, org_id, queue) == {}


# --- nothing to claim ----------------------------------------------------------------------------


async def test_an_empty_queue_and_one_held_by_others_are_told_apart_and_new_work_comes_in(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, clients: dict[str, httpx.Client], org_id: int
) -> None:
    wyn = clients["worker2"]
    empty = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Empty")
    busy = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Busy")
    held = add_tasks(admin, org_id, busy, [{"message": "x"}, {"message": "y"}])
    assert wyn.post(f"{qpath(org_id, busy)}/tasks/next").json()["id"] == held[0]
    assert wyn.post(f"{qpath(org_id, busy)}/tasks/next", json={"exclude": held[:1]}).json()["id"] == held[1]
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_work(app, pilot, empty)
        await until(app, pilot, lambda: waiting_text(app), "the screen says why there is no task")
        assert "The queue is empty" in waiting_text(app) and "others" not in waiting_text(app)
        (new,) = add_tasks(admin, org_id, empty, [{"message": "fresh"}])
        await advance(app, pilot, clock, 5)
        assert await shown_task(app, pilot) == new
        await pilot.press("escape")

        await open_work(app, pilot, busy)
        await until(app, pilot, lambda: waiting_text(app), "the screen says why there is no task")
        assert "All 2 open tasks are being worked on by others" in waiting_text(app)
        assert "empty" not in waiting_text(app)
        (new,) = add_tasks(admin, org_id, busy, [{"message": "fresh"}])
        await advance(app, pilot, clock, 5)
        assert await shown_task(app, pilot) == new


async def test_the_last_task_of_the_queue_can_be_undone_with_u(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """After the last task the screen waits for work, and the submission waits out its grace:
    `u` must still bring it back (no task is on screen for the key to be applied to by mistake)."""
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    (only,) = add_tasks(admin, org_id, queue, [{"message": "last one"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == only
        await pilot.press("3", "enter")
        await until(app, pilot, lambda: "The queue is empty" in waiting_text(app), "the queue is empty")
        await pilot.press("u")
        await settle(app, pilot)
        assert on_screen(app, only), f"u did not undo; the status says: {status(app)!r}"
        assert form_of(app).values() == {"category": "green"}
        assert journal_entries() == []
    held = task_on_server(admin, org_id, queue, only)
    assert held["status"] == "in_progress" and completed(admin, org_id, queue) == {}


async def test_waiting_for_work_polls_once_every_5_s_also_after_an_undo(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """Undo while the screen waits for work brings the task back; once it is submitted again the
    screen waits again, and must still poll gently: one claim every 5 s, not one per wait begun."""
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    (only,) = add_tasks(admin, org_id, queue, [{"message": "last one"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == only
        await pilot.press("1", "enter")
        await until(app, pilot, lambda: "The queue is empty" in waiting_text(app), "the queue is empty")
        await advance(app, pilot, clock, 1)
        await pilot.press("f7")  # undo (`u` itself: see the test above)
        assert await shown_task(app, pilot) == only
        await pilot.press("2", "enter")
        await until(app, pilot, lambda: "The queue is empty" in waiting_text(app), "the queue is empty again")
        claims: list[float] = []
        began = clock.now()
        assert app.session is not None
        client = app.session.client
        real_claim = client.claim_next

        async def claim_next(queue_id: int, exclude: Any = ()) -> Any:
            claims.append((clock.now() - began).total_seconds())  # counted, nothing changed
            return await real_claim(queue_id, exclude)

        client.claim_next = claim_next  # type: ignore[method-assign]
        for _ in range(20):  # 20 s, a second at a time
            await advance(app, pilot, clock, 1)
        assert "The queue is empty" in waiting_text(app)
        assert len(claims) == 4, (
            f"{len(claims)} claims in 20 s of waiting, at {claims} s, not 4 (one every 5 s)"
        )
    (done,) = completed(admin, org_id, queue).values()
    assert done["data"]["category"] == "blue"


# --- the network and the process going away -----------------------------------------------------


async def test_an_offline_submit_is_kept_unsent_and_delivered_when_the_server_is_back(
    clock: ManualClock, start_server: StartServer
) -> None:
    own = start_server()
    admin = own.client("admin")
    org = org_of(admin)
    queue = make_queue(admin, org, [MESSAGE, CATEGORY], label="Work")
    first, second, third = add_tasks(admin, org, queue, [{"message": m} for m in "abc"])
    app = restarted_app("worker", own.url, clock)
    clock = app.clock  # type: ignore[assignment]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: work(app).ahead, "the next task is claimed ahead")
        own.stop()
        await pilot.press("2", "enter")
        assert await shown_task(app, pilot) == second  # prefetched: no server needed
        await advance(app, pilot, clock, PAST_GRACE)
        (entry,) = journal_entries()
        assert (entry["task_id"], entry["state"], entry["data"]) == (first, "unsent", {"category": "blue"})
        assert "1 unsent" in status(app)
        assert f"Task {first} not sent yet" in status(app) and "u undoes" not in status(app)

        own = start_server(like=own)
        await advance(app, pilot, clock, 2)  # the first retry
        await until(app, pilot, lambda: not journal_entries(), "the unsent submission is delivered")
        assert "unsent" not in status(app) and f"Task {first} sent." in status(app)
        assert completed(admin, org, queue)[first]["data"] == {"message": "a", "category": "blue"}

        # Again, but this time the app is closed before the server comes back.
        await pilot.press("3", "enter")
        await settle(app, pilot)
        own.stop()
        await advance(app, pilot, clock, PAST_GRACE)
        assert [(e["task_id"], e["state"]) for e in journal_entries()] == [(second, "unsent")]
        await pilot.press("ctrl+q")
    assert [(e["task_id"], e["state"]) for e in journal_entries()] == [(second, "unsent")]

    start_server(like=own)
    again = restarted_app("worker", own.url, clock)
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        await home(again, pilot)
        await advance(again, pilot, again.clock, 0)  # type: ignore[arg-type]
        await until(again, pilot, lambda: not journal_entries(), "the journal is sent on start")
    done = completed(admin, org, queue)
    assert sorted(done) == [first, second]
    assert done[second]["data"] == {"message": "b", "category": "green"}
    assert done[second]["completed_by"] == "wes@acme.test"
    assert third not in done  # claimed ahead when the server went away: its lease runs out on its own


async def test_a_crash_during_the_grace_loses_nothing(
    make_app: MakeApp, clock: ManualClock, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("1", "tab", *"in a hurry", "enter")
        assert await shown_task(app, pilot) == second
        # The app goes away here, the grace not over: leaving `run_test` runs `App._shutdown()`
        # (screens unmounted, timers gone with them), never the quit action nor `leave()`, so
        # nothing is sent and no claim is given back, as when the process is killed.
    (entry,) = journal_entries()
    assert (entry["task_id"], entry["state"]) == (first, "held")
    for task_id in (first, second):
        task = task_on_server(admin, org_id, queue, task_id)
        assert (task["status"], task["assignment"]["assigned_to"]) == ("in_progress", "wes@acme.test")
    assert completed(admin, org_id, queue) == {}

    again = restarted_app("worker", server.url, clock)
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        await home(again, pilot)
        await advance(again, pilot, again.clock, 0)  # type: ignore[arg-type]
        await until(again, pilot, lambda: not journal_entries(), "the held submission is sent on start")
    done = completed(admin, org_id, queue)
    assert list(done) == [first]
    assert done[first]["data"] == {"message": "a", "category": "red", "note": "in a hurry"}


async def test_keys_pressed_before_the_next_task_is_painted_are_not_applied_and_the_screen_says_so(
    clock: ManualClock, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    (first,) = add_tasks(admin, org_id, queue, [{"message": "a"}])
    proxy = SlowProxy(server.port).start()
    try:
        app = restarted_app("worker", f"http://127.0.0.1:{proxy.port}", clock)
        clock = app.clock  # type: ignore[assignment]
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            assert await start_work(app, pilot, queue) == first
            await settle(app, pilot)
            assert work(app).ahead == []  # nothing was there to claim ahead
            (second,) = add_tasks(admin, org_id, queue, [{"message": "b"}])
            proxy.delay = 2.0  # the claim of the next task takes a while (long enough on a loaded machine)
            await pilot.press("1", "enter")
            assert not on_screen(app), "the next task came before the keys could be pressed"
            await pilot.press("2")
            assert "“2” was not applied: no task was on screen yet." in status(app)
            await pilot.press("enter")
            assert "“enter” was not applied" in status(app) or "Enter was not applied" in status(app)
            # Skip and release-with-draft have keys that are no letters: refused out loud as well.
            await pilot.press("f6")
            assert "Skip was not applied: no task was on screen yet." in status(app)
            await pilot.press("ctrl+s")
            assert "Ctrl+s was not applied: no task was on screen yet." in status(app)
            await pilot.press("s")
            assert "“s” was not applied: no task was on screen yet." in status(app)
            assert not on_screen(app)
            proxy.delay = 0
            assert await shown_task(app, pilot) == second
            assert form_of(app).values() == {"category": None}
            assert "done 1 · skipped 0" in status(app)
            assert [e["task_id"] for e in journal_entries()] == [first]
            await advance(app, pilot, clock, PAST_GRACE)
            assert on_screen(app, second)
    finally:
        proxy.stop()
    assert list(completed(admin, org_id, queue)) == [first]
    assert task_on_server(admin, org_id, queue, second)["status"] == "in_progress"


async def test_claims_held_ahead_are_given_back_on_leaving_and_on_quitting(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    ids = add_tasks(admin, org_id, queue, [{"message": m} for m in "abcde"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == ids[0]
        await pilot.press("1", "enter")  # held for the grace...
        assert await shown_task(app, pilot) == ids[1]
        await until(app, pilot, lambda: [t.id for t in work(app).ahead] == [ids[2]], "claimed ahead")
        assert pending(admin, org_id, queue)[ids[2]]["assignment"]["assigned_to"] == "wes@acme.test"
        await pilot.press("escape")  # ... sent at once on leaving; both claims given back
        await settle(app, pilot)
        assert not isinstance(app.screen, WorkScreen)
        assert list(completed(admin, org_id, queue)) == [ids[0]]
        for task_id in ids[1:3]:
            task = task_on_server(admin, org_id, queue, task_id)
            assert (task["status"], task["assignment"]["assigned_to"]) == ("open", None), task

        await pilot.press("w")
        answered = await shown_task(app, pilot)
        await until(app, pilot, lambda: work(app).ahead, "a task is claimed ahead")
        mine = [t["id"] for t in pending(admin, org_id, queue).values() if t["assignment"]["assigned_to"]]
        assert len(mine) == 2
        await pilot.press("2", "enter")  # held for the grace when the worker quits: sent, not lost
        await shown_task(app, pilot)
        await until(app, pilot, lambda: work(app).ahead, "the next is claimed ahead")
        await pilot.press("ctrl+q")
    done = completed(admin, org_id, queue)
    assert sorted(done) == sorted([ids[0], answered])
    assert done[answered]["data"]["category"] == "blue"
    for task_id in set(ids) - set(done):
        task = task_on_server(admin, org_id, queue, task_id)
        assert task["status"] in ("new", "open") and task["assignment"]["assigned_to"] is None, task


async def test_the_heartbeat_renews_the_open_task_and_the_one_claimed_ahead(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue, first, second = two_tasks_on_the_servers_time(admin, org_id, clock)
    app = make_app("worker")

    def leases() -> dict[int, datetime]:
        found = {}
        for task_id in (first, second):
            assignment = task_on_server(admin, org_id, queue, task_id)["assignment"]
            assert assignment["assigned_to"] == "wes@acme.test"
            found[task_id] = datetime.fromisoformat(assignment["lease_expires_at"])
        return found

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: [t.id for t in work(app).ahead] == [second], "the next is claimed")
        before = leases()
        await advance(app, pilot, clock, 295)
        assert leases() == before  # not yet: a beat comes a third of the way through the lease
        await advance(app, pilot, clock, 10)
        after = leases()
        assert after[first] > before[first] and after[second] > before[second], (before, after)
        assert on_screen(app, first)


async def test_away_for_half_the_lease_the_task_claimed_ahead_goes_back_and_returning_says_so(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue, first, second = two_tasks_on_the_servers_time(admin, org_id, clock)
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await until(app, pilot, lambda: [t.id for t in work(app).ahead] == [second], "the next is claimed")
        await advance(app, pilot, clock, 305)  # the first beat, a third of the lease in: both renewed
        assert task_on_server(admin, org_id, queue, second)["status"] == "in_progress"
        await advance(app, pilot, clock, 300)  # the next beat, no key for more than half the lease
        ahead = task_on_server(admin, org_id, queue, second)
        assert ahead["status"] in ("new", "open") and ahead["assignment"]["assigned_to"] is None, ahead
        mine = task_on_server(admin, org_id, queue, first)["assignment"]
        assert mine["assigned_to"] == "wes@acme.test" and on_screen(app, first)
        await pilot.press("tab")  # back
        await until(
            app, pilot, lambda: any("went back to the queue" in n for n in notes(app)), "told on return"
        )
        await until(app, pilot, lambda: [t.id for t in work(app).ahead] == [second], "claimed ahead again")


async def test_a_queue_edit_reaches_the_open_form_and_what_was_typed_in_a_removed_field_is_said(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Work")
    first, _second = add_tasks(admin, org_id, queue, [{"message": "a"}, {"message": "b"}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("1", "tab", *"half a thought")
        await settle(app, pilot)
        priority = {"id": "priority", "name": "Priority", "type": "binary"}
        edited = admin.patch(qpath(org_id, queue), json={"data": [MESSAGE, CATEGORY, priority]})
        assert edited.status_code == 200, edited.text
        await advance(app, pilot, clock, QUEUE_CHECK_SECONDS)  # the next look at the queue
        await until(app, pilot, lambda: "priority" in form_of(app).values(), "the form has the new field")
        assert form_of(app).values() == {"category": "red", "priority": None}
        assert on_screen(app, first)
        (said,) = [n for n in notes(app) if "Queue changed" in n]
        assert "Note: 'half a thought'" in said, said
        await pilot.press("enter")
        await advance(app, pilot, clock, PAST_GRACE)
    done = completed(admin, org_id, queue)[first]["data"]
    assert (done["category"], done["priority"], done.get("note")) == ("red", None, None)


# --- editors and images --------------------------------------------------------------------------

EVERY_EDITOR = [
    MESSAGE,
    {"id": "source", "name": "Source", "type": "link"},
    NOTE,
    CATEGORY,
    {
        "id": "tags",
        "name": "Tags",
        "type": "multiple_selection",
        "multiple_selection": {"options": OPTIONS},
    },
    {"id": "urgent", "name": "Urgent", "type": "binary"},
    {"id": "count", "name": "Count", "type": "number"},
    {"id": "due", "name": "Due", "type": "date"},
    {"id": "contact", "name": "Contact", "type": "email"},
]


async def test_every_editor_types_value_round_trips_through_the_server(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, EVERY_EDITOR, label="Work")
    source = "https://example.com/report/7"
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "fill everything", "source": source}])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == task_id
        form = form_of(app)
        assert [e.block.id for e in form.editors()] == [
            "note",
            "category",
            "tags",
            "urgent",
            "count",
            "due",
            "contact",
        ]
        assert not form.editor("source").editable and not form.editor("message").editable  # shown, not edited
        assert form.editor("category").has_focus_within  # the first required block
        await pilot.press("2", "tab", "1", "3", "tab", "y", "tab", *"-2.5", "tab", *"2026-11-23", "tab")
        await pilot.press(*"a@b.co", "escape", "tab", *"2nd fl")
        assert form.problems() == {}
        await pilot.press("enter")
        await settle(app, pilot)
        await advance(app, pilot, clock, PAST_GRACE)
    (done,) = completed(admin, org_id, queue).values()
    assert done["data"] == {
        "message": "fill everything",
        "source": source,
        "note": "2nd fl",
        "category": "blue",
        "tags": ["red", "green"],
        "urgent": True,
        "count": -2.5,
        "due": "2026-11-23",
        "contact": "a@b.co",
    }


async def test_link_and_image_addresses_typed_in_create_task_round_trip(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """Links and images are the task's content in the work screen (shown, never edited): their
    editors take typed values when an admin creates a task (`n`)."""
    blocks = [{"id": "source", "name": "Source", "type": "link"}, PHOTO]
    queue = make_queue(admin, org_id, blocks, label="New")
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(
            app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed"
        )
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("n")
        await until(app, pilot, lambda: app.screen.query(TaskForm), "the create form is shown")
        await pilot.press(*"http://e.co", "tab", *"http://e.co/p", "ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the created task is shown")
        (task,) = pending(admin, org_id, queue).values()
        shown = app.screen
        assert isinstance(shown, TaskScreen) and shown.shown.id == task["id"]
        assert f"Task {task['id']}" in plain(shown.query_one("#task-heading"))
        assert "http://e.co/p" in plain(shown.query_one("#task-values"))
        await pilot.press("escape")  # back to a fresh form for the next one
        await settle(app, pilot, 1)
        assert isinstance(app.screen, CreateTaskScreen)
        form = app.screen.form
        assert form is not None and form.values() == {"source": None, "photo": None}
    assert task["data"] == {"source": "http://e.co", "photo": "http://e.co/p"}


async def test_an_image_too_large_missing_or_not_an_image_shows_why_and_work_goes_on(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    org_id: int,
    image_server: str,  # noqa: F811
) -> None:
    queue = make_queue(admin, org_id, LABELLING, label="Work")
    cases = {
        "/declared-large": "larger than 10 MiB",
        "/missing.png": "HTTP 404",
        "/page.html": "not an image (text/html)",
    }
    photos = [f"{image_server}{path}" for path in cases]
    ids = add_tasks(
        admin, org_id, queue, [{"message": m, "photo": p} for m, p in zip("abc", photos, strict=True)]
    )
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_work(app, pilot, queue)
        for task_id, reason in zip(ids, cases.values(), strict=True):
            assert await shown_task(app, pilot) == task_id
            view = form_of(app).query_one(ImageView)
            await until(app, pilot, lambda v=view: v.state == "unavailable", "the placeholder is shown")
            assert view.reason == reason
            note = view.query_one(".image-note")
            assert plain(note) == f"Image not shown: {reason} (z, then r, tries again)"
            assert note.display and note.region.height > 0 and shows(app, "Image not shown:")
            await pilot.press("1", "enter")
        await settle(app, pilot)
        await advance(app, pilot, clock, PAST_GRACE)
        assert app.is_running and app._exception is None
    done = completed(admin, org_id, queue)
    assert sorted(done) == sorted(ids)
    assert all(t["data"]["category"] == "red" for t in done.values())


# --- a server with the documented interface only -------------------------------------------------


async def test_the_basic_api_has_no_claiming_but_creating_a_task_still_works(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        assert screen.table.current_key == str(BASIC_QUEUE)
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen is screen
        assert any(
            "No claiming on this server" in n and "Creating tasks (n) still works" in n for n in notes(app)
        )
        assert not any(s.path.endswith("/tasks/next") for s in original.seen)

        await pilot.press("n")
        await until(app, pilot, lambda: app.screen.query(TaskForm), "the create form is shown")
        await pilot.press(*"Fire", "tab", "2", "ctrl+s")
        await until(app, pilot, lambda: original.created, "the task is created")
    (created,) = original.created
    assert created["data"]["paragraph"] == "Fire" and created["data"]["category"] == "blue"
