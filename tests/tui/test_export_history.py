"""`X` on the Completed tab writes the history as filtered (CSV or JSON lines, by the file's ending)
to a new file; a name that cannot be written is said on the dialog and nothing is written."""

import csv
import json
from pathlib import Path

import httpx
from textual.widgets import Input

from queuedesk.tui.modals.export import ExportScreen
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_history import HALF, big, open_history  # noqa: F401  (fixture)
from tests.tui.test_worker_pick import filter_by


async def export_to(app, pilot, path: Path | str) -> ExportScreen:
    await pilot.press("X")
    await until(app, pilot, lambda: isinstance(app.screen, ExportScreen), "where to is asked")
    dialog = app.screen
    dialog.query_one("#export-path", Input).value = str(path)
    await pilot.press("enter")
    await settle(app, pilot)
    return dialog


async def test_the_filtered_history_goes_to_a_csv_and_a_jsonl_file(
    make_app: MakeApp,
    admin: httpx.Client,
    big: dict,  # noqa: F811
    tmp_path: Path,
) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await filter_by(app, pilot, screen, "wyn@acme.test")
        await until(app, pilot, lambda: not table.busy and table.total == HALF, "Wyn's tasks")

        dialog = await export_to(app, pilot, tmp_path / "wrong.txt")  # refused, the dialog stays
        assert app.screen is dialog and ".csv or .jsonl" in screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)

        target = tmp_path / "wyn.csv"
        await export_to(app, pilot, target)
        await until(app, pilot, lambda: target.exists(), "the file is written")
        said = f"2,500 tasks exported to {target}."
        await until(app, pilot, lambda: any(n.message == said for n in app._notifications), "said")
        with target.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == HALF and {row["completed_by"] for row in rows} == {"wyn@acme.test"}
        assert [int(r["id"]) for r in rows] == sorted((int(r["id"]) for r in rows), reverse=True)

        lines = tmp_path / "wyn.jsonl"
        await export_to(app, pilot, lines)
        await until(app, pilot, lambda: lines.exists(), "the JSON lines are written")
        tasks = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
        assert len(tasks) == HALF and {task["completed_by"] for task in tasks} == {"wyn@acme.test"}

        dialog = await export_to(app, pilot, target)  # exists: never overwritten
        assert app.screen is dialog and "exists already" in screen_text(app)
