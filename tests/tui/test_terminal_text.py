"""Nothing from outside reaches the terminal raw: every surface of the app shows hostile text (task
data as sent, and names written before the server refused control characters) as symbols, and what
the app would write to the terminal holds none of it.

`screen_text` is what the widgets paint (the display rule applied where the text is put in, so
widths are right); `painted` is what the terminal would be written, after the last guard
(tui/terminal/terminal_guard.py).
"""

import json
import re
from collections.abc import Iterator
from copy import deepcopy

import httpx
import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import Input

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.terminal import terminal_guard
from tests.conftest import make_queue
from tests.support import KEYS, ROLES_SEED, ServerProcess, execute_sql
from tests.support.hostile import ALL_HOSTILE, HOSTILE, obeyed_in, sqlite_text
from tests.tui.test_app import home, open_queue, screen_text, settle, show_tab, until
from tests.tui.test_history import open_history
from tests.tui.test_people import open_people

SIZE = (160, 40)
ORG = 1
TITLE = HOSTILE["title_bel"]
HOSTILE_LINK = f"https://example.com/{HOSTILE['clipboard']}"
GOOD_LINK = "https://example.com/fine"
# Short enough for a table cell: the symbols of an OSC title, a C1 CSI, DEL and a bidi override.
CELL = f"{TITLE}\x9b2J\x7f\u202eabc"
CELL_SHOWN = "␛]0;pwned-title␇\\x9b2J␡⟪U+202E⟫abc"


def painted(app: QueueDeskApp) -> bytes:
    """What the terminal would be written for the whole screen now."""
    return app.screen._compositor.render_full_update().render_segments(app.console).encode()


def without_styles(raw: bytes) -> str:
    """The written text without the app's own colours and cursor moves."""
    return re.sub(r"\x1b\[[0-9;]*[mH]", "", raw.decode())


def nothing_obeyed(app: QueueDeskApp) -> None:
    raw = painted(app)
    assert obeyed_in(raw) == [], raw


def blocks() -> list[dict]:
    return [
        {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
        {"id": "link", "name": "Link", "type": "link"},
        {
            "id": "category",
            "name": "Category",
            "type": "single_selection",
            "single_selection": {"is_required": True, "options": [{"id": "a", "name": "Alpha"}]},
        },
    ]


class Hostile:
    """A server holding hostile task text, and rows written behind its back before the rule."""

    def __init__(self, server: ServerProcess, admin: httpx.Client) -> None:
        self.server = server
        self.queue = make_queue(admin, ORG, blocks(), name="Hostile work")
        path = f"/orgs/{ORG}/queues/{self.queue['id']}"
        done = admin.post(f"{path}/tasks/create", json={"data": {"message": CELL}}).json()
        claimed = admin.post(f"{path}/tasks/next").json()
        assert claimed["id"] == done["id"]
        admin.post(f"{path}/tasks/{done['id']}/complete", json={"data": {"category": "a"}}).raise_for_status()
        every = admin.post(f"{path}/tasks/create", json={"data": {"message": ALL_HOSTILE}}).json()
        assert admin.post(f"{path}/tasks/next").json()["id"] == every["id"]
        admin.post(
            f"{path}/tasks/{every['id']}/complete", json={"data": {"category": "a"}}
        ).raise_for_status()
        self.completed = [done["id"], every["id"]]
        self.task = admin.post(f"{path}/tasks/create", json={"data": {"message": ALL_HOSTILE}}).json()
        data = json.dumps({"message": ALL_HOSTILE, "link": HOSTILE_LINK}).replace("'", "''")
        execute_sql(server.db_url, f"UPDATE tasks SET data = '{data}' WHERE id = {self.task['id']}")
        self.legacy = make_queue(admin, ORG, blocks(), name="Legacy")
        execute_sql(
            server.db_url,
            f"UPDATE queues SET name = {sqlite_text('Legacy ' + CELL)}, "
            f"webhook_target = {sqlite_text('http://example.com/' + CELL)} WHERE id = {self.legacy['id']}",
        )
        user = admin.post(
            f"/orgs/{ORG}/users", json={"email": "old@acme.test", "name": "Old", "role": "worker"}
        )
        execute_sql(
            server.db_url,
            f"UPDATE users SET name = {sqlite_text('Old ' + CELL)} WHERE id = {user.json()['id']}",
        )

    def app(self, role: str = "admin") -> QueueDeskApp:
        target = Target(self.server.url, KEYS[role], None, "test")
        return QueueDeskApp(target, settings=AppSettings(), clock=ManualClock())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    server = ServerProcess(
        tmp_path_factory.mktemp("hostile-tui") / "qd.db", seed=deepcopy(ROLES_SEED)
    ).start()
    try:
        with server.client("admin") as admin:
            yield Hostile(server, admin)
    finally:
        server.stop()


async def test_the_queue_list_and_the_palette_show_a_legacy_name_as_symbols(hostile: Hostile) -> None:
    app = hostile.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(hostile.legacy["id"]) in screen.table.rows, "the queue is listed")
        await settle(app, pilot)
        assert f"Legacy {CELL_SHOWN}" in screen_text(app)
        nothing_obeyed(app)
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"Legacy")
        await pilot.pause(0.3)
        await until(app, pilot, lambda: f"Open queue Legacy {CELL_SHOWN}" in screen_text(app), "the palette")
        nothing_obeyed(app)


async def test_the_header_blocks_tab_and_webhook_show_a_legacy_name_and_target_as_symbols(
    hostile: Hostile,
) -> None:
    app = hostile.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, hostile.legacy["id"])
        await settle(app, pilot)
        assert f"/ Legacy {CELL_SHOWN}" in screen_text(app)
        nothing_obeyed(app)
        await show_tab(app, pilot, "tab-webhook")
        view = screen.query_one(WebhookView)
        await until(app, pilot, lambda: view.target is not None, "the target is read")
        await settle(app, pilot)
        # The admin's field holds the target as stored (to edit it): the guard shows it.
        written = without_styles(painted(app))
        assert "http://example.com/␛]0;pwned-title\\x9b2J␡⟪U+202E⟫abc" in written  # an Input drops BEL
        nothing_obeyed(app)


async def test_the_history_shows_task_text_as_symbols(hostile: Hostile) -> None:
    app = hostile.app()
    async with app.run_test(size=SIZE) as pilot:
        await open_history(app, pilot, hostile.queue["id"])
        await until(app, pilot, lambda: CELL_SHOWN in screen_text(app), "the values are shown")
        nothing_obeyed(app)


async def test_the_work_screen_shows_task_text_as_symbols_and_draws_no_hostile_link(hostile: Hostile) -> None:
    app = hostile.app("worker")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(hostile.queue["id"]) in screen.table.rows, "the queue is listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(hostile.queue["id"])))
        await pilot.press("w")
        await until(
            app, pilot, lambda: isinstance(app.screen, WorkScreen) and app.screen.ready, "the task is shown"
        )
        await settle(app, pilot)
        text = screen_text(app)
        for shown in ("<title_bel:␛]0;pwned-title␇>", "<nul_del_bidi:␀␡⟪U+202E⟫abc>", "<c1_csi:\\x9b2J>"):
            assert shown in text, text
        assert "https://example.com/␛]52;c;" in text, text
        raw = painted(app)
        assert obeyed_in(raw) == [], raw
        assert b"\x1b]8;" not in raw  # the link holding a control character is no link


async def test_the_people_screen_shows_a_legacy_user_name_as_symbols(hostile: Hostile) -> None:
    app = hostile.app()
    async with app.run_test(size=SIZE) as pilot:
        await open_people(app, pilot)
        await settle(app, pilot)
        assert "Old ␛]0;pwned-ti" in screen_text(app)  # the name column is 16 wide
        nothing_obeyed(app)


async def test_a_notification_and_a_pasted_value_are_never_written_raw(hostile: Hostile) -> None:
    app = hostile.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        app.notify(f"receiver said {CELL}", title=f"Webhook {TITLE}")
        await settle(app, pilot)
        assert f"receiver said {CELL_SHOWN}" in screen_text(app)
        nothing_obeyed(app)
        await pilot.press("slash")
        await pilot.pause()
        field = app.focused
        assert isinstance(field, Input)
        field.value = ALL_HOSTILE  # an Input shows what was typed or pasted: only the guard is between
        await settle(app, pilot)
        nothing_obeyed(app)


def test_the_guard_shows_text_and_drops_unsafe_links_but_keeps_control_segments() -> None:
    from rich.console import Console
    from rich.segment import ControlType

    terminal_guard.install()
    console = Console(color_system="truecolor", force_terminal=True)
    hostile = Strip([Segment(ALL_HOSTILE), Segment("link", Style(link=HOSTILE_LINK))]).render(console)
    assert obeyed_in(hostile.encode()) == [] and "\x1b]8;" not in hostile, hostile
    assert "␛]0;pwned-title␇" in hostile
    good = Strip([Segment("link", Style(link=GOOD_LINK))]).render(console)
    assert "\x1b]8;id=" in good and GOOD_LINK in good
    sixel = "\x1bPq#0;2;0;0;0~~\x1b\\"
    image = Strip([Segment(sixel, control=((ControlType.CURSOR_FORWARD, 0),)), Segment("\x1b[3;4H")]).render(
        console
    )
    assert sixel in image and image.endswith("\x1b[3;4H")
