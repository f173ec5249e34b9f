"""The home table's cells (a pending count stays right-aligned while highlighted as changed) and the
line that counts the queues under it."""

from datetime import UTC, datetime

from rich.text import Text
from textual.app import App, ComposeResult

from queuedesk.api.models import Queue
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.queues import count_line
from queuedesk.tui.widgets.queue_table import QueueTable


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield QueueTable(ManualClock(), id="queues")


def queue(pending: int) -> Queue:
    return Queue(id=1, name="Triage", created_at=datetime(2026, 11, 1, tzinfo=UTC), n_tasks=pending)


async def test_a_changed_pending_count_stays_right_aligned() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(QueueTable)
        table.show_queues([queue(7)], changed=set())
        table.show_queues([queue(12)], changed={("1", "pending")})
        await pilot.pause()
        cell = table.get_cell("1", "pending")
        assert isinstance(cell, Text) and cell.plain == "12"
        assert cell.justify == "right" and cell.style, (cell.justify, cell.style)
        table.show_queues([queue(12)], changed=set())
        cell = table.get_cell("1", "pending")
        assert isinstance(cell, Text) and cell.justify == "right" and not cell.style


def test_the_count_line_says_queue_once_and_queues_otherwise() -> None:
    assert count_line(1, 1, filtered=False) == "1 queue"
    assert count_line(3, 3, filtered=False) == "3 queues"
    assert count_line(1, 3, filtered=True) == "1 of 3 queues"
    assert count_line(0, 1, filtered=True) == "0 of 1 queue"


async def test_a_long_queue_name_is_cut_so_pending_stays_on_screen_at_every_width() -> None:
    long = Queue(
        id=2,
        name="An intake queue " + "with a very long name " * 8,
        created_at=queue(0).created_at,
        n_tasks=0,
    )
    for width in (80, 200):
        app = TableApp()
        async with app.run_test(size=(width, 24)) as pilot:
            table = app.query_one(QueueTable)
            table.show_queues([queue(7), long], changed=set())
            await pilot.pause()
            shown = str(table.get_cell("2", "name"))
            assert shown.endswith("…") and shown.startswith("An intake queue") and len(shown) <= width - 50
            assert sum(column.get_render_width(table) for column in table.columns.values()) <= width
            table.show_queues([queue(7)], changed=set())  # as a filter does: the long name is gone
            await pilot.pause()
            assert table.columns["name"].get_render_width(table) < 20, "the width kept the gone row's"
    app = TableApp()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(QueueTable)
        table.show_queues([long], changed=set())
        await pilot.resize_terminal(200, 24)
        await pilot.pause()
        assert len(str(table.get_cell("2", "name"))) > 80 - 50, "a wider terminal shows more of the name"


async def test_home_and_end_go_to_the_first_and_last_queue() -> None:
    app = TableApp()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(QueueTable)
        queues = [
            Queue(id=n, name=f"Queue {n}", created_at=datetime(2026, 11, 1, tzinfo=UTC), n_tasks=n)
            for n in range(1, 41)
        ]
        table.show_queues(queues, changed=set())
        table.focus()
        await pilot.press("down", "down", "end")
        assert table.cursor_row == 39
        await pilot.press("home")
        assert table.cursor_row == 0
