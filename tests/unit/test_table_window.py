"""A paged table's parts as plain Python: the window of rows it holds (which page next, repeats
dropped, the cursor's landing) and how its columns are fitted and marked. No terminal, no server."""

import pytest

from queuedesk.tui.widgets.table_lines import MIN_LAST, PADDING, Row, fitted_widths, sort_label
from queuedesk.tui.widgets.table_window import NEAR, Window


def window(start: int, count: int, *, total: int = 1000, page_size: int = 10, pages: int = 3) -> Window[str]:
    rows: Window[str] = Window(str, page_size, pages)
    rows.set(start, list(range(start, start + count)))
    rows.total = total
    return rows


def test_a_page_after_the_end_lets_rows_go_at_the_top_with_what_was_made_of_them() -> None:
    rows = window(0, 30)
    rows.made[12] = "row 12 drawn"
    landing = rows.take(30, list(range(30, 40)), cursor=25, replace=False, jump_to=None)
    assert (rows.start, rows.end, len(rows.items)) == (10, 40, 30)
    assert rows.made[2] == "row 12 drawn" and rows.made[-1] is None
    assert (landing.cursor, landing.shift) == (15, -10)  # the same row, ten rows further up


def test_a_page_before_the_start_adds_rows_at_the_top_and_lets_the_bottom_go() -> None:
    rows = window(20, 30)
    landing = rows.take(10, list(range(10, 20)), cursor=3, replace=False, jump_to=None)
    assert (rows.start, rows.end) == (10, 40)
    assert (landing.cursor, landing.shift) == (13, 10)


def test_rows_seen_already_are_dropped_when_the_list_moved_between_pages() -> None:
    rows = window(0, 10, pages=5)
    # Two tasks completed meanwhile: the next page repeats the last two rows held.
    rows.take(10, [8, 9, *range(10, 18)], cursor=0, replace=False, jump_to=None)
    assert rows.items == list(range(18))


def test_a_replaced_window_keeps_the_cursor_on_its_item_unless_it_follows_the_head() -> None:
    rows = window(0, 10)
    assert rows.take(0, [99, *range(10)], cursor=4, replace=True, jump_to=None).cursor == 5
    assert rows.take(0, [98, 99, *range(10)], cursor=0, replace=True, jump_to=None).cursor == 0
    assert rows.take(0, [1, 2, 3], cursor=4, replace=True, jump_to=None).cursor == 1  # on 2 again
    assert rows.take(0, [7], cursor=0, replace=True, jump_to=None).replaced


def test_a_jump_lands_on_the_row_asked_for_within_the_page_read() -> None:
    rows = window(0, 30)
    offset = rows.jump_to(500)
    assert offset == 495
    landing = rows.take(offset, list(range(495, 505)), cursor=3, replace=True, jump_to=500)
    assert landing.jumped and landing.cursor == 5 and rows.start == 495
    assert rows.take(990, list(range(990, 1000)), cursor=0, replace=True, jump_to=1500).cursor == 9


@pytest.mark.parametrize(
    ("start", "count", "cursor", "expected"),
    [
        (0, 50, 50 - NEAR, 50),  # near the end: the page after it
        (0, 50, 50 - NEAR - 1, None),  # not near either end
        (100, 50, NEAR - 1, 90),  # near the start: the page before it
        (0, 50, 0, None),  # the top of the list: nothing before it
        (950, 50, 49, None),  # the end of the list: nothing after it
    ],
)
def test_the_next_page_is_read_as_the_cursor_nears_an_end(
    start: int, count: int, cursor: int, expected: int | None
) -> None:
    assert window(start, count).next_page(cursor) == expected


def test_a_live_refresh_reads_the_page_under_the_cursor_again() -> None:
    assert window(0, 30).page_under(5) == 0
    assert window(40, 30).page_under(NEAR + 15) == 50


def test_forgetting_what_was_made_keeps_the_rows() -> None:
    rows = window(0, 3)
    rows.made = ["a", "b", None]
    rows.forget_made()
    assert rows.made == [None, None, None] and rows.items == [0, 1, 2]


def test_flexible_columns_share_what_the_fixed_ones_leave_but_never_fall_below_a_minimum() -> None:
    fixed = 7 + 9 + 2 * 2 * PADDING
    assert fitted_widths([7, 9, 0], 100) == [7, 9, 100 - fixed - 2 - 2 * PADDING]
    assert fitted_widths([7, 0, 0], 80) == [7, 31, 31]  # (80 - 13 - 2 - 2) // 2
    assert fitted_widths([7, 9, 0], 20) == [7, 9, MIN_LAST]


def test_the_sorted_column_is_marked_by_its_direction() -> None:
    assert sort_label("Created", "created", ("created", True)) == "Created ▲"
    assert sort_label("Created", "created", ("created", False)) == "Created ▼"
    assert sort_label("Status", "status", ("created", True)) == "Status"
    assert sort_label("Status", "status", None) == "Status"


def test_a_row_keeps_its_cells_while_its_line_is_drawn_again() -> None:
    row = Row(["1", "sent"])
    assert row.cells == ["1", "sent"] and row.line is None
