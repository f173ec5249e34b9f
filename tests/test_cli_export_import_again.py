"""CSV export keeps the values of blocks removed since (every key of the tasks' data); a file imported
again after a flush says its earlier tasks are gone and offers --again, which imports it anew."""

import csv
import io
from pathlib import Path

import httpx

from tests import test_cli
from tests.conftest import make_queue
from tests.support import CORE_BLOCKS
from tests.test_cli import import_rows, n_pending, write_csv

cli = test_cli.cli  # the fixture: `queuedesk ...` as the admin


def test_csv_export_keeps_the_values_of_a_removed_block(
    cli, admin: httpx.Client, worker, org_id: int
) -> None:
    extra = {"id": "note", "name": "Note", "type": "text", "text": {}}
    queue = make_queue(admin, org_id, [*CORE_BLOCKS, extra])
    path = f"/orgs/{org_id}/queues/{queue['id']}"
    admin.post(f"{path}/tasks/create", json={"data": {"paragraph": "p1"}}).raise_for_status()
    task = worker.post(f"{path}/tasks/next").json()
    done = worker.post(
        f"{path}/tasks/{task['id']}/complete", json={"data": {"category": "red", "note": "kept"}}
    )
    assert done.status_code == 200, done.text
    admin.patch(path, json={"data": CORE_BLOCKS}).raise_for_status()  # the note block goes

    result = cli("export", queue["name"], "--format", "csv")
    assert result.code == 0, result
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert "note" in rows[0], rows[0].keys()
    assert (rows[0]["id"], rows[0]["category"], rows[0]["note"]) == (str(task["id"]), "red", "kept")


def test_reimport_after_a_flush_says_the_tasks_are_gone_and_again_imports_anew(
    cli, admin: httpx.Client, org_id: int, tmp_path: Path
) -> None:
    queue = make_queue(admin, org_id)
    file = tmp_path / "rows.csv"
    write_csv(file, import_rows(5))
    command = ("import", queue["name"], str(file), "--chunk-rows", "2")  # an import session
    first = cli(*command)
    assert first.code == 0 and n_pending(admin, org_id, queue["id"]) == 5, first

    again = cli(*command)
    assert again.code == 0 and "already has" in again.out and "--again" in again.out, again
    assert n_pending(admin, org_id, queue["id"]) == 5

    admin.put(f"/orgs/{org_id}/queues/{queue['id']}/flush").raise_for_status()
    after_flush = cli(*command)
    assert "no longer there" in after_flush.out and "--again" in after_flush.out, after_flush
    assert "already has" not in after_flush.out
    assert n_pending(admin, org_id, queue["id"]) == 0

    anew = cli(*command, "--again")
    assert anew.code == 0 and "Imported 5 tasks" in anew.out, anew
    assert n_pending(admin, org_id, queue["id"]) == 5
