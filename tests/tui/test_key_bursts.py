"""Keys typed in a burst (a paste, fast typing, `tmux send-keys`) land in the fields they were typed
for, on every form of the app, against the suite's real server.

A terminal hands the app a whole burst before the app has handled the first key of it. `pilot.press`
cannot show that: it waits for the app after every key. `burst` queues the keys the way the
terminal driver does, all of them before the app reads one. Before the fix, `kim@acme.test<tab>Kim`
in the add-user form gave an email field "kim@acme.testKim" and an empty name.
"""

import itertools

import httpx
from textual import events
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, TabbedContent, TextArea

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.modals.flush import FlushScreen
from queuedesk.tui.modals.user_dialogs import AddUserScreen
from queuedesk.tui.panes.pending_view import PendingView
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.create import CreateTaskScreen
from queuedesk.tui.screens.people_screen import PeopleScreen
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.queue_editor import QueueEditorScreen
from queuedesk.tui.screens.queues import QueuesScreen
from tests.conftest import make_queue
from tests.support import KEYS, Organization, ServerProcess
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_access_changes import open_audit
from tests.tui.test_app import home, open_queue, point_at, show_tab
from tests.tui.test_people import open_people
from tests.tui.test_work import open_work, shown_task

SIZE = (120, 40)
# Keys given by name; any other string is text, typed a character at a time.
NAMED = {
    "tab": "\t",
    "shift+tab": None,
    "enter": "\r",
    "escape": "\x1b",
    "ctrl+s": "\x13",
    "up": None,
    "backspace": "\x7f",
    "left": None,
}
_numbers = itertools.count(1)


def burst(app: QueueDeskApp, *keys: str) -> None:
    """Queue every key for the app at once, as the terminal driver does with a burst."""
    for key in keys:
        if key in NAMED:
            app.post_message(events.Key(key, NAMED[key]))
            continue
        for char in key:
            app.post_message(events.Key(char if char.isalnum() else _character_to_key(char), char))


def field(app: QueueDeskApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    return widget.text if isinstance(widget, TextArea) else widget.value  # type: ignore[attr-defined]


def new_email() -> str:
    return f"burst{next(_numbers)}@acme.test"


async def open_add_user(app: QueueDeskApp, pilot: Pilot) -> AddUserScreen:
    await open_people(app, pilot)
    await pilot.press("a")
    await until(app, pilot, lambda: isinstance(app.screen, AddUserScreen), "the form opens")
    # `query`, not `query_one`: on a loaded machine the form may not be built yet when first asked.
    await until(app, pilot, lambda: app.focused in app.screen.query("#new-user-email"), "email focused")
    assert isinstance(app.screen, AddUserScreen)
    return app.screen


async def test_tab_in_a_burst_moves_on_in_the_add_user_form(make_app: MakeApp, own_org: Organization) -> None:
    email = new_email()
    app = make_app(token=own_org.key("admin"))  # the user is added to an organization of the test's own
    async with app.run_test(size=SIZE) as pilot:
        form = await open_add_user(app, pilot)
        fields = form.query_one("#new-user-email", Input), form.query_one("#new-user-name", Input)
        burst(app, email, "tab", "Kim Lee", "tab", "up", "ctrl+s")  # up: worker -> supervisor
        await until(app, pilot, lambda: isinstance(app.screen, PeopleScreen), "the user is added")
        assert [f.value for f in fields] == [email, "Kim Lee"]
    added = {u["email"]: u for u in own_org.client().get(f"/orgs/{own_org.id}/users").json()}[email]
    assert (added["name"], added["role"]) == ("Kim Lee", "supervisor")


async def test_enter_in_a_burst_moves_on_in_the_add_user_form(make_app: MakeApp) -> None:
    email = new_email()
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        form = await open_add_user(app, pilot)
        burst(app, email, "enter", "Kim Lee", "enter")
        await settle(app, pilot)
        assert field(app, "#new-user-email") == email
        assert field(app, "#new-user-name") == "Kim Lee"
        assert app.focused is form.query_one("#new-user-role", OptionList)


async def test_editing_keys_just_before_tab_act_on_the_field_they_were_typed_in(make_app: MakeApp) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await open_add_user(app, pilot)
        # left and backspace are the field's bindings, which act once the key has come back up to the
        # app: they must act on the field they were typed in, not on the one the tab went to.
        burst(app, "kim@acme.test", "left", "backspace", "tab", "Kim")
        await settle(app, pilot)
        assert (field(app, "#new-user-email"), field(app, "#new-user-name")) == ("kim@acme.tet", "Kim")


async def test_keys_typed_while_the_form_opens_wait_for_its_first_field(make_app: MakeApp) -> None:
    email = new_email()
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await open_people(app, pilot)
        app.push_screen(AddUserScreen())
        burst(app, email, "tab", "Kim")  # read before the form is built: nothing has the focus yet
        await until(app, pilot, lambda: isinstance(app.screen, AddUserScreen), "the form opens")
        await settle(app, pilot)
        assert (field(app, "#new-user-email"), field(app, "#new-user-name")) == (email, "Kim")


async def test_connect_screen_takes_address_and_key_in_one_burst(server: ServerProcess) -> None:
    app = QueueDeskApp(None, settings=AppSettings(), clock=ManualClock())
    async with app.run_test(size=SIZE) as pilot:
        burst(app, server.url, "tab", KEYS["admin"])  # at once, before the screen is even built
        await until(app, pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        await settle(app, pilot)
        assert (field(app, "#url"), field(app, "#token")) == (server.url, KEYS["admin"])
        burst(app, "enter")
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen), "connected")


async def create_in_one_burst(app: QueueDeskApp, pilot: Pilot, queue: dict, *keys: str) -> None:
    """Open the create form of `queue` and type `keys` at once, before the form is even built."""
    screen = await home(app, pilot)
    await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed")
    # The form is built only once the queue's blocks are read: what is typed meanwhile waits.
    app.open_create_task(next(q for q in screen.queues if q.id == queue["id"]))
    burst(app, *keys)
    await until(app, pilot, lambda: isinstance(app.screen, CreateTaskScreen), "the form opens")
    await until(app, pilot, lambda: app.screen.query(TaskForm), "the form is built")
    await settle(app, pilot)


async def test_create_task_form_keeps_keys_typed_while_it_loads(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    blocks = [
        {"id": "title", "name": "Title", "type": "text"},
        {
            "id": "photo",
            "name": "Photo",
            "type": "image",
            "image": {"placeholder": "https://example.com/p.png"},
        },
    ]
    queue = make_queue(admin, org_id, blocks)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await create_in_one_burst(app, pilot, queue, "A report", "tab", "https://example.com/a.png")
        burst(app, "ctrl+s")  # a priority key acts when it is read: sent once the form is there
        tasks = f"/orgs/{org_id}/queues/{queue['id']}/tasks"
        await until(app, pilot, lambda: admin.get(tasks).json()["tasks"], "the task is created")
    data = admin.get(tasks).json()["tasks"][0]["data"]
    assert data == {"title": "A report", "photo": "https://example.com/a.png"}


async def test_keys_after_a_tab_from_a_selection_in_a_burst(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await create_in_one_burst(app, pilot, queue, "tab", "2", "tab", "https://example.com/a.png")
        form = app.screen.query_one(TaskForm)
        assert form.values() == {"paragraph": None, "category": "blue", "photo": "https://example.com/a.png"}


async def test_queue_editor_fields_in_one_burst(make_app: MakeApp) -> None:
    name = f"Burst queue {next(_numbers)}"
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        app.open_queue_editor(None)
        burst(app, name, "tab", "Sorted in one go")  # before the editor's fields are built
        await until(app, pilot, lambda: isinstance(app.screen, QueueEditorScreen), "the editor opens")
        await until(app, pilot, lambda: app.screen.query("#queue-name"), "its fields are there")
        await settle(app, pilot)
        assert (field(app, "#queue-name"), field(app, "#queue-description")) == (name, "Sorted in one go")


async def test_work_screen_fields_in_one_burst(make_app: MakeApp, admin: httpx.Client, org_id: int) -> None:
    blocks = [{"id": f, "name": f.title(), "type": "text"} for f in ("summary", "cause", "fix")]
    queue = make_queue(admin, org_id, blocks)
    made = admin.post(f"/orgs/{org_id}/queues/{queue['id']}/tasks/create", json={"data": {"summary": None}})
    made.raise_for_status()
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        await open_work(app, pilot, queue)
        await shown_task(app, pilot)
        burst(app, "Disk full", "tab", "Logs never rotated", "tab", "Rotate daily", "shift+tab", "!")
        await settle(app, pilot)
        form = app.screen.query_one(TaskForm)
        assert form.values() == {
            "summary": "Disk full",
            "cause": "Logs never rotated!",
            "fix": "Rotate daily",
        }


async def test_the_history_filter_row_takes_a_burst_from_the_key_that_opens_it(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`f` and what follows in one burst: the letters go to the worker field (not to the screen,
    where `w` starts work), the dates after each tab to theirs, and enter applies them."""
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await show_tab(app, pilot, "tab-completed")
        burst(app, "f", "wes@acme.test", "tab", "2026-11-01", "tab", "2026-11-30", "tab", "printer")
        await until(app, pilot, lambda: field(app, "#filter-text") == "printer", "the burst is read")
        assert isinstance(app.screen, QueueScreen), "a letter of the burst reached the screen"
        assert [field(app, f"#filter-{name}") for name in ("worker", "from", "to", "text")] == [
            "wes@acme.test",
            "2026-11-01",
            "2026-11-30",
            "printer",
        ]
        burst(app, "enter")
        await settle(app, pilot)
        assert (
            screen.completed.filters["completed_by"] == "wes@acme.test"
            and screen.completed.filters["q"] == "printer"
        )


async def test_the_pending_search_takes_a_burst_from_the_slash_that_opens_it(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`/` then text and enter at once: every letter in the search (`p` is the screen's Pause, `n`
    its New task), and the search applied."""
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        view = screen.query_one(PendingView)
        burst(app, "/", "printer on fire", "enter")
        await until(app, pilot, lambda: view.search is not None, "the search is applied")
        assert isinstance(app.screen, QueueScreen), "a letter of the burst reached the screen"
        assert view.search == "printer on fire" and not screen.poller.paused


async def test_the_audit_filters_take_a_burst_from_the_key_that_opens_them(make_app: MakeApp) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        audit = await open_audit(app, pilot)
        await settle(app, pilot)
        burst(app, "f", "queue.flush", "tab", "ada@acme.test", "tab", "tab", "2026-11-01", "enter")
        await until(app, pilot, lambda: bool(audit.filters), "the filters are applied")
        assert isinstance(app.screen, PeopleScreen), "a letter of the burst reached the screen"
        assert audit.filters["action"] == "queue.flush" and audit.filters["actor"] == "ada@acme.test"


async def test_a_tab_chosen_by_key_as_the_queue_opens_stays_chosen(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`enter` on a queue and `2` at once: the tabs' own first activation (to Pending) must not
    take the Completed tab back once the key chose it."""
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, queue["id"])
        burst(app, "enter", "2")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue opens")
        await settle(app, pilot)
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == "tab-completed"
        assert app.focused is app.screen.query_one("#history")


async def test_the_flush_guard_takes_the_name_typed_with_the_key_that_opens_it(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`F` and the queue's name at once: every letter in the name field (`n`, `w`, `u` are the queue
    list's own keys), and `enter` then flushes once the counts are in."""
    queue = make_queue(admin, org_id, label="Burst flush")
    admin.post(f"/orgs/{org_id}/queues/{queue['id']}/tasks/create", json={"data": {"paragraph": "p"}})
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, queue["id"])
        burst(app, "F", queue["name"])
        await until(app, pilot, lambda: isinstance(app.screen, FlushScreen) and app.screen.counted, "counted")
        await settle(app, pilot)
        assert field(app, "#flush-name") == queue["name"]
        burst(app, "enter")
        await until(app, pilot, lambda: app.screen is screen, "the guard closes after flushing")
    left = admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()
    assert left["n_tasks"] == 0


async def test_a_flush_key_typed_behind_the_filters_enter_waits_for_the_list_it_filtered(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`/`, a filter, `enter`, `F` and a name at once: the filter's `enter` holds the keys after it
    until the list shows what it filtered, so `F` opens the guard on the queue the filter found, and
    the name after it goes into the guard's field."""
    queue = make_queue(admin, org_id, label="Held flush")
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        burst(app, "/", queue["name"], "enter", "F", "typed")
        await until(app, pilot, lambda: isinstance(app.screen, FlushScreen), "the guard opens")
        guard = app.screen
        assert isinstance(guard, FlushScreen) and guard.queue.id == queue["id"]
        await settle(app, pilot)
        assert field(app, "#flush-name") == "typed"
        assert screen.view.filter == queue["name"]


async def test_keys_after_the_flush_guards_escape_open_the_queue_on_the_tab_typed(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """`F escape enter 2` at once on the queue list: the guard opens and closes, `enter` opens the
    queue and `2` chooses its Completed tab (before: the guard's `escape` acted once it came back up
    from the guard's name field, after `enter` and `2` had gone into that field: the `2` was lost)."""
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, queue["id"])
        burst(app, "F", "escape", "enter", "2")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue opens")
        await until(
            app,
            pilot,
            lambda: app.screen.query(TabbedContent) and app.screen.query_one(TabbedContent).active,
            "the queue's tabs are shown",
        )
        await settle(app, pilot)
        assert app.screen.query_one(TabbedContent).active == "tab-completed"
        assert app.screen_stack[-2] is screen
