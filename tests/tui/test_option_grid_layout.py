"""The options' columns are decided by the width alone (`forms/options.py`, `OptionGrid`): a yes/no
block's two choices on one line from the first layout on, a long list in as many columns as fit.
Before, the columns were set when a `Resize` event came, after the first layout: a grid laid out
before it (a loaded machine's first frames, snapshots) showed one column. Against a real server."""

import httpx
import pytest
from textual.geometry import Size

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.binary import BinaryEditor
from queuedesk.tui.forms.options import OptionGrid, OptionItem
from tests.conftest import make_queue
from tests.tui.conftest import MakeApp
from tests.tui.test_work import MESSAGE, add_tasks, start_work, work

URGENT = {"id": "urgent", "name": "Urgent", "type": "binary"}
MANY = [{"id": f"o{i}", "name": f"Option {i}"} for i in range(1, 9)]
KIND = {"id": "kind", "name": "Kind", "type": "single_selection", "single_selection": {"options": MANY}}


def rows_and_columns(grid: OptionGrid, width: int) -> tuple[int, int]:
    """How `grid` lays its options out at `width`, asked of its layout directly (no event run)."""
    placed = grid.layout.arrange(grid, list(grid.query_children(OptionItem)), Size(width, 40))
    return len({p.region.y for p in placed}), len({p.region.x for p in placed})


@pytest.mark.parametrize("width", [100, 60])
async def test_a_yes_no_is_on_one_line_and_a_long_list_in_the_columns_its_width_allows_from_the_first_layout(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int, width: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, URGENT, KIND], label="Grid")
    add_tasks(admin, org_id, queue, [{"message": "a"}])
    app = make_app("worker")
    async with app.run_test(size=(width, 40)) as pilot:
        await start_work(app, pilot, queue)
        shown = work(app).query_one(BinaryEditor).query_one(OptionGrid)
        assert len({item.region.y for item in shown.query(OptionItem)}) == 1
        # Grids never laid out, never resized: the layout alone decides.
        yes_no = OptionGrid(["No", "Yes"], ("●", "○"), columns=2)
        many = OptionGrid([o["name"] for o in MANY], ("●", "○"))
        for grid in (yes_no, many):
            grid.display = False  # mounted (styled, composed) but never laid out by the screen
        await work(app).mount_all([yes_no, many])
        await pilot.pause()
        assert rows_and_columns(yes_no, width) == (1, 2)
        widest = max(len(str(i)) + len(o["name"]) for i, o in enumerate(MANY, 1)) + 3  # "8 ○ Option 8"
        fit = min(len(MANY), (width + 2) // (widest + 2))  # a gutter of 2 between columns
        assert rows_and_columns(many, width) == (-(-len(MANY) // fit), fit)
