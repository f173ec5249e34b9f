"""A person's access changes while their app is open: a disabled user or a revoked key is told so and
offered Connect (never an assertion), a changed role reaches the screens (header, tabs, keys) with the
new role said, and a 403 is never shown as a server that does not answer."""

from datetime import datetime, timedelta

import httpx
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.panes.audit_view import AuditView
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.people_screen import PeopleScreen
from queuedesk.tui.screens.queue import QueueScreen
from tests.conftest import make_queue
from tests.support import Organization
from tests.support.pilot import screen_text
from tests.tui.conftest import MakeApp
from tests.tui.test_app import (
    SIZE,
    connect_problem,
    header,
    home,
    notes,
    open_queue,
    settle,
    shows,
    until,
)


def user_id(admin: httpx.Client, org: Organization, role: str) -> int:
    users = admin.get(f"{org.path}/users").json()
    return next(user["id"] for user in users if user["email"] == org.email(role))


def no_bug_said(notes_now: list[str]) -> None:
    assert not any("AssertionError" in n or "bug in QueueDesk" in n for n in notes_now), notes_now


async def test_a_user_disabled_with_a_queue_open_is_told_and_offered_connect(
    make_app: MakeApp, clock: ManualClock, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id)
    app = make_app(token=own_org.key("worker"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        admin.patch(f"{own_org.path}/users/{user_id(admin, own_org, 'worker')}", json={"disabled": True})
        clock.advance(5)
        await settle(app, pilot)
        said = await connect_problem(app, pilot, "no longer accepts the key")
        for _ in range(3):
            clock.advance(5)
            await settle(app, pilot)
        no_bug_said(notes(app))
        assert "revoked" in said and "disabled" in said, said
        assert isinstance(app.screen, ConnectScreen)


async def test_a_key_revoked_with_a_queue_open_is_told_and_offered_connect(
    make_app: MakeApp, clock: ManualClock, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id)
    supervisor = user_id(admin, own_org, "supervisor")
    key = admin.post(f"{own_org.path}/users/{supervisor}/keys").json()
    app = make_app(token=key["key"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        app.screen.query_one(TabbedContent).active = "tab-webhook"
        await settle(app, pilot)
        admin.delete(f"{own_org.path}/users/{supervisor}/keys/{key['id']}").raise_for_status()
        for _ in range(3):
            clock.advance(5)
            await settle(app, pilot)
        await connect_problem(app, pilot, "revoked")
        no_bug_said(notes(app))


async def test_a_role_change_reaches_the_open_screens(
    make_app: MakeApp, clock: ManualClock, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id)
    supervisor = user_id(admin, own_org, "supervisor")
    app = make_app(token=own_org.key("supervisor"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        assert "(supervisor)" in header(app)
        app.screen.query_one(TabbedContent).active = "tab-webhook"
        await settle(app, pilot)
        admin.patch(f"{own_org.path}/users/{supervisor}", json={"role": "worker"}).raise_for_status()
        for _ in range(3):
            clock.advance(5)
            await settle(app, pilot)
        await until(
            app, pilot, lambda: any("your role is now worker" in n.lower() for n in notes(app)), "said"
        )
        assert "(worker)" in header(app) and "not answering" not in header(app), header(app)
        assert isinstance(app.screen, QueueScreen)
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active != "tab-webhook"
        assert not app.screen.query("#tab-webhook") and not app.screen.query("#tab-stats")
        assert screen.session.role == "worker"
        no_bug_said(notes(app))
        assert sum("your role is now" in n.lower() for n in notes(app)) == 1, notes(app)
        assert not any("answers again" in n for n in notes(app)), "it never stopped answering"


# --- the audit log ----------------------------------------------------------------------------------


async def open_audit(app: QueueDeskApp, pilot: Pilot) -> AuditView:
    """From the queue list: People (u), then its Audit tab (2)."""
    await home(app, pilot)
    await pilot.press("u")
    await until(app, pilot, lambda: isinstance(app.screen, PeopleScreen), "People opens")
    await until(app, pilot, lambda: bool(app.screen.query("#tab-audit")), "the Audit tab is offered")
    await pilot.press("2")
    return app.screen.query_one(AuditView)


async def test_admins_read_the_audit_log_newest_first_and_filter_it(
    make_app: MakeApp, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    make_queue(admin, own_org.id, name="Audited desk")
    worker = user_id(admin, own_org, "worker")
    admin.patch(f"{own_org.path}/users/{worker}", json={"role": "supervisor"}).raise_for_status()
    admin.patch(f"{own_org.path}/users/{worker}", json={"name": "Renamed"}).raise_for_status()
    admin.post(f"{own_org.path}/users/{worker}/keys").raise_for_status()
    app = make_app(token=own_org.key("admin"))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        view = await open_audit(app, pilot)
        await until(app, pilot, lambda: view.log_table.total >= 4, "the events are listed")
        everything = view.log_table.total
        actions = [str(view.log_table.get_row_at(i)[2]) for i in range(view.log_table.row_count)]
        assert actions[:4] == ["key.create", "user.update", "user.update", "queue.create"], actions
        first = [str(cell) for cell in view.log_table.get_row_at(1)]
        assert first[1] == own_org.email("admin") and "Renamed" in first[4], first
        assert "role worker→supervisor" in str(view.log_table.get_row_at(2)[4])
        assert [str(c) for c in view.log_table.get_row_at(3)][3] == "Audited desk"
        assert shows(app, "events, newest first")
        await pilot.press("o")  # oldest first: the queue made first
        await until(app, pilot, lambda: shows(app, "events, oldest first"), "oldest first")
        await until(app, pilot, lambda: str(view.log_table.get_row_at(0)[2]) != "key.create", "reread")
        assert "When UTC ▲" in screen_text(app), screen_text(app)
        await pilot.press("s")  # by action, a to z
        await until(app, pilot, lambda: shows(app, "by action, a to z"), "by action")
        await until(app, pilot, lambda: str(view.log_table.get_row_at(0)[2]) == "key.create", "a to z")
        assert shows(app, "Action ▲"), screen_text(app)
        await pilot.press("s", "s")  # by who, then by time again (newest first)
        await until(app, pilot, lambda: shows(app, "events, newest first"), "by time again")

        await pilot.press("f")
        app.screen.query_one("#audit-action", Input).value = "user.update"
        await pilot.press("enter")
        await until(app, pilot, lambda: view.log_table.total == 2, "filtered by action")
        assert {str(view.log_table.get_row_at(i)[2]) for i in range(2)} == {"user.update"}

        await pilot.press("f")
        app.screen.query_one("#audit-action", Input).value = ""
        app.screen.query_one("#audit-queue", Input).value = "audited DESK"
        await pilot.press("enter")
        await until(app, pilot, lambda: view.log_table.total == 1, "filtered by queue")
        assert str(view.log_table.get_row_at(0)[2]) == "queue.create"

        await pilot.press("f")
        app.screen.query_one("#audit-action", Input).value = "user.delete"
        await pilot.press("enter")
        await settle(app, pilot)
        assert any("Filter not applied" in n for n in notes(app))
        assert view.log_table.total == 1  # the filters in force stay

        today = datetime.now().astimezone().date()  # the app shows (and filters by) the local zone
        for since, total in ((today + timedelta(days=1), 0), (today - timedelta(days=1), everything)):
            await pilot.press("f")
            for name, value in (("action", ""), ("queue", ""), ("since", since.isoformat())):
                app.screen.query_one(f"#audit-{name}", Input).value = value
            await pilot.press("enter")
            await until(app, pilot, lambda total=total: view.log_table.total == total, f"since {since}")
            assert shows(app, f"since {since.isoformat()}")
        await pilot.press("f")
        app.screen.query_one("#audit-since", Input).value = "28/11"
        await pilot.press("enter")
        await settle(app, pilot)
        assert any("since YYYY-MM-DD: not a date" in n for n in notes(app)), notes(app)

        await pilot.press("escape")
        await settle(app, pilot)
    no_bug_said(notes(app))


async def test_no_audit_tab_for_supervisors(make_app: MakeApp, own_org: Organization) -> None:
    app = make_app(token=own_org.key("supervisor"))
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        assert not app.screen.query("#tab-audit")
