"""The queue screen's Stats tab against a real server: a completion shows within one refresh, the
period keys, the per-worker pace, and what a basic server gets.

The server counts its buckets up to its own (real) now, so these tests run the app's clock a little
ahead of the real one: every completion made during the test falls inside the periods shown.
"""

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.settings import Target
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.support import ServerProcess, execute_sql
from tests.support.pilot import settle, settled_footer, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import claim, complete, create, footer_line, open_queue, plain

SIZE = (100, 30)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30))


async def open_stats(app: QueueDeskApp, pilot: Pilot, queue_id: int) -> StatsView:
    screen = await open_queue(app, pilot, queue_id)
    await pilot.press("4")
    view = screen.query_one(StatsView)
    await until(app, pilot, lambda: view.stats is not None or view.unavailable, "the stats are read")
    return view


def summary(view: StatsView) -> str:
    return plain(view.query_one("#stats-summary", Static))


def workers(view: StatsView) -> list[list[str]]:
    """Each worker's pace (the review columns among them are tests/tui/test_review.py's)."""
    table = view.query_one("#stats-workers", DataTable)
    pace = [
        n
        for n, key in enumerate(table.columns)
        if key.value in ("name", "email", "completed", "median", "last")
    ]
    return [[str(table.get_row_at(i)[n]) for n in pace] for i in range(table.row_count)]


async def test_a_completion_shows_within_one_refresh(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    worker: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
    fresh,
) -> None:
    queue = fresh("Watched")
    create(admin, org_id, queue, 3)
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_stats(app, pilot, queue["id"])
        assert summary(view).startswith("0 completed in 8 h")
        assert "now 3 pending (0 in progress)" in summary(view)
        assert workers(view) == []
        assert "Nobody completed" in plain(view.query_one("#stats-note", Static))
        # An empty period's scale has one 0, at the foot, not a 0 at the top as well.
        assert plain(view.query_one("#chart-scale", Static)).split() == ["0"]

        complete(worker, org_id, queue)
        claim(clients["worker2"], org_id, queue)
        clock.advance(5)  # one refresh
        await settle(app, pilot)
        assert summary(view).startswith("1 completed in 8 h, at most 1 per 15 min")
        assert "now 2 pending (1 in progress)" in summary(view)
        assert view.stats is not None and sum(view.stats.completed) == 1
        ((name, email, done, median, last),) = workers(view)
        assert (name, email, done) == ("Wes", "wes@acme.test", "1")
        assert median.endswith(" s") and last.endswith("s ago")
        assert not view.query_one("#stats-note").display


async def test_the_period_keys_choose_the_window_and_its_buckets(
    make_app: MakeApp, clock: ManualClock, fresh
) -> None:
    queue = fresh("Periods")
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_stats(app, pilot, queue["id"])
        await until(
            app, pilot, lambda: "Longer" in footer_line(app) and "Shorter" in footer_line(app), "keys"
        )
        seen = []
        for key in ("plus", "plus", "plus", "minus", "minus", "minus", "minus"):
            await pilot.press(key)
            await settle(app, pilot)
            assert view.stats is not None
            period = view.period
            assert view.stats.bucket_minutes == period.bucket_minutes
            assert view.stats.since == period.since(clock.now())
            assert f"in {period.bucket_label} buckets" in plain(view.query_one("#stats-period", Static))
            assert summary(view).startswith(f"0 completed in {period.label}")
            seen.append((period.label, period.bucket_minutes))
        assert seen == [
            ("24 h", 60),
            ("7 d", 360),
            ("7 d", 360),  # the longest stays
            ("24 h", 60),
            ("8 h", 15),
            ("1 h", 5),
            ("1 h", 5),
        ]


async def test_each_workers_pace_reads_for_people(
    make_app: MakeApp,
    clock: ManualClock,
    server: ServerProcess,
    admin: httpx.Client,
    worker: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
    fresh,
) -> None:
    queue = fresh("Paced")
    create(admin, org_id, queue, 3)
    done = [complete(worker, org_id, queue)["id"], complete(worker, org_id, queue)["id"]]
    done.append(complete(clients["worker2"], org_id, queue)["id"])
    now = clock.now()
    for task_id, minutes_ago, seconds in zip(done, (3, 50, 125), (65, 185, 7300), strict=True):
        at = int((now - timedelta(minutes=minutes_ago)).timestamp() * 1_000_000)
        execute_sql(
            server.db_url,
            f"UPDATE tasks SET completed_at = {at}, work_micros = {seconds * 1_000_000} WHERE id = {task_id}",
        )
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_stats(app, pilot, queue["id"])
        assert workers(view) == [
            ["Wes", "wes@acme.test", "2", "2 min 05 s", "3 min ago"],  # the median of 65 s and 185 s
            ["Wyn", "wyn@acme.test", "1", "2 h 01 min", "2 h ago"],
        ]
        table = view.query_one("#stats-workers", DataTable)

        def labels() -> list[str]:
            return [str(column.label) for column in table.columns.values()]

        assert "Completed ▼" in labels()  # most completed first, marked
        # s goes through the columns that sort, in their order: the accept rate (nobody reviewed:
        # by name), the quickest median, the latest completion, the name, and the count again.
        for key, mark in (
            ("rate", "Accepted ▼"),
            ("median", "Median per task ▲"),
            ("last", "Last completed ▼"),
            ("name", "Worker ▲"),
            ("completed", "Completed ▼"),
        ):
            await pilot.press("s")
            await settle(app, pilot)
            assert view.sort == key and mark in labels(), labels()
            assert [w[0] for w in workers(view)] == ["Wes", "Wyn"], (key, workers(view))
        view.sort = "name"
        view.stats.by_worker.reverse()  # as if the server listed them the other way round
        await pilot.press("s", "s", "s", "s", "s")  # round to the name again: Wes, then Wyn
        await settle(app, pilot)
        assert view.sort == "name" and [w[0] for w in workers(view)] == ["Wes", "Wyn"]


async def test_a_refresh_puts_in_only_what_changed(
    make_app: MakeApp,
    clock: ManualClock,
    server: ServerProcess,
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
    fresh,
) -> None:
    """Refreshes that bring the same figures leave the tab's texts and the worker table's cells as
    they are (the same objects): each cell put in anew made the table render its cells afresh at
    every refresh and keep the old renders, several MB at a refresh every 0.2 s (bench/README.md).
    A figure that changes is put in, and only it."""
    queue = fresh("Steady")
    create(admin, org_id, queue, 2)
    done = complete(worker, org_id, queue)["id"]
    at = int((clock.now() - timedelta(hours=2)).timestamp() * 1_000_000)  # "2 h ago" all along
    execute_sql(server.db_url, f"UPDATE tasks SET completed_at = {at} WHERE id = {done}")
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_stats(app, pilot, queue["id"])
        table = view.query_one("#stats-workers", DataTable)
        texts = ("#stats-period", "#stats-summary", "#stats-note", "#chart-scale", "#chart-axis")

        def shown() -> tuple[list[object], list[object]]:
            return table.get_row_at(0), [view.query_one(name, Static).content for name in texts]

        await until(app, pilot, lambda: table.row_count == 1, "the worker's row")
        cells, contents = shown()
        same_figures = 0
        for _ in range(5):
            before = view.stats
            clock.advance(5)  # one refresh
            await until(app, pilot, lambda: view.stats is not before, "a refresh")  # noqa: B023
            await settle(app, pilot)
            now_cells, now_contents = shown()
            # A quarter hour turning (on the app's clock or the server's) legitimately brings other
            # buckets: only a refresh that brought the same figures must leave everything in place.
            if view.stats == before:
                same_figures += 1
                assert all(a is b for a, b in zip(now_cells, cells, strict=True))
                assert all(a is b for a, b in zip(now_contents, contents, strict=True))
            cells, contents = now_cells, now_contents
        assert same_figures >= 3  # one quarter-hour turn touches at most two of the five refreshes
        assert workers(view) == [["Wes", "wes@acme.test", "1", workers(view)[0][3], "2 h ago"]]

        complete(worker, org_id, queue)
        clock.advance(5)
        await until(app, pilot, lambda: workers(view)[0][2] == "2", "the second completion")
        await settle(app, pilot)
        now_cells, _ = shown()
        name, email = (n for n, key in enumerate(table.columns) if key.value in ("name", "email"))
        assert now_cells[name] is cells[name] and now_cells[email] is cells[email]
        assert workers(view)[0][4].endswith("s ago")
        assert summary(view).startswith("2 completed in 8 h")


async def test_a_basic_server_says_why_there_are_no_stats(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_stats(app, pilot, BASIC_QUEUE)
        assert "only the basic Task Queue API, which has no stats" in summary(view)
        assert not view.query_one("#stats-chart").display and not view.query_one("#stats-workers").display
        assert "Longer" not in await settled_footer(app, pilot)
        assert not list(app.said)  # said in the tab, not as an error
