"""`g` on the queue screen: a task id puts the cursor on its row however deep in the history (one
count and one page, not a page per key), in either order and under a filter; a day goes to that
day's first row; in Pending a task id goes to its row; the palette opens a task by id."""

from datetime import UTC, datetime

import httpx
from textual.widgets import Input

from queuedesk.tui.modals.go_to import GoToScreen, read_place
from queuedesk.tui.modals.task import TaskScreen
from tests.conftest import make_queue
from tests.support import ServerProcess, execute_sql
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, create, open_queue, qpath
from tests.tui.test_history import all_completed, big, open_history, shown_ids  # noqa: F401  (fixture)


def test_a_place_is_a_task_id_or_a_day() -> None:
    assert read_place("123") == read_place("#123") == read_place("task 123") == 123
    assert str(read_place(" 2026-11-20 ")) == "2026-11-20"
    assert read_place("yesterday") is None and read_place("0") is None and read_place("") is None


async def go(app, pilot, typed: str) -> None:
    await pilot.press("g")
    await until(app, pilot, lambda: isinstance(app.screen, GoToScreen), "where to is asked")
    app.screen.query_one("#go-to", Input).value = typed
    await pilot.press("enter")
    await settle(app, pilot)


def at_cursor(table) -> tuple[int, int]:
    """(the cursor's row in the whole list, its task id)."""
    return table.start + table.cursor_row, table.item_at_cursor().id


async def test_g_reaches_a_task_deep_in_the_history_in_either_order(
    make_app: MakeApp,
    admin: httpx.Client,
    org_id: int,
    big: dict,  # noqa: F811
) -> None:
    ids = all_completed(admin, org_id, big)
    deep = ids[3210]
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        _screen, table = await open_history(app, pilot, big["id"])
        await go(app, pilot, str(deep))
        await until(
            app, pilot, lambda: not table.busy and table.item_at_cursor().id == deep, "the task's row"
        )
        assert at_cursor(table) == (3210, deep)
        assert str(deep) in screen_text(app)  # scrolled to, on screen

        await pilot.press("o")  # oldest first
        await until(app, pilot, lambda: not table.busy and shown_ids(table)[0] == ids[-1], "oldest first")
        await go(app, pilot, f"task {deep}")
        await until(app, pilot, lambda: not table.busy and table.item_at_cursor().id == deep, "the row again")
        assert at_cursor(table) == (len(ids) - 1 - 3210, deep)
        assert str(deep) in screen_text(app)


async def test_g_goes_to_a_days_first_row_and_a_pending_tasks_row(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, label="Days")
    create(admin, org_id, queue, 8)
    done = [complete(worker, org_id, queue)["id"] for _ in range(5)]
    for task_id, day in zip(done, (10, 11, 11, 13, 14), strict=True):
        at = int(datetime(2026, 11, day, 12, tzinfo=UTC).timestamp() * 1_000_000) + task_id
        execute_sql(server.db_url, f"UPDATE tasks SET completed_at = {at} WHERE id = {task_id}")
    waiting = [t["id"] for t in admin.get(f"{qpath(org_id, queue)}/tasks").json()["tasks"]]
    app = make_app("admin")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen, table = await open_history(app, pilot, queue["id"])
        assert shown_ids(table) == done[::-1]
        await go(app, pilot, "2026-11-11")  # newest first: the 11th's newest task
        await until(app, pilot, lambda: table.item_at_cursor().id == done[2], "the 11th's first row")
        await go(app, pilot, "2026-11-12")  # nothing that day: the next row down, the 11th's
        await until(app, pilot, lambda: table.item_at_cursor().id == done[2], "the day before")
        await pilot.press("o")
        await until(app, pilot, lambda: not table.busy and shown_ids(table) == done, "oldest first")
        await go(app, pilot, "2026-11-11")  # oldest first: the 11th's oldest task
        await until(app, pilot, lambda: table.item_at_cursor().id == done[1], "the 11th's first row")
        await go(app, pilot, "999999999")
        await until(app, pilot, lambda: "There is no task 999999999" in screen_text(app), "said")

        await pilot.press("1")  # Pending
        await settle(app, pilot)
        await go(app, pilot, str(waiting[-1]))
        await until(app, pilot, lambda: screen.pending.item_at_cursor().id == waiting[-1], "its row")
        await go(app, pilot, str(done[0]))  # a completed task from Pending: shown on its own
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the task is shown")
        assert app.screen.shown.id == done[0]


async def test_the_palette_opens_a_task_by_id(make_app: MakeApp, admin: httpx.Client, org_id: int) -> None:
    queue = make_queue(admin, org_id, label="Palette")
    (task_id,) = create(admin, org_id, queue, 1)
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        await open_queue(app, pilot, queue["id"])
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await pilot.press(*f"task {task_id}")
        await until(app, pilot, lambda: f"Open task {task_id}" in screen_text(app), "the palette offers it")
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the task is shown")
        assert app.screen.shown.id == task_id
