"""The lifecycle rule (tui/nodes/lifecycle.py): work started by a screen, dialog or pane that is left while
the server has not answered yet ends quietly, its `finally` and `except` included, and the app goes on.

The server answers through a proxy that holds its answers while the dialog is left: the dialog's
work is then surely waiting, and is cancelled, when the dialog goes."""

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from textual.containers import Vertical
from textual.widgets import Static

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.modals.flush import FlushScreen
from queuedesk.tui.nodes.lifecycle import NodeGone, is_gone
from tests.support import ServerProcess
from tests.support.delay_proxy import DelayProxy
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, create, home, point_at


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[DelayProxy]:
    made = DelayProxy(server.port).start()
    yield made
    made.stop()


def still_running(app: QueueDeskApp) -> bool:
    return app.is_running and app._exception is None


async def test_escape_while_the_flush_guard_counts_closes_it_and_the_app_goes_on(
    make_app: MakeApp, proxy: DelayProxy, admin: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Escaped")
    create(admin, org_id, queue, 2)
    app = make_app("admin", url=f"http://127.0.0.1:{proxy.port}")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, queue["id"])
        for _ in range(3):  # the second and third time find what the first may have left behind
            proxy.hold()
            await pilot.press("F")
            await until(app, pilot, lambda: isinstance(app.screen, FlushScreen), "the flush guard opens")
            guard = app.screen
            await pilot.pause(0.05)
            assert not guard.counted  # still counting: its answer is held
            await pilot.press("escape")
            await until(app, pilot, lambda: app.screen is screen, "the guard closes")
            proxy.release()
            await settle(app, pilot)
            assert still_running(app), "escape while the flush guard counted stopped the app"
        await pilot.press("r")
        await settle(app, pilot)
        assert still_running(app) and app.screen is screen


async def test_escape_while_the_flush_runs_closes_the_guard_and_the_app_goes_on(
    make_app: MakeApp, proxy: DelayProxy, admin: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Escaped while flushing")
    create(admin, org_id, queue, 2)
    app = make_app("admin", url=f"http://127.0.0.1:{proxy.port}")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in screen.table.rows, "the queue is listed")
        point_at(screen, queue["id"])
        await pilot.press("F")
        await until(app, pilot, lambda: isinstance(app.screen, FlushScreen) and app.screen.counted, "counted")
        await pilot.press(*queue["name"])
        proxy.hold()
        await pilot.press("enter")
        await until(
            app, pilot, lambda: isinstance(app.screen, FlushScreen) and app.screen.flushing, "flushing"
        )
        await pilot.press("escape")
        await until(app, pilot, lambda: app.screen is screen, "the guard closes")
        proxy.release()
        await settle(app, pilot)
        assert still_running(app), "escape while the flush ran stopped the app"


# --- the rule itself, on a pane of its own -----------------------------------------------------------


async def test_a_gone_panes_query_stops_its_own_work_but_not_live_code(make_app: MakeApp) -> None:
    from queuedesk.tui.base import AppAccess

    class Made(AppAccess, Vertical):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("", id="note")

    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        pane = Made()
        await screen.mount(pane)
        assert not is_gone(pane) and pane.query_one("#note", Static)
        ran: list[str] = []

        never = asyncio.Event()

        async def work() -> None:
            try:
                await never.wait()  # an answer that never comes: the pane goes meanwhile
                ran.append("after the await")
            except Exception:
                ran.append("except")
            finally:
                try:
                    pane.query_one("#note", Static)
                    ran.append("finally's query")
                except NodeGone:
                    ran.append("stopped")
                    raise

        worker = pane.run_worker(work(), exit_on_error=True)
        await pilot.pause()
        await pane.remove()
        await settle(app, pilot)
        assert worker.is_cancelled and ran == ["stopped"], ran
        assert is_gone(pane)
        with pytest.raises(Exception) as raised:  # live code that asks a gone pane: Textual's answer
            pane.query_one("#note", Static)
        assert not isinstance(raised.value, NodeGone)
        assert still_running(app)
