"""The app against the original service's stand-in (issue 30): the new-task form's pre-check and
failures, and what the app says where the original differs from QueueDesk's own server."""

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from queuedesk.tui.admin.webhook_target import target_problem
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.screens.create import CreateTaskScreen
from queuedesk.tui.settings import Target
from tests.api.test_original_service import (  # noqa: F401  (fixtures)
    MEMBER_TOKEN,
    RECEIPTS,
    TAGGING,
    OriginalService,
    cli,
    further,
    original,
    service,
)
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.support.pilot import settled_footer
from tests.tui.test_app import (
    connect_problem,
    home,
    notes,
    open_flush,
    open_queue,
    plain,
    screen_text,
    settle,
    show_tab,
    until,
)

SIZE = (110, 34)


def basic_app(stand_in: OriginalService, clock: ManualClock) -> QueueDeskApp:
    return QueueDeskApp(Target(stand_in.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)


async def open_create_form(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> CreateTaskScreen:
    screen = await home(app, pilot)
    await until(app, pilot, lambda: str(queue_id) in screen.table.rows, "the queue is listed")
    screen.table.move_cursor(row=screen.table.get_row_index(str(queue_id)))
    await pilot.press("n")
    await until(
        app,
        pilot,
        lambda: isinstance(app.screen, CreateTaskScreen) and app.screen.query(TaskForm),
        "the create form is shown",
    )
    assert isinstance(app.screen, CreateTaskScreen)
    return app.screen


async def test_the_new_task_form_refuses_what_the_original_fails_on_before_sending(
    further: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = basic_app(further, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_create_form(app, pilot, TAGGING)
        await pilot.press(*"hello", "ctrl+s")
        await settle(app, pilot)
        said = "\n".join(notes(app))
        assert "Nothing was sent" in said, said
        assert "Do what each one says" in said and "Fill them" not in said, said  # not every fix fills
        assert "saves the task and then fails" in screen_text(app), screen_text(app)
    assert further.creates == 0


async def test_a_failed_create_on_the_original_says_it_was_probably_saved(
    further: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    further.fail_after_save = {1}
    app = basic_app(further, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_create_form(app, pilot, RECEIPTS)
        await pilot.press(*"hello", "ctrl+s")
        await until(app, pilot, lambda: any("not confirmed" in n for n in notes(app)), "the failure is said")
        said = "\n".join(notes(app))
        assert "probably saved anyway" in said and "Do not send it again" in said, said
        assert "<h1>" not in said and "(r)" not in said and "try again" not in said.lower(), said
    assert further.creates == 1


def painted_header(app: QueueDeskApp) -> str:
    return screen_text(app).splitlines()[0]


@pytest.mark.parametrize("width", [120, 100, 80])
async def test_the_basic_notice_never_hides_the_queue_nor_not_answering(
    clock: ManualClock, width: int
) -> None:
    stand_in = OriginalService()  # of this test alone: it is stopped
    try:
        app = basic_app(stand_in, clock)
        async with app.run_test(size=(width, 30), notifications=True) as pilot:
            screen = await home(app, pilot)
            assert painted_header(app).count("basic API") == 1, painted_header(app)
            queue = await open_queue(app, pilot, BASIC_QUEUE)
            assert "/ Categorization" in painted_header(app), painted_header(app)
            stand_in.stop()
            for _ in range(3):
                clock.advance(5)
                await settle(app, pilot)
            assert queue.poller.stale
            line = painted_header(app)
            assert "/ Categorization" in line and "not answering" in line, line
            await pilot.press("escape")
            await until(app, pilot, lambda: app.screen is screen, "back on the queue list")
            for _ in range(3):
                clock.advance(5)
                await settle(app, pilot)
            assert screen.poller.stale and "not answering" in painted_header(app), painted_header(app)
    finally:
        stand_in.stop()


async def test_a_member_key_is_told_the_history_is_forbidden_not_empty(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, MEMBER_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, BASIC_QUEUE)
        await show_tab(app, pilot, "tab-completed")
        note = screen.query_one("#history-note", Static)
        await until(app, pilot, lambda: "Not allowed" in plain(note), "the history says it is refused")
        app.clear_notifications()
        clock.advance(5)  # a refresh later, once the toast is gone: still refused, not "0 tasks"
        await settle(app, pilot)
        said = plain(note)
        assert "Not allowed" in said and "0 tasks" not in said, said
        assert not screen.poller.stale  # the rest of the view refreshes


async def test_flush_on_a_basic_server_warns_that_anyone_may_flush(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = basic_app(original, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        guard = await open_flush(app, pilot)
        said = plain(guard.query_one("#flush-explain", Static))
        assert "does not check who may flush" in said and "deliveries" not in said, said
    refused = cli(original, "flush", str(BASIC_QUEUE), QUEUEDESK_TOKEN=MEMBER_TOKEN)
    assert refused.code == 2 and "does not check who may flush" in refused.err, refused
    done = cli(original, "flush", str(BASIC_QUEUE), "--yes", QUEUEDESK_TOKEN=MEMBER_TOKEN)
    assert done.code == 0 and "does not check who may flush" in done.err, done


async def test_a_basic_server_is_not_described_as_queuedesk(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    note_block = {"id": "note", "name": "Note", "type": "text", "text": {"placeholder": "", "value": None}}
    original.add_queue(13, "Notes", [note_block])
    original.complete_now(13, {"note": "seen"})
    original.hooks[13] = "https://hooks.example.com/q"
    app = basic_app(original, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        assert "w Work" not in await settled_footer(app, pilot)
        screen = await open_queue(app, pilot, 13)
        assert "w Work" not in await settled_footer(app, pilot)
        await show_tab(app, pilot, "tab-blocks")
        assert "None" not in screen_text(app) and "value" not in screen_text(app)

        await show_tab(app, pilot, "tab-completed")
        await pilot.press("f")
        screen.query_one("#filter-from", Input).value = "2026-11-20"
        screen.query_one("#filter-to", Input).value = "2099-11-25"
        screen.query_one("#filter-to", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        said = plain(screen.query_one("#history-note", Static))
        assert "from 2026-11-20 to 2099-11-25" in said and "00:00" not in said, said

        await show_tab(app, pilot, "tab-webhook")
        view = screen.query_one(WebhookView)
        await until(app, pilot, lambda: view.target is not None, "the target is read")
        view.focus()
        await pilot.press("D")
        await until(app, pilot, lambda: app.screen is not screen, "the guard")
        guard = screen_text(app)
        assert "signing secret" not in guard and "already queued" not in guard, guard
    credentials = target_problem("https://u:p@hooks.example.com/q", signed=False) or ""
    assert (
        "password" in credentials
        and "delivery log" not in credentials
        and "webhook secret" not in credentials
    )


async def test_connect_names_a_plain_http_port_and_puts_the_focus_on_the_address(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    """https:// to the original's plain port: the cause named as the command line names it, and the
    focus where the fix is typed (not left on the Connect button)."""
    url = original.url.replace("http://", "https://")
    app = QueueDeskApp(Target(url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        said = await connect_problem(app, pilot, "speaks plain HTTP")
        assert "should start with http://, not https://" in said, said
        await settle(app, pilot)
        assert app.focused is app.screen.query_one("#url", Input), app.focused
