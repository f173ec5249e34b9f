"""A table of rows with a cursor, where `home` and `end` go to the first and last row (Textual's own
table scrolls sideways with them) like the app's paged tables."""

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

CellType = TypeVar("CellType")


class RowTable(DataTable[CellType]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First row", show=False, id="table.first"),
        Binding("end", "last_row", "Last row", show=False, id="table.last"),
    ]

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)
