"""The completed history over 5,000 tasks: pages load as the cursor nears the end, only a window of
rows is kept, no task is shown twice or skipped while others complete, and the worker filter.
"""

import asyncio
import itertools
import re
from collections.abc import Callable

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TabbedContent

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.widgets.paged_table import PagedTable
from tests.conftest import make_queue
from tests.fill import fill_completed
from tests.support import ServerProcess
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, open_queue, plain, point_at, show_tab

SIZE = (100, 30)
HALF = 2_500  # completed by Wes, and as many by Wyn
WINDOW = 500  # PagedTable keeps five pages of 100
_names = itertools.count(1)


def fill(server: ServerProcess, admin: httpx.Client, org: int) -> dict:
    """A queue with 5,000 completed tasks (2,500 by Wes, then 2,500 by Wyn) and 50 new ones."""
    queue = make_queue(admin, org, name=f"History {next(_names)}")

    def data(n: int) -> dict:
        return {"paragraph": f"history {n}", "category": "red" if n % 2 else "blue", "photo": None}

    fill_completed(server.db_url, queue["id"], HALF, "wes@acme.test", data)
    fill_completed(server.db_url, queue["id"], HALF, "wyn@acme.test", data)
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"later {n}"}} for n in range(50)]}
    assert admin.post(f"{path(org, queue)}/tasks/import", json=body).status_code == 200
    return queue


def path(org: int, queue: dict) -> str:
    return f"/orgs/{org}/queues/{queue['id']}"


def all_completed(admin: httpx.Client, org: int, queue: dict) -> list[int]:
    """Every completed task's id, newest first, as the server lists them."""
    ids: list[int] = []
    while True:
        page = admin.get(
            f"{path(org, queue)}/tasks/completed", params={"offset": len(ids), "limit": 1000}
        ).json()
        ids += [t["id"] for t in page["tasks"]]
        if page["next"] is None:
            return ids


def complete_some(worker: httpx.Client, org: int, queue: dict, n: int) -> list[int]:
    done = []
    for _ in range(n):
        task = worker.post(f"{path(org, queue)}/tasks/next").json()
        answer = worker.post(
            f"{path(org, queue)}/tasks/{task['id']}/complete", json={"data": {"category": "green"}}
        )
        assert answer.status_code == 200, answer.text
        done.append(task["id"])
    return done


@pytest.fixture(scope="module")
def big(server: ServerProcess, clients: dict[str, httpx.Client], org_id: int) -> dict:
    """Shared by the tests that only read it."""
    return fill(server, clients["admin"], org_id)


@pytest.fixture(scope="module")
def busy(server: ServerProcess, clients: dict[str, httpx.Client], org_id: int) -> dict:
    """Shared by the tests that complete more tasks while they scroll (each reads it afresh)."""
    return fill(server, clients["admin"], org_id)


def shown_ids(table: PagedTable) -> list[int]:
    return [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]


def rows_note(screen: QueueScreen) -> tuple[int, int, int]:
    """(first row, last row, total) as the note above the history says them."""
    note = plain(screen.query_one("#history-note", Static))
    found = re.search(r"([\d,]+) tasks.* · rows ([\d,]+) to ([\d,]+)", note)
    assert found, note
    total, first, last = (int(g.replace(",", "")) for g in found.groups())
    return first, last, total


def loaded(screen: QueueScreen, table: PagedTable) -> bool:
    """The table holds no page in flight and the note above it says the rows it holds: the note
    follows the table's `Loaded` message, which a loaded machine handles a moment after the page."""
    if table.busy:
        return False
    note = plain(screen.query_one("#history-note", Static))
    found = re.search(r" · rows ([\d,]+) to ([\d,]+)", note)
    if not table.items:
        return found is None
    return found is not None and found.groups() == (f"{table.start + 1:,}", f"{table.end:,}")


async def open_history(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> tuple[QueueScreen, PagedTable]:
    screen = await open_queue(app, pilot, queue_id)
    await show_tab(app, pilot, "tab-completed")
    table = screen.history
    await until(
        app, pilot, lambda: table.row_count > 0 and loaded(screen, table), "the first page of history"
    )
    table.focus()
    await pilot.pause()
    return screen, table


async def press_and_load(app: QueueDeskApp, pilot: Pilot, table: PagedTable, *keys: str) -> None:
    await pilot.press(*keys)
    screen = table.screen
    assert isinstance(screen, QueueScreen)
    await until(app, pilot, lambda: loaded(screen, table), "the page loaded and the note saying its rows")


async def walk_down(
    app: QueueDeskApp,
    pilot: Pilot,
    screen: QueueScreen,
    table: PagedTable,
    between: Callable[[int], None] = lambda step: None,
    pages: int = 200,
) -> list[tuple[int, list[int]]]:
    """Go to the last row (ctrl+end) until the history's last row is loaded (or `pages` more
    pages are); every window seen, with its first row's offset."""
    seen = []
    for step in range(pages + 1):
        first, last, _total = rows_note(screen)
        ids = shown_ids(table)
        assert len(ids) == last - first + 1 and table.row_count <= WINDOW
        seen.append((first - 1, ids))
        if last == table.total or step == pages:
            return seen
        between(step)
        await press_and_load(app, pilot, table, "ctrl+end")
    raise AssertionError("the end of the history was never reached")


async def test_scrolling_down_loads_further_pages_and_keeps_a_window(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    expected = all_completed(clients["admin"], org_id, big)
    assert len(expected) == 2 * HALF
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        assert rows_note(screen) == (1, 100, 2 * HALF)
        assert shown_ids(table) == expected[:100]
        assert "5,000 tasks" in plain(screen.query_one("#history-note", Static))

        table.move_cursor(row=78)
        await press_and_load(app, pilot, table, "down")
        assert rows_note(screen) == (1, 100, 2 * HALF)  # not yet near the end
        await press_and_load(app, pilot, table, "down")  # 20 rows from the end: the next page
        assert rows_note(screen) == (1, 200, 2 * HALF)
        assert shown_ids(table) == expected[:200]  # rows beyond the first page
        assert table.cursor_row == 80

        windows = await walk_down(app, pilot, screen, table, pages=6)  # rows 1-800 (the whole: below)
        for offset, ids in windows:
            assert ids == expected[offset : offset + len(ids)]
        assert [len(ids) for _, ids in windows] == [200, 300, 400, 500, 500, 500, 500]
        assert rows_note(screen) == (301, 800, 2 * HALF)  # the rows scrolled past were let go


async def test_pages_painted_before_the_queues_blocks_came_show_the_values_once_they_come(
    make_app: MakeApp, big: dict
) -> None:
    """The queue's blocks (which name the values) and the first pages are fetched side by side: a
    page in first is painted with no values, and must show them when the blocks arrive."""
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        queues = await home(app, pilot)
        await until(app, pilot, lambda: str(big["id"]) in queues.table.rows, "the queue is listed")
        client = app.session.client  # type: ignore[union-attr]
        blocks_may_come = asyncio.Event()
        fetch_queue = client.queue

        async def queue_later(queue_id: int) -> object:
            await blocks_may_come.wait()
            return await fetch_queue(queue_id)

        client.queue = queue_later  # type: ignore[method-assign]
        point_at(queues, big["id"])
        await pilot.press("enter")

        async def held(condition: Callable[[], bool], what: str) -> None:
            """As `until`, for while the blocks are held (the app's refresh never completes then)."""
            for _ in range(400):
                if condition():
                    return
                await pilot.pause(0.05)
            raise AssertionError(f"never happened: {what}\n{screen_text(app)}")

        def pending_painted() -> bool:
            screen = app.screen
            if not isinstance(screen, QueueScreen) or not screen.pending.items:
                return False
            return screen.pending.key_of(screen.pending.items[0]) in screen_text(app)

        await held(pending_painted, "the pending page painted")
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        assert screen.detail is None and "(no values)" in screen_text(app), screen_text(app)
        screen.query_one(TabbedContent).active = "tab-completed"
        await held(
            lambda: screen.history.row_count > 0 and str(shown_ids(screen.history)[0]) in screen_text(app),
            "the history page painted",
        )
        assert "(no values)" in screen_text(app), screen_text(app)  # painted, and without values

        blocks_may_come.set()
        await until(app, pilot, lambda: re.search(r"· history \d+", screen_text(app)), "the history's values")
        assert "(no values)" not in screen_text(app), screen_text(app)
        await show_tab(app, pilot, "tab-pending")
        await until(
            app, pilot, lambda: re.search(r"later \d+", screen_text(app)), "the pending tasks' values"
        )
        assert "(no values)" not in screen_text(app), screen_text(app)


async def test_the_cursor_keys_move_through_the_history_on_screen(make_app: MakeApp, big: dict) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await pilot.press(*["down"] * 30)
        cursor_id = str(shown_ids(table)[table.cursor_row])
        assert table.cursor_row == 30
        assert cursor_id in screen_text(app), (
            f"the cursor is on row 31 (task {cursor_id}) but the screen still shows the top of the list; "
            f"the history table is {table.size.height} lines high in a {SIZE[1]}-line terminal"
        )
        await pilot.press("ctrl+home", "pagedown")
        assert 10 <= table.cursor_row < SIZE[1], f"pagedown moved the cursor {table.cursor_row} rows"
        assert str(shown_ids(table)[table.cursor_row]) in screen_text(app)

        await press_and_load(app, pilot, table, "ctrl+end")  # the last row loaded
        assert table.cursor_row == 99, "ctrl+end did not move the cursor to the last row loaded"
        assert rows_note(screen) == (1, 200, 2 * HALF)  # and near the end, the next page loads
        assert str(shown_ids(table)[table.cursor_row]) in screen_text(app)
        await pilot.press("ctrl+home")
        assert table.cursor_row == 0


async def test_end_and_home_reach_the_ends_of_the_whole_history_at_once(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    """The oldest of 5,000 took a page per press of end (510 presses for 50,000): now one."""
    expected = all_completed(clients["admin"], org_id, big)
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await press_and_load(app, pilot, table, "end")
        assert table.item_at_cursor().id == expected[-1], "end is the oldest task"
        assert rows_note(screen) == (2 * HALF - 99, 2 * HALF, 2 * HALF)
        assert str(expected[-1]) in screen_text(app)
        await press_and_load(app, pilot, table, "up")
        assert table.item_at_cursor().id == expected[-2]
        await press_and_load(app, pilot, table, "home")
        assert table.item_at_cursor().id == expected[0], "home is the newest task"
        assert rows_note(screen)[0] == 1 and str(expected[0]) in screen_text(app)


async def test_no_task_is_shown_twice_or_skipped_while_tasks_complete(
    make_app: MakeApp, clock: ManualClock, busy: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    worker = clients["worker"]
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, busy["id"])
        expected = all_completed(clients["admin"], org_id, busy)  # what existed at load
        assert shown_ids(table) == expected[:100]

        def meanwhile(step: int) -> None:
            if step % 5 == 0:
                complete_some(worker, org_id, busy, 2)

        windows = await walk_down(app, pilot, screen, table, meanwhile)
        seen: dict[int, int] = {}  # task id -> its row
        for offset, ids in windows:
            assert ids == expected[offset : offset + len(ids)], f"the window at row {offset + 1} moved"
            for row, task_id in enumerate(ids, start=offset):
                assert seen.setdefault(task_id, row) == row, f"task {task_id} shown at two places"
        assert list(seen) == expected  # every one, once, in order: none skipped
        assert windows[-1][1][-1] == expected[-1]  # the oldest, at the bottom

        clock.advance(5)  # the counts poll sees the new completions: the list says so, and does not shift
        await until(
            app,
            pilot,
            lambda: (
                "20 completed since loaded (r reloads)" in plain(screen.query_one("#history-note", Static))
            ),
            "the note says how many completed since the list was loaded",
        )
        assert shown_ids(table) == windows[-1][1]


async def test_back_at_the_top_after_tasks_completed_the_rows_are_the_same(
    make_app: MakeApp, busy: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    worker = clients["worker"]
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, busy["id"])
        expected = all_completed(clients["admin"], org_id, busy)
        await walk_down(app, pilot, screen, table, pages=5)
        assert rows_note(screen) == (101, 600, len(expected))
        complete_some(worker, org_id, busy, 3)  # newer than anything listed
        for _ in range(5):
            await press_and_load(app, pilot, table, "ctrl+home")
            first, last, _total = rows_note(screen)
            shown, listed = shown_ids(table), expected[first - 1 : last]
            assert shown == listed, (
                f"scrolled back to row {first}: new rows {sorted(set(shown) - set(expected))}, "
                f"skipped {sorted(set(listed) - set(shown))}"
            )
            if first == 1:
                break
        assert rows_note(screen)[0] == 1


async def test_filter_by_worker_shows_only_that_workers_tasks(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        assert rows_note(screen)[2] == 2 * HALF
        await pilot.press("f")
        assert app.focused is screen.query_one("#filter-worker")
        await pilot.press(*"wyn@acme.test", "enter")
        await until(
            app, pilot, lambda: not table.busy and rows_note(screen)[2] == HALF, "the filtered history"
        )
        assert "completed by wyn@acme.test" in plain(screen.query_one("#history-note", Static))
        focused_after_filter = app.focused
        table.focus()
        await pilot.pause()
        for _ in range(3):
            assert {str(table.get_row_at(i)[2]) for i in range(table.row_count)} == {"wyn@acme.test"}
            await press_and_load(app, pilot, table, "ctrl+end")
        assert rows_note(screen)[1] == 400
        assert focused_after_filter is table, (
            f"after enter applies the filter the focus stays on {focused_after_filter}, not the history"
        )


async def test_a_search_finds_text_in_any_value_in_any_case(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    found = clients["supervisor"].get(
        f"{path(org_id, big)}/tasks/completed", params={"q": "history 24", "limit": 1}
    )
    expected = found.json()["count"]
    assert 0 < expected < 2 * HALF
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await pilot.press("f")
        assert screen.query_one("#filter-text").display
        await pilot.press("tab", "tab", "tab")
        assert app.focused is screen.query_one("#filter-text")
        await pilot.press(*"HISTORY 24", "enter")
        await until(
            app, pilot, lambda: not table.busy and rows_note(screen)[2] == expected, "the history searched"
        )
        assert "with “HISTORY 24” in a value" in plain(screen.query_one("#history-note", Static))
        summaries = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
        assert summaries and all("history 24" in summary for summary in summaries), summaries[:5]


async def test_a_worker_sees_only_their_own_history(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        assert rows_note(screen)[2] == HALF
        assert "your completed tasks" in plain(screen.query_one("#history-note", Static))
        for _ in range(3):
            assert {str(table.get_row_at(i)[2]) for i in range(table.row_count)} == {"wes@acme.test"}
            await press_and_load(app, pilot, table, "ctrl+end")
        await pilot.press("f")  # the worker field says "me" and cannot be changed
        worker_field = screen.query_one("#filter-worker")
        assert worker_field.value == "me" and worker_field.disabled


async def test_a_date_range_keeps_its_days_and_a_bad_range_is_refused_on_the_field(
    make_app: MakeApp, server: ServerProcess, clients: dict[str, httpx.Client], org_id: int
) -> None:
    from datetime import UTC, datetime

    from textual.widgets import Input

    from tests.support import execute_sql
    from tests.tui.test_app import complete, create

    admin, worker = clients["admin"], clients["worker"]
    queue = make_queue(admin, org_id, name=f"Dated {next(_names)}")
    create(admin, org_id, queue, 6)
    done = [complete(worker, org_id, queue)["id"] for _ in range(6)]
    days = [datetime(2026, 11, d, 12, tzinfo=UTC) for d in (10, 11, 12, 13, 14, 15)]
    for task_id, day in zip(done, days, strict=True):
        at = int(day.timestamp() * 1_000_000)
        execute_sql(server.db_url, f"UPDATE tasks SET completed_at = {at} WHERE id = {task_id}")
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, queue["id"])
        assert shown_ids(table) == done[::-1]

        await pilot.press("f")
        start, end = screen.query_one("#filter-from", Input), screen.query_one("#filter-to", Input)
        start.value, end.value = "2026-11-11", "2026-11-13"  # as typed (typing it key by key is slow)
        await pilot.press("enter")
        await until(app, pilot, lambda: not table.busy and rows_note(screen)[2] == 3, "the range's tasks")
        assert shown_ids(table) == [done[3], done[2], done[1]]  # the 11th to the 13th, both days kept
        assert "from 2026-11-11" in plain(screen.query_one("#history-note", Static))

        async def refused(field_id: str, word: str) -> None:
            field = screen.query_one(field_id, Input)
            assert field.has_class("-invalid") and word in str(field.border_title)
            assert app.focused is field
            assert screen.query_one("#history-filters").display  # the row stays open ...
            assert shown_ids(table) == [done[3], done[2], done[1]]  # ... and nothing changed below
            await pilot.pause()
            assert word in screen_text(app)

        await pilot.press("f")
        end.value = "2026-11-31"
        start.focus()
        await pilot.press("enter")
        await refused("#filter-to", "not a date")
        assert (start.value, end.value) == ("2026-11-11", "2026-11-31")  # what was typed is kept

        end.value = "2026-11-01"  # before the start: refused too
        await pilot.pause()
        assert not end.has_class("-invalid")  # editing the field takes the word away
        await pilot.press("enter")
        await refused("#filter-to", "before the 'from' date")
        assert (start.value, end.value) == ("2026-11-11", "2026-11-01")


async def test_o_lists_the_history_oldest_first_and_back(
    make_app: MakeApp, big: dict, clients: dict[str, httpx.Client], org_id: int
) -> None:
    expected = all_completed(clients["admin"], org_id, big)
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await press_and_load(app, pilot, table, "o")
        await until(app, pilot, lambda: table.row_count > 0 and not table.busy, "the oldest page")
        assert shown_ids(table)[:100] == expected[::-1][:100]
        assert "oldest first" in plain(screen.query_one("#history-note", Static))
        await press_and_load(app, pilot, table, "ctrl+end")  # the next page, still oldest first
        assert shown_ids(table) == expected[::-1][:200]
        await press_and_load(app, pilot, table, "end")
        assert table.item_at_cursor().id == expected[0], "the newest is last"
        await press_and_load(app, pilot, table, "o")
        await until(app, pilot, lambda: table.row_count > 0 and not table.busy, "newest first again")
        assert shown_ids(table)[:100] == expected[:100]
        assert "newest first" in plain(screen.query_one("#history-note", Static))
