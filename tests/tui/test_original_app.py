"""The app against the original service's stand-in (issue 30): the new-task form's pre-check and
failures, and what the app says where the original differs from QueueDesk's own server."""

from textual.pilot import Pilot

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.screens.create import CreateTaskScreen
from queuedesk.tui.settings import Target
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import (  # noqa: F401  (fixtures)
    RECEIPTS,
    TAGGING,
    OriginalService,
    further,
    original,
    service,
)
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.tui.test_app import home, notes, screen_text, settle, until

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
