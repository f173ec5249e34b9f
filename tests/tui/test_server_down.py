"""While the server is down: opening a queue says so once (not once per part of the screen), and `r`
answers every time it is pressed."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from queuedesk.tui.clock import ManualClock
from tests.support import ROLES_SEED, ServerProcess
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, notes, open_queue, point_at, settle, until


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "own.db", seed=ROLES_SEED).start()
    yield process
    process.stop()


def unreachable(app_notes: list[str]) -> int:
    return sum("unreachable" in n.lower() or "not answering" in n.lower() for n in app_notes)


async def test_opening_a_queue_while_down_says_it_once_and_r_answers(
    make_app: MakeApp, clock: ManualClock, own_server: ServerProcess
) -> None:
    app = make_app("admin", url=own_server.url)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen = await home(app, pilot)
        queue_id = screen.queues[0].id
        await open_queue(app, pilot, queue_id)
        await pilot.press("escape")
        await settle(app, pilot)
        own_server.stop()
        point_at(screen, queue_id)
        await pilot.press("enter")
        await settle(app, pilot)
        await settle(app, pilot)
        assert unreachable(notes(app)) == 1, notes(app)

        clock.advance(5)  # the outage goes on: not said again by itself
        await settle(app, pilot)
        assert unreachable(notes(app)) == 1, notes(app)

        await pilot.press("r")
        await until(app, pilot, lambda: unreachable(notes(app)) == 2, "r answers")
        assert any(n.startswith("Still not answering: Tried again") for n in notes(app)), notes(app)
        await pilot.press("r")
        await until(app, pilot, lambda: unreachable(notes(app)) == 3, "r answers each time")


async def test_a_view_the_server_stopped_answering_is_dimmed_with_its_age(
    make_app: MakeApp, clock: ManualClock, own_server: ServerProcess
) -> None:
    from queuedesk.tui.widgets.context_bar import ContextBar
    from tests.tui.test_app import plain

    app = make_app("admin", url=own_server.url)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen = await home(app, pilot)
        queue = await open_queue(app, pilot, screen.queues[0].id)
        await settle(app, pilot)
        assert not queue.has_class("-stale") and queue.pending.styles.opacity == 1
        own_server.stop()
        for _ in range(3):  # two refreshes missed
            clock.advance(5)
            await settle(app, pilot)
        await until(app, pilot, lambda: queue.has_class("-stale"), "the view is marked stale")
        assert queue.pending.styles.opacity < 1  # dimmed
        assert "updated 15 s ago" in plain(queue.query_one(ContextBar))  # its age, said
        await pilot.press("escape")
        await settle(app, pilot)
        clock.advance(5)
        await settle(app, pilot)
        await until(app, pilot, lambda: screen.has_class("-stale"), "the list is marked stale too")
        assert screen.table.styles.opacity < 1
