"""`X` on a completed history filtered by text (`f`, the text field): the file holds the tasks the
filter lists, not a "bug" message (the export once handed the text filter to a client call that did
not take it)."""

import csv
from pathlib import Path

import httpx
from textual.widgets import Input

from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, create, notes
from tests.tui.test_export_history import export_to
from tests.tui.test_history import open_history


async def test_a_history_filtered_by_text_is_exported_as_filtered(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh, tmp_path: Path
) -> None:
    queue = fresh("Exported by text")
    for paragraph in ("apple pie", "banana", "Apple juice"):
        create(admin, org_id, queue, 1, paragraph=paragraph)
        complete(worker, org_id, queue)
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen, table = await open_history(app, pilot, queue["id"])
        await pilot.press("f")
        await until(app, pilot, lambda: screen.query_one("#filter-text").display, "the filters are shown")
        text = screen.query_one("#filter-text", Input)
        text.value = "apple"
        text.focus()
        await pilot.press("enter")
        await until(app, pilot, lambda: not table.busy and table.total == 2, "the two apples listed")

        target = tmp_path / "apples.csv"
        await export_to(app, pilot, target)
        await until(app, pilot, lambda: target.exists() or any("bug" in n for n in notes(app)), "an end")
        await settle(app, pilot)
        assert not any("bug" in n for n in notes(app)), notes(app)
        with target.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert sorted(row["paragraph"] for row in rows) == ["Apple juice", "apple pie"]
        assert any("2 tasks exported" in n for n in notes(app)), notes(app)
