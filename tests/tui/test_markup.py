"""Text people write (queue, block, option and user names, values, addresses) shown as written.

Textual reads a plain str as markup in a Static, a Label, an option list and a notification:
"[/b]" raised MarkupError while painting (the app stopped) and "[red]…[/red]" coloured the text and
its tags vanished. Every test here paints such text where the app shows it, on a server of its own
(a user with such a name would show in other tests' queues and people lists).
"""

from collections.abc import Iterator
from copy import deepcopy

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Static, TextArea

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.flush import FlushScreen
from queuedesk.tui.modals.task import TaskScreen
from queuedesk.tui.modals.user_dialogs import RoleScreen
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.create import CreateTaskScreen
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.queue_editor import QueueEditorScreen
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.widgets.block_list import BlockList
from tests.conftest import make_queue
from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.support.pilot import app_for, screen_text, settle, until
from tests.tui.test_app import header, home, notes, open_queue, plain, shows
from tests.tui.test_people import open_people, point_at

SIZE = (120, 36)
ORG = 1
BROKEN = "Fix [/b] later"  # a closing tag with nothing open: MarkupError
COLOURED = "[red]Urgent[/red] now"  # a style: coloured, the tags gone
NAMES = [BROKEN, COLOURED]


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db_path = tmp_path_factory.mktemp("markup") / "qd.db"
    server = ServerProcess(db_path, ["--allow-private-webhooks"], seed=deepcopy(ROLES_SEED)).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def admin(own_server: ServerProcess) -> Iterator[httpx.Client]:
    with own_server.client("admin") as client:
        yield client


KIM = "Ki [/b][i]L[/i]"  # fits the People table's name column


@pytest.fixture(scope="module")
def bracket_worker(own_server: ServerProcess, admin: httpx.Client) -> Iterator[httpx.Client]:
    """A worker named like markup, with a key of their own."""
    made = admin.post(f"/orgs/{ORG}/users", json={"email": "kim@acme.test", "name": KIM, "role": "worker"})
    assert made.status_code in (200, 201), made.text
    key = admin.post(f"/orgs/{ORG}/users/{made.json()['id']}/keys").json()["key"]
    with httpx.Client(base_url=own_server.url, headers={"Authorization": f"Token {key}"}) as client:
        yield client


def blocks() -> list[dict]:
    return [
        {"id": "message", "name": "Message [/b]", "type": "text", "text": {"read_only": True}},
        {
            "id": "category",
            "name": "Category [red]now[/red]",
            "type": "single_selection",
            "single_selection": {
                "is_required": True,
                "options": [{"id": "a", "name": "[b]Alpha[/b]"}, {"id": "b", "name": "Beta [/i]"}],
            },
        },
        {"id": "note", "name": "Note [/]", "type": "text", "text": {"placeholder": "[red]say[/red] [/b]"}},
    ]


def add_task(admin: httpx.Client, queue: dict, message: str = "Fix [/b] then [red]now[/red]") -> int:
    made = admin.post(f"/orgs/{ORG}/queues/{queue['id']}/tasks/create", json={"data": {"message": message}})
    assert made.status_code == 200, made.text
    return made.json()["id"]


def queue_kim_works_in(admin: httpx.Client, bracket_worker: httpx.Client, name: str) -> dict:
    """A queue of two tasks, one of them held by the worker named like markup."""
    queue = make_queue(admin, ORG, blocks(), label=name)
    add_task(admin, queue)
    add_task(admin, queue)
    claimed = bracket_worker.post(f"/orgs/{ORG}/queues/{queue['id']}/tasks/next")
    assert claimed.status_code == 200, claimed.text
    return queue


async def from_home(app: QueueDeskApp, pilot: Pilot, queue: dict, key: str) -> None:
    screen = await home(app, pilot)
    await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
    screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
    await pilot.press(key)


@pytest.mark.parametrize("name", NAMES)
async def test_the_queue_screen_shows_names_and_who_works_as_written(
    own_server: ServerProcess, admin: httpx.Client, bracket_worker: httpx.Client, name: str
) -> None:
    queue = queue_kim_works_in(admin, bracket_worker, name)
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await settle(app, pilot)
        assert queue["name"] in header(app)
        counts = plain(screen.query_one("#queue-counts", Static))
        assert f"working now: {KIM}" in counts, counts
        assert shows(app, KIM) and shows(app, queue["name"]), screen_text(app)
        await pilot.press("3")
        await settle(app, pilot)
        assert shows(app, "Message [/b]") and shows(app, "Category [red]now[/red]"), screen_text(app)
        assert shows(app, "[b]Alpha[/b] (a), Beta [/i] (b)"), screen_text(app)


async def test_the_work_screen_shows_blocks_options_and_values_as_written(
    own_server: ServerProcess, admin: httpx.Client
) -> None:
    queue = make_queue(admin, ORG, blocks(), label=BROKEN)
    add_task(admin, queue)
    app = app_for(own_server, "worker", source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await from_home(app, pilot, queue, "w")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, WorkScreen) and app.screen.ready and app.screen.form is not None,
            "a task is on the work screen",
        )
        await settle(app, pilot)
        screen = app.screen
        for text in ("Message [/b]", "Fix [/b] then [red]now[/red]", "Category [red]now[/red]"):
            assert shows(app, text), screen_text(app)
        for text in ("[b]Alpha[/b]", "Beta [/i]", "Note [/]", "[red]say[/red] [/b]"):
            assert shows(app, text), screen_text(app)
        assert queue["name"] in plain(screen.query_one("#work-status", Static))
        await pilot.press("enter")  # the required choice is missing: the status line names it
        await settle(app, pilot)
        status = plain(screen.query_one("#work-status", Static))
        assert "Category [red]now[/red] is required" in status, status
        assert shows(app, "Category [red]now[/red] is required"), screen_text(app)


async def test_creating_a_task_says_where_as_written(own_server: ServerProcess, admin: httpx.Client) -> None:
    queue = make_queue(admin, ORG, blocks(), label=BROKEN)
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await from_home(app, pilot, queue, "n")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, CreateTaskScreen) and app.screen.query(TaskForm),
            "the create form is shown",
        )
        await pilot.press(*"hello")
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the created task is shown")
        await settle(app, pilot)
        assert any(f"created in {queue['name']}." in n for n in notes(app)), notes(app)
        assert shows(app, f"created in {queue['name']}."), screen_text(app)


@pytest.mark.parametrize("name", NAMES)
async def test_the_flush_guard_shows_the_name_and_who_works_as_written(
    own_server: ServerProcess, admin: httpx.Client, bracket_worker: httpx.Client, name: str
) -> None:
    queue = queue_kim_works_in(admin, bracket_worker, name)
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await from_home(app, pilot, queue, "F")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, FlushScreen) and app.screen.counted,
            "the flush guard counted",
        )
        guard = app.screen
        await settle(app, pilot)
        assert queue["name"] in str(guard.query_one("#flush-title", Label).visual), screen_text(app)
        counts = plain(guard.query_one("#flush-counts", Static))
        assert "2 tasks will be deleted" in counts and f"working in it now: {KIM}" in counts, counts
        assert shows(app, f"Flush “{queue['name']}”?") and shows(app, KIM), screen_text(app)
        field = guard.query_one("#flush-name", Input)
        field.focus()
        await pilot.press(*"wrong", "enter")  # the toast names the queue
        await settle(app, pilot)
        assert any("Not flushed" in n and queue["name"] in n for n in notes(app)), notes(app)
        field.value = queue["name"]
        await pilot.press("enter")
        await until(app, pilot, lambda: not isinstance(app.screen, FlushScreen), "the guard closes")
        await settle(app, pilot)
        assert any(f"from {queue['name']}." in n for n in notes(app)), notes(app)
        assert shows(app, f"from {queue['name']}."), screen_text(app)


async def test_the_people_screen_shows_a_users_name_as_written(
    own_server: ServerProcess, bracket_worker: httpx.Client
) -> None:
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        await settle(app, pilot)
        assert shows(app, KIM), screen_text(app)
        await point_at(app, pilot, view, "kim@acme.test")
        await pilot.press("r")
        await until(app, pilot, lambda: isinstance(app.screen, RoleScreen), "the roles are offered")
        await settle(app, pilot)
        assert shows(app, f"Role of {KIM} (kim@acme.test)"), screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("d")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "disabling asks first")
        await settle(app, pilot)
        assert shows(app, f"Disable {KIM} (kim@acme.test)?"), screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)


async def test_the_queue_editor_lists_block_names_as_written(
    own_server: ServerProcess, admin: httpx.Client
) -> None:
    queue = make_queue(admin, ORG, blocks(), label=COLOURED)
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        await pilot.press("E")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, QueueEditorScreen) and app.screen.query(BlockList),
            "the editor is open",
        )
        await settle(app, pilot)
        listing = app.screen.query_one(BlockList)
        assert isinstance(listing, OptionList)
        assert shows(app, "1. Message [/b] · message"), screen_text(app)
        assert shows(app, "2. Category [red]now[/red] · category"), screen_text(app)


async def test_an_address_that_looks_like_markup_is_said_as_written(own_server: ServerProcess) -> None:
    address = "http://127.0.0.1:9/[/b][red]x[/red]"
    app = QueueDeskApp(
        Target(address, KEYS["admin"], None, "test"), settings=AppSettings(), clock=ManualClock()
    )
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(
            app,
            pilot,
            lambda: (
                isinstance(app.screen, ConnectScreen)
                and "Cannot reach" in plain(app.screen.query_one("#connect-problem"))
            ),
            "the connect screen says why",
        )
        await settle(app, pilot)
        assert f"Cannot reach {address}." in plain(app.screen.query_one("#connect-problem")), screen_text(app)
        assert shows(app, address), screen_text(app)


@pytest.mark.parametrize("name", NAMES)
async def test_the_palette_lists_and_opens_a_queue_named_like_markup(
    own_server: ServerProcess, admin: httpx.Client, name: str
) -> None:
    queue = make_queue(admin, ORG, blocks(), label=name)
    app = app_for(own_server, "supervisor", source="test")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        await pilot.press("ctrl+p")  # every entry is listed before anything is typed
        await pilot.pause(0.3)
        await settle(app, pilot)
        await pilot.press(*queue["name"])
        await pilot.pause(0.3)
        await until(
            app, pilot, lambda: shows(app, f"Open queue {queue['name']}"), "the palette lists it as written"
        )
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue opens")
        assert app.screen.queue.id == queue["id"]


async def test_a_webhook_address_that_looks_like_markup_is_said_as_written(
    own_server: ServerProcess, admin: httpx.Client
) -> None:
    queue = make_queue(admin, ORG, blocks(), label=COLOURED)
    target = "http://127.0.0.1:9/hook?q=[/b][red]x[/red]"
    app = app_for(own_server, source="test")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await pilot.press("5")
        await settle(app, pilot)
        view = screen.query_one(WebhookView)
        await until(app, pilot, lambda: view.target is not None, "the target is read")
        await pilot.press("e")
        app.screen.query_one("#webhook-target", Input).value = target
        await pilot.press("enter")
        await until(app, pilot, lambda: view.target == target, "the target is saved")
        await settle(app, pilot)
        assert any(f"sent to {target}." in n for n in notes(app)), notes(app)
        assert shows(app, "Webhook target saved"), screen_text(app)  # the toast, painted
        await pilot.press("D")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "removing asks first")
        await settle(app, pilot)
        assert f"no longer sent to {target}." in plain(app.screen.query_one("#confirm-explain", Static))
        assert target in screen_text(app)
        await pilot.press("escape")


async def test_a_multi_line_fields_placeholder_is_shown_as_written(
    own_server: ServerProcess, admin: httpx.Client
) -> None:
    queue = make_queue(admin, ORG, blocks(), label=COLOURED)
    made = admin.post(
        f"/orgs/{ORG}/queues/{queue['id']}/tasks/create", json={"data": {"message": "m", "note": "one\ntwo"}}
    )
    assert made.status_code == 200, made.text
    app = app_for(own_server, "worker", source="test")
    async with app.run_test(size=SIZE) as pilot:
        await from_home(app, pilot, queue, "w")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, WorkScreen) and app.screen.ready and app.screen.query(TextArea),
            "the task's note is a multi-line field",
        )
        app.screen.query_one(TextArea).text = ""  # emptied: its placeholder shows
        await settle(app, pilot)
        assert shows(app, "[red]say[/red] [/b]"), screen_text(app)


async def test_a_filter_typed_like_markup_is_shown_as_written(own_server: ServerProcess) -> None:
    # The "no queue name contains …" line repeated the filter as markup: typing "[/b" stopped the app.
    app = app_for(own_server, source="test")
    async with app.run_test(size=(100, 30)) as pilot:
        await home(app, pilot)
        await pilot.press("slash", *"[/b", "]", *"Zq")  # no queue's name holds it (others hold "[/b]")
        empty = app.screen.query_one("#queues-empty", Static)
        await until(
            app, pilot, lambda: "No queue name contains “[/b]Zq”" in plain(empty), "the filter said as typed"
        )
        assert "filter “[/b]Zq”" in plain(app.screen.query_one("#queues-status", Static))


async def test_a_notification_carrying_markup_is_shown_as_written(own_server: ServerProcess) -> None:
    # Notifications carry names, addresses and servers' words; a theme named in the file is one.
    app = QueueDeskApp(
        Target(own_server.url, KEYS["admin"], None, "test"),
        settings=AppSettings(theme="[/b]dark"),
        clock=ManualClock(),
    )
    async with app.run_test(size=(100, 30), notifications=True) as pilot:  # toasts painted
        await home(app, pilot)
        await settle(app, pilot)
        assert shows(app, "'[/b]dark' is not a theme"), screen_text(app)
