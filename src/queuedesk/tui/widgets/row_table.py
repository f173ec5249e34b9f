"""A table of rows with a cursor, where `home` and `end` go to the first and last row (Textual's own
table scrolls sideways with them) like the app's paged tables, and where text is shown as written.

Textual's DataTable reads a str cell or column label as Rich markup. What the app's tables show is
written by people (queue and block names, user names, a webhook receiver's error): "[/b]" in one
raised MarkupError while painting, and "[red]" coloured the rest and vanished. Here every str is
put in as literal text, as the app's paged tables already do.
"""

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from queuedesk.api.terminal_text import shown


def literal(cell: object) -> object:
    """A str as a Text of itself (never markup); anything else as it is."""
    return Text(shown(cell), no_wrap=True, end="") if isinstance(cell, str) else cell


class RowTable(DataTable[object]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First row", show=False, id="table.first"),
        Binding("end", "last_row", "Last row", show=False, id="table.last"),
    ]

    def add_column(
        self, label: str | Text, *, width: int | None = None, key: str | None = None, default: object = None
    ) -> ColumnKey:
        return super().add_column(
            Text(shown(label)) if isinstance(label, str) else label, width=width, key=key, default=default
        )

    def add_row(
        self, *cells: object, height: int | None = 1, key: str | None = None, label: str | Text | None = None
    ) -> RowKey:
        return super().add_row(*map(literal, cells), height=height, key=key, label=literal(label))  # type: ignore[arg-type]

    def update_cell(
        self, row_key: RowKey | str, column_key: ColumnKey | str, value: object, *, update_width: bool = False
    ) -> None:
        super().update_cell(row_key, column_key, literal(value), update_width=update_width)

    def update_cell_at(self, coordinate: Coordinate, value: object, *, update_width: bool = False) -> None:
        super().update_cell_at(coordinate, literal(value), update_width=update_width)

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)
