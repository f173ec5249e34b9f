"""The terminal app against a real `queuedesk serve`: what each role sees, what each key does, and
what each failure shows (never a traceback). Time moves only with `clock.advance`.
"""

import asyncio
import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from rich.text import Text
from textual import events
from textual.command import CommandList
from textual.content import Content
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static, TabbedContent

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.flush import FlushScreen
from queuedesk.tui.modals.keys import KeysScreen
from queuedesk.tui.modals.task import TaskScreen
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.queues import QueuesScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.widgets.context_bar import ContextBar
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.support import KEYS, ROLES_SEED, Organization, ServerProcess, execute_sql, free_port, run_cli
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp

SIZE = (100, 30)
_tags = itertools.count(1)


# --- reading what is on the screen ---------------------------------------------------------------


def plain(widget: Widget) -> str:
    """The text a Static shows, whatever it was given (a str, read as markup or not as the Static
    reads it, Content, Text, or a Rich renderable)."""
    assert isinstance(widget, Static)
    content = widget.content
    if isinstance(content, str | Content):
        return widget.visual.plain  # type: ignore[attr-defined]  # a str read as the widget reads it
    if isinstance(content, Text):
        return content.plain
    console = Console(width=160, file=io.StringIO(), record=True, color_system=None)
    console.print(content)
    return console.export_text()


def shows(app: QueueDeskApp, text: str) -> bool:
    """`text` is painted on the screen (wrapped lines and box borders aside)."""
    words = " ".join(screen_text(app).replace("│", " ").split())
    return " ".join(text.split()) in words


def footer_line(app: QueueDeskApp) -> str:
    return screen_text(app).splitlines()[-1]


def header(app: QueueDeskApp) -> str:
    return plain(app.screen.query_one(ContextBar))


def cells(table: DataTable, key: object) -> list[str]:
    """The row keyed `key` (the queue list keys its rows by queue id)."""
    return [str(cell) for cell in table.get_row(str(key))]


def task_row(table: DataTable, task_id: int) -> list[str]:
    """The row whose first column (Task) is `task_id`."""
    rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
    found = [row for row in rows if row[0] == str(task_id)]
    assert len(found) == 1, (task_id, [row[0] for row in rows])
    return found[0]


def notes(app: QueueDeskApp) -> list[str]:
    return [str(said) for said in app.said]  # toasts expire; what was said stays


async def paste(app: QueueDeskApp, pilot: Pilot, text: str) -> None:
    """What the terminal sends when text is pasted into the focused field."""
    assert app.focused is not None
    app.focused.post_message(events.Paste(text))
    await pilot.pause()


async def home(app: QueueDeskApp, pilot: Pilot) -> QueuesScreen:
    await until(
        app,
        pilot,
        lambda: isinstance(app.screen, QueuesScreen) and app.screen.loaded,
        "the queue list is shown",
    )
    assert isinstance(app.screen, QueuesScreen)
    return app.screen


async def connect_problem(app: QueueDeskApp, pilot: Pilot, text: str) -> str:
    """Wait until the Connect screen says something containing `text`; return what it says."""

    def says() -> bool:
        return isinstance(app.screen, ConnectScreen) and text in plain(
            app.screen.query_one("#connect-problem", Static)
        )

    await until(app, pilot, says, f"the Connect screen says {text!r}")
    assert app.is_running and isinstance(app.screen, ConnectScreen)
    assert app.screen.query_one("#connect-box").display
    assert shows(app, text), screen_text(app)
    return plain(app.screen.query_one("#connect-problem", Static))


def point_at(screen: QueuesScreen, queue_id: int) -> None:
    screen.table.move_cursor(row=screen.table.get_row_index(str(queue_id)))


async def open_queue(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> QueueScreen:
    screen = await home(app, pilot)
    await until(app, pilot, lambda: str(queue_id) in screen.table.rows, "the queue is listed")
    point_at(screen, queue_id)
    await pilot.press("enter")
    await until(
        app,
        pilot,
        lambda: isinstance(app.screen, QueueScreen) and app.screen.detail is not None,
        "the queue screen is loaded",
    )
    assert isinstance(app.screen, QueueScreen)
    return app.screen


async def show_tab(app: QueueDeskApp, pilot: Pilot, pane: str) -> None:
    app.screen.query_one(TabbedContent).active = pane
    await settle(app, pilot)


# --- the server's state, seen by other clients ----------------------------------------------------


def qpath(org: int, queue: dict) -> str:
    return f"/orgs/{org}/queues/{queue['id']}"


def create(admin: httpx.Client, org: int, queue: dict, n: int = 1, **data: Any) -> list[int]:
    ids = []
    for i in range(n):
        response = admin.post(
            f"{qpath(org, queue)}/tasks/create", json={"data": {"paragraph": f"task {i}", **data}}
        )
        assert response.status_code == 200, response.text
        ids.append(response.json()["id"])
    return ids


def claim(client: httpx.Client, org: int, queue: dict) -> dict:
    response = client.post(f"{qpath(org, queue)}/tasks/next")
    assert response.status_code == 200, response.text
    return response.json()


def complete(client: httpx.Client, org: int, queue: dict, data: dict | None = None) -> dict:
    task = claim(client, org, queue)
    response = client.post(
        f"{qpath(org, queue)}/tasks/{task['id']}/complete", json={"data": data or {"category": "red"}}
    )
    assert response.status_code == 200, response.text
    return response.json()


def pending_count(admin: httpx.Client, org: int, queue: dict) -> int:
    return admin.get(qpath(org, queue)).json()["n_tasks"]


def completed_ids(admin: httpx.Client, org: int, queue: dict) -> list[int]:
    page = admin.get(f"{qpath(org, queue)}/tasks/completed", params={"limit": 1000}).json()
    return [t["id"] for t in page["tasks"]]


# --- start and connect ---------------------------------------------------------------------------


async def test_a_good_key_opens_the_queue_list(make_app: MakeApp, server: ServerProcess) -> None:
    app = make_app("admin")
    async with app.run_test(size=(120, 30)) as pilot:  # the address is shown when there is room
        screen = await home(app, pilot)
        names = [str(screen.table.get_row_at(i)[0]) for i in range(screen.table.row_count)]
        assert "Categorization" in names  # the seeded queue
        top = header(app)
        assert server.url in top and "Acme" in top and "Ada (admin)" in top
        assert "every 5 s" in top and "updated 0 s ago" in top
        assert "basic API" not in top
        await until(app, pilot, lambda: "Categorization" in screen_text(app), "the list is painted")


async def test_without_a_target_the_connect_screen_asks_and_connects(
    server: ServerProcess, clock: ManualClock
) -> None:
    app = QueueDeskApp(None, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ConnectScreen)
        assert app.focused is app.screen.query_one("#url", Input)
        assert not app.screen.query_one("#org-row").display  # asked only when the server cannot tell
        await paste(app, pilot, server.url)  # as the screen says: paste the address and the key
        await pilot.press("tab")
        assert app.focused is app.screen.query_one("#token", Input)
        await paste(app, pilot, KEYS["supervisor"])
        assert KEYS["supervisor"] not in screen_text(app)  # masked
        await pilot.press("enter")
        await home(app, pilot)
        assert "Sue (supervisor)" in header(app)


async def test_a_wrong_key_says_the_key_was_refused(make_app: MakeApp) -> None:
    app = make_app("admin", token="acme-ada-not-the-right-key")
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, "refused this API key")
        assert "Check it" in said
        assert app.session is None


async def test_an_unreachable_server_says_it_cannot_reach_it(make_app: MakeApp) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    app = make_app("admin", url=url)
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, f"Cannot reach {url}")
        assert "Is the server running" in said


async def test_a_wrong_organization_names_the_keys_organization(
    server: ServerProcess, clock: ManualClock, org_id: int, other_org: dict[str, int]
) -> None:
    target = Target(server.url, KEYS["admin"], other_org["org"], "test")
    app = QueueDeskApp(target, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, "belongs to Acme")
        assert f"organization {org_id}" in said and f"organization {other_org['org']}" in said
        assert app.session is None


async def test_the_basic_api_asks_for_the_organization_and_says_what_is_missing(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await connect_problem(app, pilot, "enter its id")
        assert app.screen.query_one("#org-row").display
        field = app.screen.query_one("#org", Input)
        assert app.focused is field
        await pilot.press(*str(BASIC_ORG), "enter")
        screen = await home(app, pilot)
        assert "basic API" in header(app)
        assert [str(screen.table.get_row_at(i)[0]) for i in range(screen.table.row_count)] == [
            "Categorization",
            "Transcription",
        ]
        queue = await open_queue(app, pilot, BASIC_QUEUE)
        assert "basic API" in header(app)
        note = queue.query_one("#pending-note", Static)
        assert note.display and "cannot list tasks that are not completed" in plain(note)
        assert not queue.pending.display
        assert "cannot list tasks that are not completed" in screen_text(app)
        assert app.is_running


async def test_the_organization_field_is_drawn_whole(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await connect_problem(app, pilot, "enter its id")
        field = app.screen.query_one("#org", Input)
        row = app.screen.query_one("#org-row")
        assert field.region.height >= 1  # compact: one line, no border
        assert row.region.contains_region(field.region), (
            f"the organization field {field.region} is cut by its row {row.region}: its bottom border is not drawn"
        )


# --- roles ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "supervisor", "worker"])
async def test_each_role_sees_only_its_actions(make_app: MakeApp, role: str) -> None:
    app = make_app(role)
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        seeded = next(q for q in screen.queues if q.name == "Categorization")
        for current in (screen, await open_queue(app, pilot, seeded.id)):
            await until(app, pilot, lambda: "Quit" in footer_line(app), "the footer shows this screen's keys")
            keys = set(current.active_bindings)
            footer = footer_line(app)
            assert ("F" in keys) == (role == "admin"), (role, sorted(keys))
            assert ("F Flush" in footer) == (role == "admin"), footer
            if role != "admin":
                assert "n" not in keys and "New task" not in footer
            if role == "supervisor":
                assert "w" not in keys and "Work" not in footer
            # Where the screen has them, the actions are governed by the role, bound to a key or not.
            assert current.check_action("flush", ()) is (role == "admin")
            if hasattr(current, "action_create"):
                assert current.check_action("create", ()) is (role == "admin")
            if hasattr(current, "action_work"):
                assert current.check_action("work", ()) is (role != "supervisor")
            # Refresh and pause for every role (out of the queue screen's footer, which has no room for
            # them at 80 columns: the lists are live, and the header says "p resumes"; in f1).
            assert {"r", "p"} <= keys and "f1 Keys" in footer


# --- live refresh ---------------------------------------------------------------------------------


async def test_live_refresh_shows_other_clients_work_and_keeps_the_cursor(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    tag = next(_tags)
    a, b, c = (fresh(f"Lively{tag} {x}") for x in "abc")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        table = screen.table
        point_at(screen, b["id"])
        assert cells(table, b["id"])[1:3] == ["0", "—"]

        create(admin, org_id, b, 2)
        claim(worker, org_id, b)
        await settle(app, pilot)
        assert cells(table, b["id"])[1:3] == ["0", "—"]  # nothing moves until the interval is up
        clock.advance(5)
        await settle(app, pilot)
        assert cells(table, b["id"])[1:3] == ["2", "Wes"]
        assert table.current_key == str(b["id"])
        assert "updated 0 s ago" in header(app)

        # Sorted by pending (s: name, s: pending), the busiest queue first; the cursor follows b.
        await pilot.press("s", "s")
        assert "sorted by pending" in plain(screen.query_one("#queues-status", Static))
        assert table.current_key == str(b["id"])
        create(admin, org_id, c, 3)
        clock.advance(5)
        await settle(app, pilot)
        assert cells(table, c["id"])[1] == "3"
        assert table.get_row_index(str(c["id"])) < table.get_row_index(str(b["id"]))
        assert table.current_key == str(b["id"])

        # Filtered to this test's three queues: the cursor stays on b while the others change.
        await pilot.press("slash", *f"Lively{tag} ", "enter")
        assert sorted(str(r.value) for r in table.rows) == sorted(str(q["id"]) for q in (a, b, c))
        assert table.current_key == str(b["id"])
        create(admin, org_id, a, 4)
        claim(worker, org_id, a)
        create(admin, org_id, b, 1)
        clock.advance(5)
        await settle(app, pilot)
        assert cells(table, a["id"])[1:3] == ["4", "Wes"]
        assert cells(table, b["id"])[1] == "3"
        assert table.current_key == str(b["id"])
        assert "3 of" in plain(screen.query_one("#queues-status", Static))


async def test_pause_stops_polls_and_r_refreshes_now(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Paused")
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await pilot.press("p")
        assert "paused (p resumes)" in header(app)
        assert any("paused" in n for n in notes(app))
        create(admin, org_id, queue, 2)
        for _ in range(4):
            clock.advance(5)
            await settle(app, pilot, 1)
        assert cells(screen.table, queue["id"])[1] == "0"
        assert "paused" in header(app) and "not answering" not in header(app)

        await pilot.press("r")
        await settle(app, pilot)
        assert cells(screen.table, queue["id"])[1] == "2"
        assert "updated 0 s ago" in header(app)

        await pilot.press("p")  # resumes: polls again on the interval
        await settle(app, pilot)
        create(admin, org_id, queue, 1)
        clock.advance(5)
        await settle(app, pilot)
        assert cells(screen.table, queue["id"])[1] == "3"
        assert "paused" not in header(app)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "own.db", seed=ROLES_SEED).start()
    yield process
    process.stop()


async def test_a_server_that_stops_mid_session_turns_the_header_to_a_warning_and_comes_back(
    make_app: MakeApp, clock: ManualClock, own_server: ServerProcess
) -> None:
    app = make_app("admin", url=own_server.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        assert "Categorization" in screen_text(app)
        own_server.stop()

        clock.advance(5)  # one missed refresh: said once, not yet stale
        await settle(app, pilot)
        assert screen.poller.failures == 1 and not screen.poller.stale
        assert any("Server unreachable" in n for n in notes(app)), notes(app)
        # ... with what to do as its last line
        (said,) = [n for n in app.said if "Server unreachable" in str(n.title)]
        assert said.message.splitlines()[-1].startswith(
            "Is the server running at the address you connected to?"
        )
        assert "not answering" not in header(app)

        clock.advance(5)  # two missed refreshes: the header warns
        await settle(app, pilot)
        assert screen.poller.stale
        assert "updated 10 s ago · not answering" in header(app)
        bar = screen.query_one(ContextBar).content
        assert isinstance(bar, Text)
        assert any(
            "red" in str(span.style) and "not answering" in bar.plain[span.start : span.end]
            for span in bar.spans
        )
        assert sum("Server unreachable" in n for n in notes(app)) == 1  # once per outage
        assert app.is_running and isinstance(app.screen, QueuesScreen)
        assert "Categorization" in screen_text(app)  # the last known list stays

        again = ServerProcess(own_server.db_path, port=own_server.port).start()  # same port and database
        try:
            clock.advance(5)
            await settle(app, pilot)
            assert screen.poller.failures == 0 and not screen.poller.stale
            assert "not answering" not in header(app) and "updated 0 s ago" in header(app)
            assert any("answers again" in n for n in notes(app)), notes(app)
        finally:
            again.stop()


# --- the flush guard ------------------------------------------------------------------------------


@pytest.fixture
def mixed(admin: httpx.Client, worker: httpx.Client, org_id: int, fresh) -> dict:
    """A queue with 2 completed tasks, 1 held by Wes and 3 new ones."""
    queue = fresh("Flushable")
    create(admin, org_id, queue, 6)
    complete(worker, org_id, queue)
    complete(worker, org_id, queue)
    claim(worker, org_id, queue)
    assert pending_count(admin, org_id, queue) == 4
    return queue


async def open_flush(app: QueueDeskApp, pilot: Pilot) -> FlushScreen:
    await pilot.press("F")
    await until(
        app,
        pilot,
        lambda: isinstance(app.screen, FlushScreen) and app.screen.counted,
        "the flush guard counted",
    )
    assert isinstance(app.screen, FlushScreen)
    return app.screen


async def test_the_flush_guard_deletes_nothing_unless_the_exact_name_is_typed(
    make_app: MakeApp, admin: httpx.Client, org_id: int, mixed: dict
) -> None:
    done = completed_ids(admin, org_id, mixed)
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(mixed["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, mixed["id"])

        guard = await open_flush(app, pilot)
        counts = plain(guard.query_one("#flush-counts", Static))
        assert "4 tasks will be deleted (3 new, 0 open, 1 in progress)" in counts
        assert "working in it now: Wes" in counts
        assert mixed["name"] in plain(guard.query_one("#flush-title"))
        name = guard.query_one("#flush-name", Input)
        assert app.focused is name and name.value == ""  # the name is typed at once
        assert name.placeholder != mixed["name"]  # an empty field does not look filled in
        assert guard.query_one("#flush-run", Button).disabled
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and pending_count(admin, org_id, mixed) == 4

        guard = await open_flush(app, pilot)
        await pilot.press("tab", "enter")  # from the name to Cancel (Flush is not enabled)
        await settle(app, pilot)
        assert app.screen is screen and pending_count(admin, org_id, mixed) == 4

        guard = await open_flush(app, pilot)
        await pilot.press("enter")  # an empty name
        await settle(app, pilot)
        assert app.screen is guard and pending_count(admin, org_id, mixed) == 4
        assert any("Not flushed" in n for n in notes(app)), notes(app)

        await pilot.press(*mixed["name"].lower(), "enter")  # not exactly the name
        await settle(app, pilot)
        assert app.screen is guard and pending_count(admin, org_id, mixed) == 4
        assert guard.query_one("#flush-run", Button).disabled
        assert sum("Not flushed" in n for n in notes(app)) == 2
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and pending_count(admin, org_id, mixed) == 4

        guard = await open_flush(app, pilot)
        await pilot.press(*mixed["name"])
        assert not guard.query_one("#flush-run", Button).disabled
        await pilot.press("enter")
        await until(app, pilot, lambda: app.screen is screen, "the guard closes after flushing")
        assert pending_count(admin, org_id, mixed) == 0
        assert completed_ids(admin, org_id, mixed) == done  # the completed ones stay
        assert any("Queue flushed" in n and "Deleted 4 tasks" in n for n in notes(app)), notes(app)
        await until(
            app, pilot, lambda: cells(screen.table, mixed["id"])[1:3] == ["0", "—"], "the counts refresh"
        )


async def test_enter_again_while_the_flush_runs_flushes_once_and_says_it_is_flushing(
    make_app: MakeApp, admin: httpx.Client, org_id: int, mixed: dict
) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(mixed["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, mixed["id"])
        guard = await open_flush(app, pilot)
        client = app.session.client  # type: ignore[union-attr]
        flush, asked, may_flush = client.flush, [], asyncio.Event()

        async def slow_flush(queue_id: int) -> None:  # a busy server: the flush takes a while
            asked.append(queue_id)
            await may_flush.wait()
            await flush(queue_id)

        client.flush = slow_flush  # type: ignore[method-assign]
        await pilot.press(*mixed["name"])
        for _ in range(2):  # both queued at once: the second is read before the first's flush starts
            app.post_message(events.Key("enter", "\r"))
        for _ in range(400):  # `until` waits for the app's work, held here until may_flush is set
            if any("Already flushing" in n for n in notes(app)):
                break
            await pilot.pause(0.05)
        run = guard.query_one("#flush-run", Button)
        assert app.screen is guard and run.disabled and str(run.label) == "Flushing…"
        assert pending_count(admin, org_id, mixed) == 4

        may_flush.set()
        await until(app, pilot, lambda: app.screen is screen, "the guard closes after flushing")
        assert asked == [mixed["id"]]
        assert pending_count(admin, org_id, mixed) == 0
        assert sum("Already flushing" in n for n in notes(app)) == 1, notes(app)
        assert any("Deleted 4 tasks" in n for n in notes(app)), notes(app)


@pytest.mark.parametrize("role", ["supervisor", "worker"])
async def test_only_admins_can_open_the_flush_guard(
    make_app: MakeApp, admin: httpx.Client, org_id: int, mixed: dict, role: str
) -> None:
    app = make_app(role)
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(mixed["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, mixed["id"])
        await pilot.press("F")
        await settle(app, pilot)
        assert app.screen is screen
        queue = await open_queue(app, pilot, mixed["id"])
        await pilot.press("F")
        await settle(app, pilot)
        assert app.screen is queue
        assert not app.screen_stack[-1:] or not isinstance(app.screen, FlushScreen)
    assert pending_count(admin, org_id, mixed) == 4


# --- the queue screen -----------------------------------------------------------------------------


async def test_the_pending_tab_lists_tasks_and_who_holds_them(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, mixed: dict
) -> None:
    held = admin.get(f"{qpath(org_id, mixed)}/tasks", params={"status": "in_progress"}).json()["tasks"]
    waiting = admin.get(f"{qpath(org_id, mixed)}/tasks", params={"status": "new"}).json()["tasks"]
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(app, pilot, mixed["id"])
        await until(app, pilot, lambda: queue.pending.row_count == 4, "four pending rows")
        (task,) = held
        row = task_row(queue.pending, task["id"])
        assert row[1] == "in_progress" and row[2] == "Wes"
        assert row[3] != "—"  # how long it has been held
        for other in waiting:
            assert task_row(queue.pending, other["id"])[1:5] == ["new", "—", "—", other_created(other)]
        counts = plain(queue.query_one("#queue-counts", Static))
        assert "4 pending (1 in progress)" in counts and "2 completed" in counts
        assert "working now: Wes" in counts

        # Live: a task released elsewhere shows as no longer held after one interval.
        released = worker.post(f"{qpath(org_id, mixed)}/tasks/{task['id']}/release")
        assert released.status_code == 200, released.text
        clock.advance(5)
        await settle(app, pilot)
        assert (
            task_row(queue.pending, task["id"])[1] == "open" and task_row(queue.pending, task["id"])[2] == "—"
        )
        assert "working now: nobody" in plain(queue.query_one("#queue-counts", Static))


def other_created(task: dict) -> str:
    return task["created_at"].replace("T", " ")[:16]


async def test_the_blocks_tab_shows_each_blocks_name_id_type_and_settings(make_app: MakeApp, fresh) -> None:
    made = fresh("Blocks")
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(app, pilot, made["id"])
        await show_tab(app, pilot, "tab-blocks")
        blocks = queue.query_one("#blocks", DataTable)
        rows = [[str(c) for c in blocks.get_row_at(i)] for i in range(blocks.row_count)]
        assert rows == [
            ["Paragraph", "paragraph", "text", "placeholder: What is going on?"],
            [
                "Category",
                "category",
                "single_selection",
                "required · options: Red (red), Blue (blue), Green (green)",
            ],
            ["Photo", "photo", "image", "placeholder: https://example.com/p.png"],
        ]
        assert blocks.display and "single_selection" in screen_text(app)


async def open_completed_task(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> QueueScreen:
    """Open the queue's only completed task from its history; the queue screen stays below it."""
    queue = await open_queue(app, pilot, queue_id)
    await show_tab(app, pilot, "tab-completed")
    await until(app, pilot, lambda: queue.history.row_count == 1, "the completed task is listed")
    queue.history.focus()
    await pilot.press("enter")
    await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the task view opens")
    return queue


async def test_a_completed_task_opens_with_values_as_their_types_read_and_raw_json(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    made = fresh("Readable")
    create(admin, org_id, made, 1)
    photo = "https://example.com/printer.png"
    task = complete(
        worker, org_id, made, {"paragraph": "Printer on fire", "category": "blue", "photo": photo}
    )
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_completed_task(app, pilot, made["id"])
        assert task_row(queue.history, task["id"])[2] == "wes@acme.test"
        view = app.screen
        values = plain(view.query_one("#task-values", Static))
        assert "Printer on fire" in values and photo in values
        assert "Blue" in values and "blue" not in values.replace("Blue", "")  # the option's name
        heading = plain(view.query_one("#task-heading", Static))
        assert f"Task {task['id']}" in heading and "completed" in heading and "wes@acme.test" in heading

        await pilot.press("j")
        raw = plain(view.query_one("#task-values", Static))
        assert '"category": "blue"' in raw and f'"id": {task["id"]}' in raw
        assert '"completed_by": "wes@acme.test"' in raw
        await pilot.press("j")
        assert "Blue" in plain(view.query_one("#task-values", Static))

        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is queue
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, QueuesScreen)


async def test_a_value_that_looks_like_markup_is_shown_as_written(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    # A Rich table reads a str as markup: "[/b]" in a worker's text raised MarkupError while painting.
    made = fresh("Marked values")
    create(admin, org_id, made, 1)
    text = "Fix [/b] then [red]now[/red]"
    task = complete(worker, org_id, made, {"paragraph": text, "category": "blue", "photo": None})
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_completed_task(app, pilot, made["id"])
        await settle(app, pilot)
        assert text in plain(app.screen.query_one("#task-values", Static))
        assert text in screen_text(app)
        assert task_row(queue.history, task["id"])


# --- keys, palette, a lost key --------------------------------------------------------------------


@pytest.mark.parametrize("key", ["question_mark", "f1"])
async def test_the_keys_screen_lists_the_keys_of_the_screen(make_app: MakeApp, key: str) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press(key)
        await settle(app, pilot, 1)
        assert isinstance(app.screen, KeysScreen)
        listed = plain(app.screen.query_one("#keys-table", Static))
        for words in ("Flush", "Filter", "Sort", "Refresh", "Pause", "Quit", "ctrl+p"):
            assert words in listed, listed
        await pilot.press("escape")
        assert isinstance(app.screen, QueuesScreen)


async def test_the_keys_screen_lists_keys_the_footer_hides(make_app: MakeApp) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        await pilot.press("f1")
        await settle(app, pilot, 1)
        listed = plain(app.screen.query_one("#keys-table", Static))
        # "key  description  id": a tab's key and its one-word description come first
        lines = {parts[1]: parts[0] for parts in map(str.split, listed.splitlines()) if len(parts) > 1}
        # The tab keys are hidden from the footer (show=False); the keys screen is where they are told.
        assert (lines.get("Pending"), lines.get("Completed"), lines.get("Webhook")) == ("1", "2", "5"), listed


async def test_the_keys_screen_of_a_supervisor_has_no_flush(make_app: MakeApp) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("f1")
        listed = plain(app.screen.query_one("#keys-table", Static))
        assert "Refresh" in listed and "Flush" not in listed


async def test_the_palette_opens_a_queue(make_app: MakeApp, fresh) -> None:
    made = fresh("Palette")
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(made["id"]) in screen.table.rows, "the queue is listed")
        await pilot.press("ctrl+p", *made["name"])
        await pilot.pause(0.3)
        await until(
            app, pilot, lambda: f"Open queue {made['name']}" in screen_text(app), "the palette lists it"
        )
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue opens")
        assert app.screen.queue.id == made["id"]
        assert made["name"] in header(app)


async def test_a_key_revoked_mid_session_returns_to_connect_with_a_word(
    make_app: MakeApp, clock: ManualClock, server: ServerProcess, own_org: Organization
) -> None:
    email = own_org.email("supervisor")
    made = run_cli(["keys", "create", "--db", server.db_url, "--email", email])
    assert made.returncode == 0, made.stderr
    app = make_app("supervisor", token=made.stdout.strip())
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        execute_sql(
            server.db_url,
            "UPDATE api_keys SET revoked_at = created_at WHERE id = (SELECT max(id) FROM api_keys"
            f" WHERE user_id = (SELECT id FROM users WHERE email = '{email}'))",
        )
        clock.advance(5)
        said = await connect_problem(app, pilot, "no longer accepts the key")
        assert app.session is None
        assert app.screen.query_one("#url", Input).value == server.url
        assert app.screen.query_one("#token", Input).value == ""
        assert said


async def test_every_palette_entry_for_a_queue_runs_without_a_crash(make_app: MakeApp) -> None:
    """Whatever the palette offers a worker for a queue ("Open queue …", "Work in …") opens without a crash."""
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("ctrl+p", *"Categorization")
        await pilot.pause(0.3)
        await until(
            app, pilot, lambda: "Open queue Categorization" in screen_text(app), "the palette lists it"
        )
        offered = app.screen.query_one(CommandList).option_count
        await pilot.press("escape")
        for index in range(offered):
            await pilot.press("ctrl+p", *"Categorization")
            await pilot.pause(0.3)
            await until(
                app, pilot, lambda: "Open queue Categorization" in screen_text(app), "the palette again"
            )
            chosen = str(app.screen.query_one(CommandList).get_option_at_index(index).prompt)
            await pilot.press(*["down"] * index, "enter")
            await settle(app, pilot)
            assert app.is_running and app._exception is None, f"choosing {chosen!r} crashed the app"
            while not isinstance(app.screen, QueuesScreen):
                await pilot.press("escape")
                await settle(app, pilot, 1)


@pytest.mark.parametrize("role", ["admin", "worker"])
async def test_the_palette_offers_actions_the_footer_hides_by_role(make_app: MakeApp, role: str) -> None:
    """People (u), New queue (N) and the like are hidden from the footer, not from the palette."""
    from queuedesk.tui.screens.people_screen import PeopleScreen

    app = make_app(role)
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("ctrl+p", *"People")
        await pilot.pause(0.3)
        await settle(app, pilot)
        offered = [
            str(app.screen.query_one(CommandList).get_option_at_index(i).prompt)
            for i in range(app.screen.query_one(CommandList).option_count)
        ]
        assert any("People (u)" in entry for entry in offered) == (role == "admin"), offered
        if role == "worker":
            return
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, PeopleScreen), "the people screen opens")
        assert app._exception is None


async def test_the_palette_lists_the_queue_screens_hidden_actions_but_no_cursor_moves(
    make_app: MakeApp, fresh
) -> None:
    from queuedesk.tui.commands import QueueCommands

    made = fresh("Palette tabs")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, made["id"])
        provider = QueueCommands(screen)
        labels = [label for label, _, _ in provider._commands()]
        for wanted in (
            "Pending (1)",
            "Completed (2)",
            "Blocks (3)",
            "Stats (4)",
            "Webhook (5)",
            "Edit queue (E)",
        ):
            assert wanted in labels, labels
        assert not any(word in label for label in labels for word in ("Cursor", "Page up", "Last row")), (
            labels
        )
        assert len(labels) == len(set(labels)), labels
        assert not any(label.startswith("Quit") for label in labels), "Textual's palette has Quit already"
