"""The People screen against a real server: users with role and last seen, adding one (checked before
sending; a taken email refused without losing the form), changing a role, disabling after a
confirmation, the last admin kept with a notification that says what to do, a key issued once,
copied and revoked; hidden from everyone but admins. Then SVG snapshots at 80x24 and 200x60.

One server for the module. Its organization Acme is changed by the Pilot tests; the pictures look
at Initech, which nothing changes, with every time fixed against the app's clock (2026-11-23 09:30).
"""

import itertools
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from copy import deepcopy

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.user_dialogs import AddUserScreen, IssuedKeyScreen, RoleList, RoleScreen
from queuedesk.tui.panes.users_and_keys import PeopleView, ago
from queuedesk.tui.screens.people_screen import PeopleScreen
from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for, screen_text, settle, until
from tests.tui.test_app import home
from tests.tui.test_snapshots import ready_picture

SIZE = (100, 30)
SIZES = [(80, 24), (200, 60)]
NINE_THIRTY = 1795426200_000000  # the app's clock, 2026-11-23 09:30 UTC, in microseconds
MINUTE = 60_000_000
INITECH_KEY = "initech-ida-0123456789abcdef"
INITECH = {
    "name": "Initech",
    "users": [
        {"email": "ida@initech.test", "name": "Ida Admin", "role": "admin", "api_key": INITECH_KEY},
        {"email": "ben@initech.test", "name": "Ben Boss", "role": "supervisor"},
        {
            "email": "cat@initech.test",
            "name": "Cat Coder",
            "role": "worker",
            "api_key": "initech-cat-key-0000000000",
        },
        {"email": "dan@initech.test", "name": "Dan Former", "role": "worker"},
        {"email": "eve@initech.test", "name": "Eve New", "role": "worker"},
    ],
    "queues": [{"name": "Reports", "blocks": [{"id": "note", "name": "Note", "type": "text"}]}],
}
# Minutes before 09:30 each Initech user was last seen (None: never), and Cat's key's times.
LAST_SEEN = {"ida": 1, "ben": 42, "cat": 3 * 60 + 5, "dan": 9 * 24 * 60, "eve": None}
_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def people_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    seed = deepcopy(ROLES_SEED)
    seed["organizations"].append(INITECH)
    server = ServerProcess(tmp_path_factory.mktemp("people") / "qd.db", seed=seed).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def acme(people_server: ServerProcess) -> Iterator[httpx.Client]:
    with people_server.client("admin") as admin:
        yield admin


def users_of(admin: httpx.Client) -> dict[str, dict]:
    return {user["email"]: user for user in admin.get("/orgs/1/users").json()}


async def open_people(app: QueueDeskApp, pilot: Pilot) -> PeopleView:
    await home(app, pilot)
    await pilot.press("u")
    await until(app, pilot, lambda: isinstance(app.screen, PeopleScreen), "the People screen opens")
    view = app.screen.query_one(PeopleView)
    await until(app, pilot, lambda: bool(view.users), "the users are listed")
    return view


async def point_at(app: QueueDeskApp, pilot: Pilot, view: PeopleView, email: str) -> None:
    view.users_table.move_cursor(row=[u.email for u in view.users].index(email))
    await pilot.pause()


def toasts(app: QueueDeskApp) -> list[tuple[str, str]]:
    return [(n.title, n.message) for n in app.said]


def new_email() -> str:
    return f"tui.person{next(_numbers)}@acme.test"


def test_ago_reads_in_the_largest_whole_unit() -> None:
    now = ManualClock().now()
    from datetime import timedelta

    assert ago(None, now) == "never"
    assert ago(now - timedelta(seconds=30), now) == "just now"
    assert ago(now + timedelta(minutes=5), now) == "just now"  # the server's clock ahead of the app's
    assert ago(now - timedelta(minutes=12, seconds=59), now) == "12 min ago"
    assert ago(now - timedelta(hours=3, minutes=5), now) == "3 h ago"
    assert ago(now - timedelta(days=9), now) == "9 d ago"


async def test_workers_do_not_get_the_people_screen_and_supervisors_read_it(
    people_server: ServerProcess, acme: httpx.Client
) -> None:
    app = app_for(people_server, "worker")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        assert not isinstance(app.screen, PeopleScreen)

    def people() -> set[tuple]:
        return {(u["email"], u["name"], u["role"], u["disabled"]) for u in users_of(acme).values()}

    before = people()
    app = app_for(people_server, "supervisor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        assert {"ada@acme.test", "sue@acme.test", "wes@acme.test"} <= {u.email for u in view.users}
        assert "read only" in screen_text(app)
        await point_at(app, pilot, view, "wes@acme.test")
        for key in ("a", "r", "d", "k", "enter"):
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, PeopleScreen) and not view.on_keys, key
        footer = screen_text(app).splitlines()[-1]
        assert "Add" not in footer and "Role" not in footer and "New key" not in footer, footer
        assert not app.screen.query("#tab-audit")
        assert not any("Not allowed" in title for title, _ in toasts(app)), toasts(app)
    assert people() == before
    app = app_for(people_server)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_people(app, pilot)
        assert {"ada@acme.test", "sue@acme.test", "wes@acme.test"} <= {u.email for u in view.users}
        assert "gus@globex.test" not in {u.email for u in view.users}
        ada = list(map(str, view.users_table.get_row("1")))
        assert ada[:4] == ["ada@acme.test", "Ada", "admin", "active"]
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, PeopleScreen)


async def test_adding_checks_first_and_keeps_the_form_when_refused(
    people_server: ServerProcess, acme: httpx.Client
) -> None:
    email = new_email()
    app = app_for(people_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        await pilot.press("a")
        await until(app, pilot, lambda: isinstance(app.screen, AddUserScreen), "the form opens")
        form = app.screen
        form.query_one("#new-user-email", Input).value = "kim at acme"
        form.query_one("#new-user-name", Input).value = "Kim"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "not an email address" in screen_text(app) and isinstance(app.screen, AddUserScreen)
        before = len(users_of(acme))

        form.query_one("#new-user-email", Input).value = "wes@acme.test"  # taken
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, AddUserScreen), "the form stays, with what was typed"
        assert form.query_one("#new-user-name", Input).value == "Kim"
        assert any(title == "Email taken" for title, _ in toasts(app))
        assert len(users_of(acme)) == before

        form.query_one("#new-user-email", Input).value = email
        form.query_one("#new-user-role", OptionList).highlighted = 1  # supervisor
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, PeopleScreen), "the form closes")
        await until(app, pilot, lambda: email in {u.email for u in view.users}, "the new user is listed")
        assert view.selected_user() is not None and view.selected_user().email == email
    added = users_of(acme)[email]
    assert (added["name"], added["role"], added["disabled"]) == ("Kim", "supervisor", False)


async def test_role_and_disable_and_the_last_admin(people_server: ServerProcess, acme: httpx.Client) -> None:
    email = new_email()
    made = acme.post("/orgs/1/users", json={"email": email, "name": "Rob", "role": "worker"}).json()
    key = acme.post(f"/orgs/1/users/{made['id']}/keys").json()["key"]
    app = app_for(people_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        await point_at(app, pilot, view, email)
        await pilot.press("r")
        await until(app, pilot, lambda: isinstance(app.screen, RoleScreen), "the roles are offered")
        await pilot.press("up", "enter")  # worker -> supervisor
        await until(app, pilot, lambda: users_of(acme)[email]["role"] == "supervisor", "the role changes")

        await pilot.press("d")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "disabling asks first")
        await pilot.press("enter")  # Cancel has the focus
        await settle(app, pilot)
        assert users_of(acme)[email]["disabled"] is False
        await pilot.press("d")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "disabling asks again")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: users_of(acme)[email]["disabled"], "the user is disabled")
        assert (
            httpx.get(f"{people_server.url}/me", headers={"Authorization": f"Token {key}"}).status_code == 401
        )
        await until(
            app, pilot, lambda: str(view.users_table.get_row(str(made["id"]))[3]) == "disabled", "shown"
        )
        await pilot.press("d")  # enabling needs no confirmation
        await until(app, pilot, lambda: not users_of(acme)[email]["disabled"], "the user is enabled")

        await point_at(app, pilot, view, "ada@acme.test")
        await pilot.press("r")
        await until(app, pilot, lambda: isinstance(app.screen, RoleScreen), "the roles are offered")
        await pilot.press("down", "enter")  # admin -> supervisor
        await until(app, pilot, lambda: any(t == "The last admin" for t, _ in toasts(app)), "it is refused")
        message = next(m for t, m in toasts(app) if t == "The last admin")
        assert "make another user admin first" in message
        await pilot.press("d")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "disabling asks")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: sum(t == "The last admin" for t, _ in toasts(app)) == 2, "refused")
    ada = users_of(acme)["ada@acme.test"]
    assert (ada["role"], ada["disabled"]) == ("admin", False)


async def test_a_key_is_shown_once_copied_and_revoked(
    people_server: ServerProcess, acme: httpx.Client
) -> None:
    email = new_email()
    made = acme.post("/orgs/1/users", json={"email": email, "name": "Kay", "role": "worker"}).json()
    app = app_for(people_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        await point_at(app, pilot, view, email)
        await pilot.press("enter")
        await until(app, pilot, lambda: view.on_keys and view.keys_of is not None, "the keys are shown")
        assert "no keys in force" in screen_text(app)
        await pilot.press("k")
        await until(app, pilot, lambda: isinstance(app.screen, IssuedKeyScreen), "the new key is shown")
        issued = app.screen.issued
        assert issued.key in screen_text(app) and "only time" in screen_text(app)
        await pilot.press("c")
        await settle(app, pilot)
        assert app.clipboard == issued.key
        await pilot.press("escape")
        await until(app, pilot, lambda: [k.id for k in view.keys] == [issued.id], "the key is listed")
        assert issued.key not in screen_text(app) and issued.prefix in screen_text(app)
        auth = {"Authorization": f"Token {issued.key}"}
        assert httpx.get(f"{people_server.url}/me", headers=auth).json()["email"] == email

        await pilot.press("x")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "revoking asks first")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: not view.keys, "the key is gone from the list")
        assert httpx.get(f"{people_server.url}/me", headers=auth).status_code == 401
        assert any(title == "Revoked" for title, _ in toasts(app))
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, PeopleScreen) and not view.on_keys
    assert acme.get(f"/orgs/1/users/{made['id']}/keys").json() == []


async def test_a_disabled_user_gets_no_key_and_is_told_why(
    people_server: ServerProcess, acme: httpx.Client
) -> None:
    email = new_email()
    made = acme.post("/orgs/1/users", json={"email": email, "name": "Off", "role": "worker"}).json()
    acme.patch(f"/orgs/1/users/{made['id']}", json={"disabled": True}).raise_for_status()
    app = app_for(people_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_people(app, pilot)
        await point_at(app, pilot, view, email)
        await pilot.press("k")
        await until(app, pilot, lambda: bool(toasts(app)), "the refusal is said")
        assert not isinstance(app.screen, IssuedKeyScreen)
        assert any("enable the user" in message for _, message in toasts(app))


# --- pictures -------------------------------------------------------------------------------------


def _fix_times(server: ServerProcess) -> None:
    """Last seen and the keys' times, fixed against the app's clock (Initech only)."""
    for name, minutes in LAST_SEEN.items():
        value = "NULL" if minutes is None else NINE_THIRTY - minutes * MINUTE
        execute_sql(
            server.db_url, f"UPDATE users SET last_seen_at = {value} WHERE email = '{name}@initech.test'"
        )
    execute_sql(
        server.db_url,
        f"UPDATE api_keys SET created_at = {NINE_THIRTY - 20 * 24 * 60 * MINUTE}, last_used_at = "
        f"{NINE_THIRTY - 185 * MINUTE} WHERE user_id = (SELECT id FROM users WHERE email = 'cat@initech.test')",
    )
    execute_sql(server.db_url, "UPDATE users SET disabled = TRUE WHERE email = 'dan@initech.test'")


def picture(server: ServerProcess, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Open People as Initech's admin (whose first request records now), fix the times, reload, press `keys`."""

    async def run(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, QueueDeskApp)
        view = await open_people(app, pilot)
        _fix_times(server)
        view.load()
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        if isinstance(app.screen, AddUserScreen):  # filled in, the focus on the roles: no blinking cursor
            app.screen.query_one("#new-user-email", Input).value = "kim@initech.test"
            app.screen.query_one("#new-user-name", Input).value = "Kim Lee"
            app.screen.query_one("#new-user-role", OptionList).focus()
            await settle(app, pilot)
        await ready_picture(pilot)  # the server's address as every picture shows it

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_people_screen(snap_compare, people_server: ServerProcess, size: tuple[int, int]) -> None:
    """The users, and Cat's key (down twice: Ida, Ben, Cat)."""
    app = app_for(people_server, token=INITECH_KEY)
    assert snap_compare(app, terminal_size=size, run_before=picture(people_server, "down", "down", "enter"))


def test_add_user_form(snap_compare, people_server: ServerProcess) -> None:
    app = app_for(people_server, token=INITECH_KEY)
    assert snap_compare(app, terminal_size=(80, 24), run_before=picture(people_server, "a"))


async def test_the_role_list_stops_at_its_ends_and_marks_the_choice(people_server: ServerProcess) -> None:
    """A down too many on worker used to wrap to admin, with a faint highlight: an admin was made."""
    app = app_for(people_server)
    async with app.run_test(size=SIZE) as pilot:
        await open_people(app, pilot)
        await pilot.press("a")
        await until(app, pilot, lambda: isinstance(app.screen, AddUserScreen), "the form opens")
        form = app.screen
        form.query_one("#new-user-role", OptionList).focus()
        await settle(app, pilot)
        roles = form.query_one(RoleList)

        def marks() -> list[str]:
            return [str(roles.get_option_at_index(i).prompt)[:2] for i in range(roles.option_count)]

        assert form.role == "worker" and marks() == ["○ ", "○ ", "● "]
        await pilot.press("down", "down")
        await settle(app, pilot)
        assert form.role == "worker", "down on the last role stays there"
        await pilot.press("up", "up", "up", "up")
        await settle(app, pilot)
        assert form.role == "admin" and marks() == ["● ", "○ ", "○ "]
        assert roles.border_title == "Role: admin"


@pytest.fixture
def no_clipboard_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tmux and no display: only the terminal's clipboard, which never confirms."""
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)


async def issue_key_and_copy(app: QueueDeskApp, pilot: Pilot, acme: httpx.Client) -> IssuedKeyScreen:
    email = new_email()
    acme.post("/orgs/1/users", json={"email": email, "name": "Cy", "role": "worker"}).raise_for_status()
    view = await open_people(app, pilot)
    await point_at(app, pilot, view, email)
    await pilot.press("k")
    await until(app, pilot, lambda: isinstance(app.screen, IssuedKeyScreen), "the new key is shown")
    dialog = app.screen
    assert isinstance(dialog, IssuedKeyScreen)
    await pilot.press("c")
    await until(app, pilot, lambda: toasts(app), "the copy is said")
    return dialog


async def test_an_unconfirmed_copy_is_not_called_copied(
    people_server: ServerProcess, acme: httpx.Client, no_clipboard_program: None
) -> None:
    app = app_for(people_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        dialog = await issue_key_and_copy(app, pilot, acme)
        assert [title for title, _ in toasts(app)] == ["Copy not confirmed"], toasts(app)
        assert "select the key" in str(dialog.query_one("#issued-key-hint", Static).content)
        assert dialog.issued.key in screen_text(app)  # still shown, to select


async def test_inside_tmux_the_key_goes_to_its_paste_buffer(
    people_server: ServerProcess, acme: httpx.Client, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "new-session", "-d", "-x", "80", "-y", "24"], check=True)
    try:
        monkeypatch.setenv("TMUX", f"{socket},0,0")
        monkeypatch.delenv("DISPLAY", raising=False)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        app = app_for(people_server)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            dialog = await issue_key_and_copy(app, pilot, acme)
            assert [title for title, _ in toasts(app)] == ["Copied"], toasts(app)
            assert "tmux's paste buffer" in toasts(app)[0][1]
        shown = subprocess.run(["tmux", "-S", str(socket), "show-buffer"], capture_output=True, text=True)
        assert shown.stdout == dialog.issued.key
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], check=False)


async def test_s_sorts_the_people_by_each_column_in_turn_and_marks_it(people_server: ServerProcess) -> None:
    app = app_for(people_server, "supervisor")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_people(app, pilot)
        listed = [u.email for u in view.users]

        def column(n: int) -> list[str]:
            table = view.users_table
            return [str(table.get_row_at(i)[n]) for i in range(table.row_count)]

        await pilot.press("s")
        await settle(app, pilot)
        assert column(0) == sorted(listed, key=str.casefold) and "Email ▲" in screen_text(app)
        await pilot.press("s")
        await settle(app, pilot)
        assert column(1) == sorted(column(1), key=str.casefold) and "Name ▲" in screen_text(app)
        assert "Email ▲" not in screen_text(app)
        await pilot.press("s")
        await settle(app, pilot)
        assert column(2) == sorted(column(2)) and "Role ▲" in screen_text(app)
        # The cursor's user is the one the actions apply to, whatever the order.
        assert view.selected_user() is not None
        assert view.selected_user().email == column(0)[view.users_table.cursor_row]
