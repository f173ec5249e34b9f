"""The paged table's own drawing, without a server: its columns fit the width it is painted at, and
rows made before what they show changed are made again on `redraw`."""

from textual import events
from textual.app import App, ComposeResult

from queuedesk.tui.widgets.paged_table import Page, PagedTable
from tests.support.pilot import screen_text, until

COLUMNS = [("id", "Task", 7), ("values", "Values", 0)]
ITEMS = [{"id": n, "text": f"value {n}"} for n in range(3)]


class NoResizeTable(PagedTable):
    """A table whose Resize never arrives (as, now and then, for one first shown in a tab that
    opened as its page came in)."""

    def on_resize(self, event: events.Resize) -> None:
        event.prevent_default()  # Textual would call the table's own handler after this one


class TableApp(App[None]):
    def __init__(self, table: PagedTable) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield self.table

    def on_mount(self) -> None:
        async def fetch(offset: int, limit: int) -> Page:
            return Page(len(ITEMS), ITEMS[offset : offset + limit])

        self.table.reset(fetch)


async def test_the_flexible_column_is_fitted_as_the_table_is_painted_even_without_a_resize() -> None:
    table = NoResizeTable(COLUMNS, lambda item: [str(item["id"]), item["text"]], lambda item: str(item["id"]))
    app = TableApp(table)
    async with app.run_test(size=(60, 10)) as pilot:
        await until(app, pilot, lambda: table.row_count == 3 and not table.loading, "the page")
        await pilot.pause()
        text = screen_text(app)
        assert "Values" in text and "value 2" in text, text


async def test_redraw_makes_the_loaded_rows_again() -> None:
    shown = {"suffix": ""}
    table = PagedTable(
        COLUMNS, lambda item: [str(item["id"]), item["text"] + shown["suffix"]], lambda item: str(item["id"])
    )
    app = TableApp(table)
    async with app.run_test(size=(60, 10)) as pilot:
        await until(app, pilot, lambda: "value 2" in screen_text(app), "the rows painted")
        shown["suffix"] = " (again)"
        await pilot.pause()
        assert "(again)" not in screen_text(app)  # a row is made once, when first painted
        table.redraw()
        await until(app, pilot, lambda: "value 2 (again)" in screen_text(app), "the rows made again")
