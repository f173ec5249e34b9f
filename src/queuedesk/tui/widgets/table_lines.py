"""How a paged table's lines are drawn: the columns' widths, each row's cells drawn at them once, and
the row's style (zebra stripe, cursor, hover) laid over them as the line is painted, the result kept
until that style or the scroll changes. Apart from `PagedTable`, which knows what rows it holds and
where its cursor is; this knows only how a row looks.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from queuedesk.api.terminal_text import shown

if TYPE_CHECKING:
    from textual.css.styles import RenderStyles

PADDING = 1  # blank cells either side of a column's text, as a DataTable draws them
MIN_LAST = 16  # the width-0 column takes what is left, but never less than this

Cells = list[str | Text]
StyleKind = tuple[Any, ...]  # ("header",), or (odd, cursor, hover) of a row


class Line:
    """A row drawn at the column widths, and the strip last painted from it (with its styles)."""

    __slots__ = ("key", "segments", "strip")

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.key: tuple[Any, ...] | None = None
        self.strip: Strip | None = None


class Row:
    """What a table made of one of its rows: its cells once, its line at the widths in force."""

    __slots__ = ("cells", "line")

    def __init__(self, cells: Cells) -> None:
        self.cells = cells
        self.line: Line | None = None


def fitted_widths(column_widths: Sequence[int], width: int) -> list[int]:
    """Fixed widths (no measuring of cells); the width-0 columns share the rest of the line, leaving
    room for the vertical scrollbar, each at least `MIN_LAST`."""
    fixed = sum(w + 2 * PADDING for w in column_widths)
    flexible = sum(1 for w in column_widths if w == 0) or 1
    rest = max(MIN_LAST, (width - fixed - 2 - 2 * PADDING * (flexible - 1)) // flexible)
    return [w or rest for w in column_widths]


def sort_label(label: str, key: str, sorted_by: tuple[str, bool] | None) -> str:
    """A column's header, with ▲ (ascending) or ▼ (descending) when the list is ordered by it."""
    if sorted_by is None or sorted_by[0] != key:
        return label
    return f"{label} {'▲' if sorted_by[1] else '▼'}"


class Styled(Protocol):
    """The widget whose component classes (`datatable--cursor`...) style the lines."""

    def get_component_styles(self, *names: str) -> "RenderStyles": ...

    def get_component_rich_style(
        self, *names: str, partial: bool = False, default: Style | None = None
    ) -> Style: ...


class LinePainter:
    """`columns`: (key, label, width) each, width 0 for a column that shares what the others leave."""

    def __init__(self, columns: Sequence[tuple[str, str, int]], styled: Styled) -> None:
        self.columns = list(columns)
        self.column_widths = [width for _key, _label, width in self.columns]
        self.styled = styled
        self.widths = list(self.column_widths)
        self._header: Row | None = None
        self.fitted_to: int | None = None  # the width the columns were last worked out for
        self._styles: dict[StyleKind, tuple[Style, Style]] = {}  # worked out once a paint

    @property
    def table_width(self) -> int:
        return sum(width + 2 * PADDING for width in self.widths)

    def fit(self, width: int, rows: Sequence[Row | None]) -> bool:
        """Work the columns out for `width`; whether they changed (the header and `rows` are then
        drawn again, their cells kept)."""
        self.fitted_to = width
        widths = fitted_widths(self.column_widths, width)
        if widths == self.widths:
            return False
        self.widths = widths
        self._header = None
        for row in rows:
            if row is not None:
                row.line = None
        return True

    def header(self, sorted_by: tuple[str, bool] | None) -> Row:
        """The header's row, its labels marked with the order (made again after `forget_header`)."""
        if self._header is None:
            self._header = Row([sort_label(label, key, sorted_by) for key, label, _width in self.columns])
        return self._header

    def forget_header(self) -> None:
        self._header = None

    def new_paint(self) -> None:
        """The component styles may have changed (focus, theme): worked out again, once a paint."""
        self._styles = {}

    def draw(self, cells: Sequence[str | Text], console: Console) -> Line:
        """Cells at the column widths: a str as it is written (never markup), a Text with its styles."""
        pad = Segment(" " * PADDING)
        segments: list[Segment] = []
        for cell, width in zip(cells, self.widths, strict=False):
            segments.append(pad)
            if isinstance(cell, str):
                plain = shown(cell.replace("\n", " "))
                if cell_len(plain) > width:
                    plain = set_cell_size(plain, width - 1) + "…"
                segments.append(Segment(set_cell_size(plain, width)))
            else:
                text = Text(end="")
                text.append_text(cell)  # the cell's own style becomes a span: render() skips a bare one
                text.truncate(width, overflow=cell.overflow or "ellipsis", pad=True)
                segments.extend(text.render(console))
            segments.append(pad)
        return Line(segments)

    def strip(self, line: Line, kind: StyleKind, scroll_x: int, width: int) -> Strip:
        """The line painted in the style of `kind`, scrolled and cut to `width` (kept while they stand)."""
        styles = self.style(kind)
        key = (*styles, scroll_x, width)
        if line.key != key or line.strip is None:
            line.strip, line.key = self._paint(line.segments, *styles, scroll_x, width), key
        return line.strip

    def _paint(self, segments: list[Segment], pre: Style, post: Style, scroll_x: int, width: int) -> Strip:
        table_width = self.table_width
        painted = list(Segment.apply_style(segments, pre, post))
        line_width = max(width + scroll_x, table_width)
        if line_width > table_width:  # the row's colour to the right edge
            painted.append(Segment(" " * (line_width - table_width), pre))
        strip = Strip(painted, line_width)
        return strip.crop(scroll_x, scroll_x + width) if line_width > width else strip

    def style(self, kind: StyleKind) -> tuple[Style, Style]:
        """The style under a row's own cell styles, and the one over them (the cursor's colours)."""
        styles = self._styles.get(kind)
        if styles is None:
            styles = self._styles[kind] = self._work_out_style(kind)
        return styles

    def _work_out_style(self, kind: StyleKind) -> tuple[Style, Style]:
        if kind == ("header",):
            return self.styled.get_component_styles("datatable--header").rich_style, Style()
        odd, cursor, hover = kind
        pre = self.styled.get_component_styles(
            "datatable--odd-row" if odd else "datatable--even-row"
        ).rich_style
        if hover:
            pre += self.styled.get_component_rich_style("datatable--hover")
        if cursor:
            cursor_style = self.styled.get_component_rich_style("datatable--cursor")
            # As a DataTable: the cursor's foreground wins over a cell's own colour, its background not.
            return pre + cursor_style, Style.from_color(color=cursor_style.color)
        return pre, Style()
