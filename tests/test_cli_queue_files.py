"""`queuedesk queue create|edit|show`: queues from TOML and JSON files, run as real subprocesses
against the real server (and against the stand-in of the original service, which cannot create
queues)."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import json
import tomllib
from pathlib import Path

from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.api.test_original_service import cli as original_cli
from tests.conftest import make_queue
from tests.test_cli import cli, create  # noqa: F401  (the fixture, used by name)

TRIAGE_TOML = """\
name = "{name}"
description = "Sort incoming reports"

[[blocks]]
id = "message"
name = "Message"
type = "text"
text = {{ read_only = true, placeholder = "What happened?" }}

[[blocks]]
id = "category"
name = "Category"
type = "single_selection"
single_selection = {{ is_required = true, options = [{{ id = "red", name = "Red" }}, {{ id = "blue", name = "Blue" }}] }}

[[tasks]]
data = {{ message = "The printer is on fire" }}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def detail(admin, org_id: int, queue_id: int) -> dict:
    response = admin.get(f"/orgs/{org_id}/queues/{queue_id}")
    assert response.status_code == 200, response.text
    return response.json()


def test_create_from_toml_with_tasks(cli, admin, org_id, tmp_path) -> None:
    path = write(tmp_path, "triage.toml", TRIAGE_TOML.format(name="Triage from TOML"))
    result = cli("queue", "create", str(path), "--json")
    assert result.code == 0, result
    made = result.json()
    assert made["name"] == "Triage from TOML" and made["n_tasks"] == 1
    stored = detail(admin, org_id, made["id"])
    assert stored["description"] == "Sort incoming reports"
    assert [b["id"] for b in stored["data"]] == ["message", "category"]
    assert stored["data"][1]["single_selection"]["options"][1] == {"id": "blue", "name": "Blue"}
    assert stored["data"][0]["text"] == {"read_only": True, "placeholder": "What happened?"}


def test_create_from_json_with_a_webhook(cli, admin, org_id, tmp_path) -> None:
    document = {
        "name": "Receipts from JSON",
        "webhook": "http://127.0.0.1:9/hook",
        "blocks": [{"id": "total", "name": "Total", "type": "number", "number": {"is_required": True}}],
    }
    path = write(tmp_path, "receipts.json", json.dumps(document))
    result = cli("queue", "create", str(path))
    assert result.code == 0, result
    assert "Created queue" in result.out and "'Receipts from JSON' with 1 block." in result.out
    queue_id = int(result.out.split()[2])
    assert detail(admin, org_id, queue_id)["data"] == document["blocks"]
    assert admin.get(f"/orgs/{org_id}/queues/{queue_id}/webhook").json()["target"] == document["webhook"]


def test_show_then_create_round_trips_in_both_formats(cli, admin, org_id, tmp_path) -> None:
    path = write(tmp_path, "source.toml", TRIAGE_TOML.format(name="Round trip"))
    source = detail(admin, org_id, cli("queue", "create", str(path), "--json").json()["id"])
    for kind in ("toml", "json"):
        shown = tmp_path / f"shown.{kind}"
        result = cli("queue", "show", "Round trip", "--format", kind, "-o", str(shown))
        assert result.code == 0, result
        text = shown.read_text(encoding="utf-8")
        document = json.loads(text) if kind == "json" else tomllib.loads(text)
        assert document["name"] == "Round trip" and document["description"] == source["description"]
        shown.write_text(text.replace('"Round trip"', f'"Round trip {kind}"'), encoding="utf-8")
        made = cli("queue", "create", str(shown), "--json")
        assert made.code == 0, made
        copy = detail(admin, org_id, made.json()["id"])
        assert copy["name"] == f"Round trip {kind}"
        assert (copy["description"], copy["data"]) == (source["description"], source["data"])


def test_edit_renames_and_changes_blocks(cli, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id)  # the core blocks, no tasks
    path = write(
        tmp_path,
        "edit.toml",
        'name = "Renamed by edit"\nwebhook = "http://127.0.0.1:9/h"\n\n'
        '[[blocks]]\nid = "note"\nname = "Note"\ntype = "text"\n',
    )
    result = cli("queue", "edit", str(queue["id"]), str(path))
    assert result.code == 0, result
    assert result.err == ""  # no tasks: nothing to warn about
    stored = detail(admin, org_id, queue["id"])
    assert stored["name"] == "Renamed by edit"
    assert stored["data"] == [{"id": "note", "name": "Note", "type": "text"}]
    assert stored["description"] == queue["description"]  # left out: left as it was
    hook = f"/orgs/{org_id}/queues/{queue['id']}/webhook"
    assert admin.get(hook).json()["target"] == "http://127.0.0.1:9/h"
    removing = write(tmp_path, "no-hook.json", '{"webhook": ""}')
    assert cli("queue", "edit", str(queue["id"]), str(removing)).code == 0
    assert admin.get(hook).json()["target"] == ""
    assert detail(admin, org_id, queue["id"])["name"] == "Renamed by edit"


def test_edit_of_a_queue_with_tasks_says_what_happens_and_needs_yes(cli, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id)
    create(admin, org_id, queue["id"], {"paragraph": "keep me", "category": "red"})
    kept = [b for b in queue["data"] if b["id"] != "paragraph"]
    category = next(b for b in kept if b["id"] == "category")
    category["single_selection"]["options"] = [
        o for o in category["single_selection"]["options"] if o["id"] != "red"
    ]
    path = write(tmp_path, "fewer.json", json.dumps({"blocks": kept}))

    refused = cli("queue", "edit", queue["name"], str(path))
    assert refused.code == 2, refused
    assert "has 1 task (1 pending)" in refused.err
    assert "Removed: Paragraph (paragraph)" in refused.err
    assert "Category (category) loses option red" in refused.err
    assert "nothing was changed. Add --yes" in refused.err
    assert [b["id"] for b in detail(admin, org_id, queue["id"])["data"]] == [b["id"] for b in queue["data"]]

    done = cli("queue", "edit", queue["name"], str(path), "--yes")
    assert done.code == 0, done
    assert [b["id"] for b in detail(admin, org_id, queue["id"])["data"]] == [b["id"] for b in kept]


def test_errors_name_the_file_the_block_and_the_field(cli, admin, org_id, tmp_path) -> None:
    before = len(admin.get(f"/orgs/{org_id}/queues").json())
    path = write(
        tmp_path,
        "bad.toml",
        'name = "Bad"\ncolour = "red"\n\n[[blocks]]\nid = "a"\nname = "A"\ntype = "text"\n\n'
        '[[blocks]]\nid = "a"\nname = "Again"\ntype = "single_selection"\nsingle_selection = { options = [] }\n',
    )
    result = cli("queue", "create", str(path))
    assert result.code == 2, result
    lines = result.err.removeprefix("queuedesk: ").splitlines()
    assert (
        f"{path}: colour: unknown key (valid: name, description, webhook, review_percent, consensus, blocks, tasks)"
        in lines
    )
    assert f"{path}: blocks[1] ('a').id: block id 'a' is used twice" in lines
    assert any(
        line.startswith(f"{path}: blocks[1] ('a').single_selection.options: must be") for line in lines
    )
    assert len(admin.get(f"/orgs/{org_id}/queues").json()) == before  # nothing was sent

    broken = write(tmp_path, "broken.json", '{"name": "x", ')
    result = cli("queue", "create", str(broken))
    assert result.code == 2 and f"{broken} is not valid JSON" in result.err, result

    task_error = write(
        tmp_path, "tasks.toml", TRIAGE_TOML.format(name="T") + '\n[[tasks]]\ndata = { category = "green" }\n'
    )
    result = cli("queue", "create", str(task_error))
    assert result.code == 2 and f"{task_error}: tasks[1].data.category: block 'category'" in result.err, (
        result
    )


def test_edit_refuses_tasks_and_unknown_queues(cli, admin, org_id, tmp_path) -> None:
    path = write(tmp_path, "t.toml", TRIAGE_TOML.format(name="x"))
    result = cli("queue", "edit", "Categorization", str(path))
    assert result.code == 2 and f"{path}: tasks: edit changes the queue's definition only" in result.err, (
        result
    )
    named = write(tmp_path, "n.toml", 'name = "y"\n')
    result = cli("queue", "edit", "No such queue", str(named))
    assert result.code == 4 and "No queue 'No such queue'" in result.err, result


def test_a_worker_may_not_create(cli, tmp_path) -> None:
    from tests.support import KEYS

    path = write(tmp_path, "w.toml", TRIAGE_TOML.format(name="By a worker"))
    result = cli("queue", "create", str(path), token=KEYS["worker"])
    assert result.code == 3, result


def test_the_original_service_cannot_create_queues(original: OriginalService, tmp_path) -> None:
    path = write(tmp_path, "q.toml", TRIAGE_TOML.format(name="Nope"))
    result = original_cli(original, "queue", "create", str(path))
    assert result.code == 7, result
    assert "this server cannot create or change queues" in result.err
    assert "only the basic Task Queue API" in result.err
    assert [s.path for s in original.seen] == ["/me"]  # nothing but the detection was sent
    shown = original_cli(original, "queue", "show", "7")
    assert shown.code == 0, shown
    assert tomllib.loads(shown.out)["blocks"]


def test_review_percent_in_queue_files_creates_edits_and_shows(cli, admin, org_id, tmp_path) -> None:
    path = write(
        tmp_path,
        "reviewed.toml",
        TRIAGE_TOML.format(name="Reviewed from TOML").replace(
            'description = "Sort', 'review_percent = 20\ndescription = "Sort'
        ),
    )
    made = cli("queue", "create", str(path), "--json")
    assert made.code == 0, made
    queue_id = made.json()["id"]
    assert detail(admin, org_id, queue_id)["review_percent"] == 20
    assert (
        cli("queue", "edit", str(queue_id), str(write(tmp_path, "r.json", '{"review_percent": 5}'))).code == 0
    )
    assert detail(admin, org_id, queue_id)["review_percent"] == 5
    shown = cli("queue", "show", str(queue_id), "--format", "toml")
    assert tomllib.loads(shown.out)["review_percent"] == 5
    wrong = cli("queue", "edit", str(queue_id), str(write(tmp_path, "w.json", '{"review_percent": 101}')))
    assert wrong.code != 0 and "review_percent: must be a whole number from 0 to 100" in wrong.err
    assert detail(admin, org_id, queue_id)["review_percent"] == 5
