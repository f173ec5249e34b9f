"""Times in the zone the app shows (the local one unless --utc), named in the column headers, and the
history's date filters taking that zone's days: on a QueueDesk server and on one that speaks only
the basic API (where the client asks a day wider and keeps what falls within the local day)."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from textual.widgets import Input, Static

from queuedesk.cli import build_parser
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.main import prepare
from queuedesk.tui.settings import Target
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.support import ServerProcess, execute_sql
from tests.support.pilot import app_for, screen_text, until
from tests.tui.test_app import complete, create, plain
from tests.tui.test_history import open_history, shown_ids

BASIC_HISTORY = 11
NEW_YORK = ZoneInfo("America/New_York")  # UTC-5 in November
# Completed at, in UTC; in New York: the 19th 22:00, the 20th 18:30, the 21st 01:00.
MOMENTS = [
    datetime(2026, 11, 20, 3, 0, tzinfo=UTC),
    datetime(2026, 11, 20, 23, 30, tzinfo=UTC),
    datetime(2026, 11, 21, 6, 0, tzinfo=UTC),
]


@pytest.fixture
def dated(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> tuple[dict, list[int]]:
    queue = fresh("Zoned")
    create(admin, org_id, queue, len(MOMENTS))
    done = [complete(worker, org_id, queue)["id"] for _ in MOMENTS]
    for task_id, at in zip(done, MOMENTS, strict=True):
        execute_sql(
            server.db_url,
            f"UPDATE tasks SET completed_at = {int(at.timestamp() * 1_000_000)} WHERE id = {task_id}",
        )
    return queue, done


def zoned_app(server: ServerProcess, zone: ZoneInfo | None) -> QueueDeskApp:
    app = app_for(server, "supervisor")
    app.clock = ManualClock(datetime(2026, 11, 23, 9, 30, tzinfo=UTC), zone=zone or UTC)
    return app


async def filter_one_day(app: QueueDeskApp, pilot, screen, table, day: str, expected: int) -> None:
    await pilot.press("f")
    start, end = screen.query_one("#filter-from", Input), screen.query_one("#filter-to", Input)
    start.value, end.value = day, day
    await pilot.press("enter")
    await until(
        app,
        pilot,
        lambda: not table.busy and table.total == expected and table.row_count == expected,
        f"{expected} on {day}",
    )


async def test_the_history_shows_and_filters_in_the_local_zone(server: ServerProcess, dated) -> None:
    queue, done = dated
    app = zoned_app(server, NEW_YORK)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await open_history(app, pilot, queue["id"])
        assert "Completed EST" in screen_text(app)
        times = {
            int(str(table.get_row_at(i)[0])): str(table.get_row_at(i)[1]) for i in range(table.row_count)
        }
        assert times == {
            done[0]: "2026-11-19 22:00",
            done[1]: "2026-11-20 18:30",
            done[2]: "2026-11-21 01:00",
        }

        await filter_one_day(app, pilot, screen, table, "2026-11-20", 1)
        assert shown_ids(table) == [done[1]]  # the 20th in New York, not the UTC day
        assert "EST days" in plain(screen.query_one("#history-note", Static))


async def test_utc_shows_and_filters_utc_days(server: ServerProcess, dated) -> None:
    queue, done = dated
    app = zoned_app(server, None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await open_history(app, pilot, queue["id"])
        assert "Completed UTC" in screen_text(app)
        await filter_one_day(app, pilot, screen, table, "2026-11-20", 2)
        assert shown_ids(table) == [done[1], done[0]]


def test_the_utc_flag_and_setting_reach_the_clock(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--utc (or `utc = true` in the file) gives a clock in UTC; without either, the local zone."""
    config = tmp_path / "config.toml"
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(config))
    flags = ["--url", "http://127.0.0.1:9", "--token", "t" * 20, "--org", "1"]
    assert prepare(build_parser().parse_args([*flags, "--utc"])).settings.utc is True
    assert prepare(build_parser().parse_args(flags)).settings.utc is False
    config.write_text("[app]\nutc = true\n")
    start = prepare(build_parser().parse_args(flags))
    assert start.settings.utc is True
    assert QueueDeskApp(None, settings=start.settings).clock.zone is UTC
    assert QueueDeskApp(None).clock.zone is None  # the system's own zone


async def test_a_basic_server_gets_local_days_too(original: OriginalService) -> None:  # noqa: F811
    """The original service takes only UTC days: the client asks a day wider on each side and keeps
    what falls within the local day, so the filter means the same there."""
    with original.lock:
        original.add_queue(BASIC_HISTORY, "Basic zoned", original.blocks(BASIC_QUEUE))
        done = [original.complete_now(BASIC_HISTORY, {"category": "red"}) for _ in MOMENTS]
        for task in original.finished[BASIC_HISTORY]:
            at = MOMENTS[done.index(task["id"])]
            task["completed_at"] = at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"))
    app.clock = ManualClock(datetime(2026, 11, 23, 9, 30, tzinfo=UTC), zone=NEW_YORK)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await open_history(app, pilot, BASIC_HISTORY)
        await filter_one_day(app, pilot, screen, table, "2026-11-20", 1)
        assert shown_ids(table) == [done[1]]
        assert "EST days, filtered by the app" in plain(screen.query_one("#history-note", Static))
