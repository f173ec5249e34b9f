"""The queue screen's Webhook tab against a real server and a real local receiver: the target set
(and refused before sending), the secret, a signed test ping, the delivery log live, attempts,
redelivery; what a supervisor, a worker and a basic server get.
"""

import asyncio
import json
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from standardwebhooks import Webhook
from textual.pilot import Pilot
from textual.widgets import Button, Footer, Input, Static, TabbedContent

from queuedesk.tui.admin.webhook_target import target_problem
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.delivery import DeliveryScreen
from queuedesk.tui.modals.redeliver import RedeliverScreen
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.settings import Target
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.receiver import Receiver
from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.support.pilot import screen_text, settle, settled_footer, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import (
    complete,
    create,
    footer_line,
    open_queue,
    paste,
    plain,
    qpath,
)

SIZE = (100, 30)


def target_of(admin: httpx.Client, org: int, queue: dict) -> str:
    return admin.get(f"{qpath(org, queue)}/webhook").json()["target"]


def hook(admin: httpx.Client, org: int, queue: dict, target: str) -> None:
    assert admin.put(f"{qpath(org, queue)}/webhook", json={"target": target}).status_code == 200


async def open_webhook(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> WebhookView:
    screen = await open_queue(app, pilot, queue_id)
    await pilot.press("5")
    await settle(app, pilot)
    view = screen.query_one(WebhookView)
    await until(app, pilot, lambda: view.target is not None, "the target is read")
    return view


def rows(view: WebhookView) -> list[list[str]]:
    table = view.deliveries
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def refreshed_until(
    app: QueueDeskApp, pilot: Pilot, clock: ManualClock, condition: Callable[[], object], what: str
) -> None:
    """Let the live refresh run (the clock moves an interval each time) until `condition` holds:
    the server and its dispatcher work in real time."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if condition():
            return
        clock.advance(5)
        await settle(app, pilot)
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}\n--- screen ---\n{screen_text(app)}")


def note(view: WebhookView) -> str:
    return plain(view.query_one("#webhook-field-note", Static))


# --- what is wrong with an address, said before sending ----------------------------------------------


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("hooks.example.com/x", "Start the address with https://"),
        ("ftp://hooks.example.com/x", "not ftp://"),
        ("https://", "needs a host"),
        ("https://user:pw@hooks.example.com/x", "Leave the user name and password out"),
        ("https://hooks.example.com:99999/x", "port"),
        ("https://hooks.example.com/a b", "no spaces"),
        ("https://hooks.example.com/" + "x" * 2100, "the limit is 2,048"),
    ],
)
def test_a_bad_address_is_told_what_to_write(typed: str, said: str) -> None:
    problem = target_problem(typed)
    assert problem is not None and said in problem


def test_good_addresses_pass() -> None:
    for good in ("https://hooks.example.com/queuedesk", "http://127.0.0.1:9000/hook", "https://[::1]:8443/h"):
        assert target_problem(good) is None


# --- admin ---------------------------------------------------------------------------------------------


async def test_admin_sets_a_target_after_a_bad_one_is_refused_before_sending(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Hooked")
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        assert view.target == ""
        await until(app, pilot, lambda: "Edit" in footer_line(app) and "Test" in footer_line(app), "its keys")
        await pilot.press("e")
        field = view.query_one("#webhook-target", Input)
        assert app.focused is field
        assert "enter saves" in note(view)
        assert "Edit" not in await settled_footer(app, pilot)  # letters go into the field now

        await paste(app, pilot, "ftp://hooks.example.com/x")
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Only http and https" in note(view)
        assert field.has_class("-invalid") and app.focused is field
        assert target_of(admin, org_id, queue) == ""  # nothing was sent

        field.value = ""
        await paste(app, pilot, receiver.url)
        await settle(app, pilot)
        assert "Only http" not in note(view)  # the problem goes as soon as it is fixed
        await pilot.press("enter")
        await settle(app, pilot)
        assert target_of(admin, org_id, queue) == receiver.url
        assert view.target == receiver.url and not field.has_class("-invalid")
        assert app.focused is view.deliveries
        assert "Saved" in note(view)
        assert any("Webhook target saved" in n.title for n in app.said)


async def test_the_test_ping_is_signed_with_the_secret_the_app_shows(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Pinged")
    hook(admin, org_id, queue, receiver.url)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        secret_line = view.query_one("#webhook-secret", Static)
        assert "whsec_****" in plain(secret_line)
        await pilot.press("s")
        await until(app, pilot, lambda: view.secret is not None, "the secret is shown")
        shown = plain(secret_line).split()[1]
        assert shown.startswith("whsec_") and shown == view.secret

        await pilot.press("t")
        await until(
            app, pilot, lambda: "answered" in plain(view.query_one("#webhook-test", Static)), "the ping"
        )
        assert "✓ answered 200 in" in plain(view.query_one("#webhook-test", Static))
        (ping,) = receiver.wait_for(1)
        Webhook(shown).verify(ping.body, ping.headers)  # raises when the signature is not the secret's
        assert json.loads(ping.body)["type"] == "ping"

        await pilot.press("s")  # hidden again
        await settle(app, pilot)
        assert view.secret is None and shown not in plain(secret_line)


async def test_a_completion_shows_up_delivered(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
    fresh,
    receiver: Receiver,
) -> None:
    queue = fresh("Delivered")
    hook(admin, org_id, queue, receiver.url)
    create(admin, org_id, queue)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        await until(
            app,
            pilot,
            lambda: "Deliveries: 0" in plain(view.query_one("#webhook-log-note", Static)),
            "the empty log's first page read and said",
        )
        assert view.deliveries.row_count == 0
        task = complete(worker, org_id, queue)
        await refreshed_until(
            app,
            pilot,
            clock,
            # The note follows the table's Loaded message: a loaded machine paints it a moment later.
            lambda: (
                bool(rows(view))
                and rows(view)[0][1] == "delivered"
                and "Deliveries: 1" in plain(view.query_one("#webhook-log-note", Static))
            ),
            "the delivery is delivered and counted in the note",
        )
        (row,) = rows(view)
        assert row[0] == str(task["id"]) and row[2:4] == ["1", "200"] and row[6:] == [receiver.url, "—"]


async def test_a_failing_receiver_shows_attempts_and_error_then_redelivers(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    healthy = False
    receiver = Receiver(answer=lambda _n: (200 if healthy else 500, 0.0)).start()
    try:
        queue = fresh("Failing")
        hook(admin, org_id, queue, receiver.url)
        create(admin, org_id, queue)
        task = complete(worker, org_id, queue)
        app = make_app("admin")
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            view = await open_webhook(app, pilot, queue["id"])
            await refreshed_until(
                app, pilot, clock, lambda: rows(view) and rows(view)[0][2] != "0", "an attempt"
            )
            row = rows(view)[0]
            assert row[0] == str(task["id"]) and row[1] == "pending" and row[3] == "500"
            assert row[6] == receiver.url and row[7] == "the receiver answered 500"
            assert row[4] != "—"  # the next try's time

            await pilot.press("enter")  # the attempts
            await until(app, pilot, lambda: isinstance(app.screen, DeliveryScreen), "the delivery opens")
            opened = app.screen
            await until(app, pilot, lambda: opened.attempts, "the attempts")
            assert (opened.attempts[0].status_code, opened.attempts[0].error) == (
                500,
                "the receiver answered 500",
            )
            assert "pending" in plain(opened.query_one("#delivery-heading", Static))
            shown = plain(opened.query_one("#delivery-attempts", Static))
            assert "500" in shown and "the receiver answered 500" in shown and " ms" in shown
            await pilot.press("escape")
            await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "back on the queue")

            healthy = True
            sent = len(receiver.received)
            await pilot.press("R")
            await settle(app, pilot)
            assert any(n.title == "Redelivering" for n in app.said)
            receiver.wait_for(sent + 1)
            await refreshed_until(app, pilot, clock, lambda: rows(view)[0][1] == "delivered", "redelivered")
            row = rows(view)[0]
            assert int(row[2]) >= 2 and row[3] == "200"
    finally:
        receiver.stop()


async def test_rotating_asks_first_and_shows_the_new_secret(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Rotated")
    hook(admin, org_id, queue, receiver.url)
    old = admin.get(f"{qpath(org_id, queue)}/webhook/secret").json()["secret"]
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        await pilot.press("S")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the guard")
        assert app.focused is app.screen.query_one("#confirm-cancel", Button)
        assert "24 hours" in screen_text(app)
        await pilot.press("enter")  # Cancel has the focus
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "back")
        assert admin.get(f"{qpath(org_id, queue)}/webhook/secret").json()["secret"] == old

        await pilot.press("S")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the guard")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: view.secret is not None, "the new secret")
        new = admin.get(f"{qpath(org_id, queue)}/webhook/secret").json()["secret"]
        assert new != old and view.secret == new
        assert new in plain(view.query_one("#webhook-secret", Static))


async def test_removing_the_target_asks_first(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Unhooked")
    hook(admin, org_id, queue, receiver.url)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        assert view.query_one("#webhook-target", Input).value == receiver.url
        await pilot.press("D")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the guard")
        assert receiver.url in screen_text(app)
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: view.target == "", "removed")
        assert target_of(admin, org_id, queue) == ""
        assert view.query_one("#webhook-target", Input).value == ""
        assert "Remove" not in await settled_footer(app, pilot)  # nothing left to remove


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server as deployed: private and loopback webhook targets refused."""
    process = ServerProcess(tmp_path_factory.mktemp("strict") / "qd.db", seed=ROLES_SEED).start()
    yield process
    process.stop()


async def test_the_servers_refusal_is_shown_on_the_field(
    strict_server: ServerProcess, clock: ManualClock
) -> None:
    app = QueueDeskApp(Target(strict_server.url, KEYS["admin"], None, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_webhook(app, pilot, 1)
        await pilot.press("e")
        await paste(app, pilot, "http://127.0.0.1:9/hook")
        await pilot.press("enter")
        await until(app, pilot, lambda: view.problem is not None, "the server's refusal")
        assert "127.0.0.1" in note(view) and view.query_one("#webhook-target", Input).has_class("-invalid")
        assert app.focused is view.query_one("#webhook-target", Input)
        assert view.target == ""
        await pilot.press("escape")  # puts the saved target back
        await settle(app, pilot)
        assert view.query_one("#webhook-target", Input).value == "" and view.problem is None
        assert isinstance(app.screen, QueueScreen)


# --- other roles and servers ---------------------------------------------------------------------------


async def test_a_supervisor_sees_but_cannot_change(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
    fresh,
    receiver: Receiver,
) -> None:
    queue = fresh("Watched")
    hook(admin, org_id, queue, receiver.url)
    create(admin, org_id, queue)
    complete(worker, org_id, queue)
    receiver.wait_for(1)
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        await refreshed_until(
            app, pilot, clock, lambda: rows(view) and rows(view)[0][1] == "delivered", "the log"
        )
        assert not view.query_one("#webhook-target", Input).display
        assert plain(view.query_one("#webhook-target-text", Static)) == receiver.url
        assert "Read only" in note(view)
        assert not view.query_one("#webhook-secret").display
        footer = footer_line(app)
        for hidden in ("Edit", "Remove", "Secret", "Rotate", "Test", "Redeliver"):
            assert hidden not in footer
        await pilot.press("e", "D", "s", "S", "t", "R")
        await settle(app, pilot)
        assert isinstance(app.screen, QueueScreen)
        assert target_of(admin, org_id, queue) == receiver.url and len(receiver.received) == 1
        assert "R redelivers" not in plain(view.query_one("#webhook-log-note", Static))

        await pilot.press("enter")  # reading the attempts is allowed
        await until(app, pilot, lambda: isinstance(app.screen, DeliveryScreen), "the attempts")
        assert "Redeliver" not in await settled_footer(app, pilot)


async def test_a_worker_has_neither_tab(make_app: MakeApp, fresh) -> None:
    queue = fresh("Worked")
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        tabs = screen.query_one(TabbedContent)
        # Their own reviewed work is theirs to see (the Feedback tab); the webhook and stats are not.
        assert [pane.id for pane in tabs.query("TabPane")] == [
            "tab-pending",
            "tab-completed",
            "tab-blocks",
            "tab-feedback",
        ]
        assert not screen.query(WebhookView) and "Webhook" not in screen_text(app)
        await pilot.press("4", "5")
        await settle(app, pilot)
        assert tabs.active == "tab-pending" and app.is_running


async def test_a_basic_server_offers_the_target_only(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_webhook(app, pilot, BASIC_QUEUE)
        assert "basic Task Queue API" in note(view)
        assert not view.deliveries.display and not view.query_one("#webhook-secret").display
        footer = await settled_footer(app, pilot)
        for hidden in ("Secret", "Rotate", "Test", "Redeliver"):
            assert hidden not in footer
        assert app.focused is view and "Edit" in footer
        await pilot.press("e")
        await paste(app, pilot, "https://hooks.example.com/queuedesk")
        await pilot.press("enter")
        await until(app, pilot, lambda: view.target == "https://hooks.example.com/queuedesk", "saved")
        assert original.hooks[BASIC_QUEUE] == "https://hooks.example.com/queuedesk"

        await pilot.press("D")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the guard")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: view.target == "", "removed")
        assert BASIC_QUEUE not in original.hooks
        assert not [n for n in app.said if n.severity == "error"]


async def test_a_blur_while_the_tab_is_torn_down_does_not_crash_the_app(make_app: MakeApp, fresh) -> None:
    """Leaving the queue while the target field has the focus blurs the field as the screen's
    widgets go; the note's redraw, asked for by the blur, then finds no note (a crash seen in tmux).
    Textual runs that redraw after a refresh of whatever screen is on top by then."""
    queue = fresh("Left")
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        await pilot.press("e")
        await view.query_one("#webhook-field-note", Static).remove()  # as the screen's teardown does
        view.target_part.on_descendant_blur()
        view.remove()  # the tab goes, its redraw still to come
        await settle(app, pilot)
        await pilot.press("escape", "escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, QueueScreen)
    assert app.return_code in (None, 0)


# --- round 2: where a redelivery goes, what the tab says after a removal, secrets -----------------


async def test_redeliver_offers_the_current_target_and_the_log_shows_each_target(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    wrong = Receiver(answer=lambda _n: (500, 0.0)).start()
    fixed = Receiver().start()
    try:
        queue = fresh("Fixed")
        hook(admin, org_id, queue, wrong.url)
        create(admin, org_id, queue)
        task = complete(worker, org_id, queue)
        wrong.wait_for(1)
        hook(admin, org_id, queue, fixed.url)  # the wrong target is fixed afterwards
        app = make_app("admin")
        async with app.run_test(size=(140, 30), notifications=True) as pilot:
            view = await open_webhook(app, pilot, queue["id"])
            await refreshed_until(app, pilot, clock, lambda: rows(view), "the delivery is listed")
            assert rows(view)[0][0] == str(task["id"]) and rows(view)[0][6] == wrong.url

            await pilot.press("R")
            await until(app, pilot, lambda: isinstance(app.screen, RedeliverScreen), "where to is asked")
            assert wrong.url in screen_text(app) and fixed.url in screen_text(app)
            await pilot.press("escape")  # cancelled: nothing is sent
            await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "back")

            await pilot.press("R")
            await until(app, pilot, lambda: isinstance(app.screen, RedeliverScreen), "asked again")
            await pilot.press("enter")  # the current target is offered first
            await refreshed_until(app, pilot, clock, lambda: fixed.received, "the fixed target receives it")
            await refreshed_until(app, pilot, clock, lambda: rows(view)[0][6] == fixed.url, "the new target")
            assert any(fixed.url in n.message for n in app.said if n.title == "Redelivering")
    finally:
        wrong.stop()
        fixed.stop()


async def test_after_removal_the_tab_says_removed_and_a_queue_never_hooked_has_no_secret(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Never hooked")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        secret_line = view.query_one("#webhook-secret", Static)
        await until(app, pilot, lambda: view.has_secret is not None, "the secret is asked for")
        assert "whsec_" not in plain(secret_line) and "none yet" in plain(secret_line)

        await pilot.press("e")
        await paste(app, pilot, receiver.url)
        await pilot.press("enter")
        await until(app, pilot, lambda: view.target == receiver.url, "saved")
        assert note(view).startswith("Saved")
        await until(app, pilot, lambda: "whsec_" in plain(secret_line), "the first target brought a secret")

        await pilot.press("D")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the guard")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: view.target == "", "removed")
        await settle(app, pilot)
        assert "Saved" not in note(view) and note(view).startswith("Removed"), note(view)


async def test_a_second_rotation_within_a_day_warns_that_the_original_stops_now(
    make_app: MakeApp, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    queue = fresh("Twice rotated")
    hook(admin, org_id, queue, receiver.url)
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_webhook(app, pilot, queue["id"])
        await pilot.press("S")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the first guard")
        assert "STOPS SIGNING NOW" not in screen_text(app)
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "rotated once")
        await settle(app, pilot)

        await pilot.press("S")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the second guard")
        said = app.screen.explain
        assert "already rotated" in said and "STOPS SIGNING NOW" in said, said
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: any(n.title == "Secret rotated again" for n in app.said), "said")


async def test_refreshing_the_webhook_tab_does_not_rebuild_the_footer(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int, fresh, receiver: Receiver
) -> None:
    """Each refresh redrew the target and asked for the keys again: the footer's keys were made anew
    every time (about 110 KB a refresh that the collector was slow to give back, 1.4 MB a minute at
    the default 5 s; bench/live_tab_memory.py)."""
    queue = fresh("Steady")
    hook(admin, org_id, queue, receiver.url)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await open_webhook(app, pilot, queue["id"])
        await settle(app, pilot)
        footer = app.screen.query_one(Footer)
        keys_before = [id(key) for key in footer.children]
        for _ in range(5):
            clock.advance(5)
            await settle(app, pilot)
        assert [id(key) for key in footer.children] == keys_before
