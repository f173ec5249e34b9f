"""The Queues screen: sorting by a click on a column's header, the scroll position through a live
rebuild, and typing that a hanging poll never holds up (nor a second poll overlaps it)."""

import asyncio
import itertools
import socket
import threading
from typing import Any

import httpx
from textual.widgets import Input, Static

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.widgets.queue_table import QueueTable
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import screen_text, settle, until
from tests.tcp_proxy import TcpProxy
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, create, home, plain, point_at

_tags = itertools.count(1)


def pending_column(table: QueueTable) -> list[int]:
    return [int(str(table.get_row_at(i)[1]).replace(",", "")) for i in range(table.row_count)]


async def test_a_click_on_a_column_header_sorts_by_it_and_a_second_click_reverses(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    # Two queues of the test's own, filtered to: other tests' long queue names would widen the first
    # column and push the Pending header off the screen.
    tag = f"Clicked{next(_tags)}"
    make_queue(admin, org_id, name=f"A long name of another test's queue {'.' * 60} {tag[::-1]}")
    make_queue(admin, org_id, name=f"{tag} 1 idle")
    busy = make_queue(admin, org_id, name=f"{tag} 2 busy")
    create(admin, org_id, busy, 3)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await pilot.press("slash", *tag, "enter")
        table = screen.table
        await until(app, pilot, lambda: table.row_count == 2, "the test's two queues alone")
        assert pending_column(table) != sorted(pending_column(table), reverse=True)  # the server's order
        x = 1 + sum(column.get_render_width(table) for column in list(table.columns.values())[:1])
        await pilot.click(QueueTable, offset=(x + 2, 0))  # on "Pending"
        await pilot.pause()
        assert screen.view.sort == "pending" and not screen.view.reverse
        assert pending_column(table) == sorted(pending_column(table), reverse=True)
        assert "sorted by pending" in plain(screen.query_one("#queues-status", Static))
        await pilot.click(QueueTable, offset=(x + 2, 0))
        await pilot.pause()
        assert screen.view.reverse
        assert pending_column(table) == sorted(pending_column(table))
        assert "sorted by pending (reversed)" in plain(screen.query_one("#queues-status", Static))


async def test_the_scroll_position_stays_put_when_a_refresh_rebuilds_the_list(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    tag = f"Scrolled{next(_tags)}"
    made = [make_queue(admin, org_id, [], name=f"{tag} {i:02}") for i in range(40)]
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await pilot.press("slash", *tag, "enter")
        table = screen.table
        await until(app, pilot, lambda: table.row_count == 40, "the test's queues alone")
        point_at(screen, made[25]["id"])
        table.scroll_to(y=12, animate=False, immediate=True)
        await pilot.pause()
        before = (table.scroll_y, table.current_key)
        assert before[0] == 12

        added = make_queue(admin, org_id, [], name=f"{tag} 99")  # a new row: the table is rebuilt
        clock.advance(5)
        await settle(app, pilot)
        assert str(added["id"]) in table.rows and table.row_count == 41
        assert (table.scroll_y, table.current_key) == before


class HoldingProxy(TcpProxy):
    """The server behind a proxy that counts the requests it passes and can hold the answers back."""

    def __init__(self, upstream_port: int) -> None:
        super().__init__(upstream_port)
        self.answers = threading.Event()
        self.answers.set()
        self.requests = 0
        self.answered = 0

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            from_server = source.getpeername() == self.upstream
        except OSError:
            from_server = False
        proxy = self

        class Counted:
            def recv(self, size: int) -> bytes:
                chunk = source.recv(size)
                if from_server:
                    proxy.answers.wait(15)
                    proxy.answered += chunk.count(b"HTTP/1.1 ")
                else:
                    proxy.requests += chunk.count(b" HTTP/1.1\r\n")
                return chunk

            def __getattr__(self, name: str) -> Any:
                return getattr(source, name)

        super()._pipe(Counted(), target)  # type: ignore[arg-type]


async def test_a_hanging_poll_never_freezes_typing_and_polls_never_overlap(
    make_app: MakeApp, clock: ManualClock, server: ServerProcess
) -> None:
    proxy = HoldingProxy(server.port).start()
    try:
        app = make_app("admin", url=f"http://127.0.0.1:{proxy.port}")
        async with app.run_test(size=SIZE) as pilot:
            screen = await home(app, pilot)
            await settle(app, pilot)
            proxy.answers.clear()  # the server now takes its time
            asked = proxy.requests
            clock.advance(5)
            for _ in range(100):
                if proxy.requests > asked:
                    break
                await asyncio.sleep(0.02)
            assert proxy.requests == asked + 1 and screen.poller.running

            await pilot.press("slash", *"Catego")  # typed while the poll hangs
            field = screen.query_one("#queues-filter", Input)
            assert field.value == "Catego" and app.focused is field
            assert [
                str(table_row[0]) for table_row in map(screen.table.get_row_at, range(screen.table.row_count))
            ] == ["Categorization"]
            for _ in range(3):  # intervals pass and r is pressed: still the one request
                clock.advance(5)
                await pilot.pause(0.05)
            screen.action_refresh()
            await pilot.pause(0.1)
            assert proxy.requests == asked + 1, "a poll started while another was in flight"

            proxy.answers.set()
            await until(app, pilot, lambda: not screen.poller.running, "the held poll ends")
            clock.advance(5)  # and polling goes on
            await until(app, pilot, lambda: proxy.requests >= asked + 2, "the next poll")
    finally:
        proxy.answers.set()
        proxy.stop()


async def test_what_waits_for_a_slow_server_shows_it_is_loading(
    make_app: MakeApp, server: ServerProcess
) -> None:
    """The pending list and the flush guard's counts say they are loading while the answer is held."""
    from queuedesk.tui.modals.flush import FlushScreen
    from queuedesk.tui.screens.queue import QueueScreen
    from queuedesk.tui.widgets.paged_table import PagedTable

    proxy = HoldingProxy(server.port).start()
    try:
        app = make_app("admin", url=f"http://127.0.0.1:{proxy.port}")
        async with app.run_test(size=SIZE) as pilot:
            await home(app, pilot)
            await settle(app, pilot)
            proxy.answers.clear()
            await pilot.press("F")
            await until(app, pilot, lambda: isinstance(app.screen, FlushScreen), "the flush guard opens")
            await pilot.pause(0.2)
            assert app.screen.query_one("#flush-loading").display, "the counts are not shown as loading"
            proxy.answers.set()
            await until(app, pilot, lambda: app.screen.counted, "the counts arrive")
            assert not app.screen.query_one("#flush-loading").display
            await pilot.press("escape")

            proxy.answers.clear()
            await pilot.press("enter")
            await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue screen opens")
            await pilot.pause(0.2)
            pending = app.screen.query_one("#pending", PagedTable)
            assert pending.loading, "the pending list is not shown as loading"
            proxy.answers.set()
            await until(app, pilot, lambda: not pending.loading, "the pending list arrives")
    finally:
        proxy.answers.set()
        proxy.stop()


async def test_a_queue_name_that_looks_like_markup_is_shown_as_written(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    # Textual's DataTable reads a str cell as Rich markup: "[/b]" raised MarkupError while painting
    # (the app stopped for everybody in the organization), and "[red]" coloured the name and vanished.
    tag = f"Marked{next(_tags)}"
    names = [f"{tag} Fix [/b] later", f"{tag} [red]Urgent[/red] returns"]
    for name in names:
        make_queue(admin, org_id, [], name=name)
    app = make_app("admin")
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await home(app, pilot)
        await pilot.press("slash", *tag, "enter")
        table = screen.table
        await until(app, pilot, lambda: table.row_count == 2, "the two queues alone")
        await settle(app, pilot)
        shown = {str(table.get_row_at(row)[0]) for row in range(table.row_count)}
        assert shown == set(names)
        for name in names:
            assert name in screen_text(app), screen_text(app)
