"""The home table's cells: a pending count stays right-aligned while it is highlighted as changed."""

from datetime import UTC, datetime

from rich.text import Text
from textual.app import App, ComposeResult

from queuedesk.api.models import Queue
from queuedesk.tui.widgets.queue_table import QueueTable


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield QueueTable(id="queues")


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
