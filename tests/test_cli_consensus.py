"""The command line's consensus (B21): `queue consensus`, `tasks show` with the answers, `stats`
with disputed tasks and per worker agreement, `export` with each task's answers in JSON lines; run as
real subprocesses against the real server (and one made to answer as an older server)."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import json
import tomllib

import httpx

from tests.api.test_client_consensus import needs_b21, older  # noqa: F401  (the fixture, used by name)
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer
from tests.test_cli import cli  # noqa: F401  (the fixture, used by name)

B21_BLOCKS = [
    {"id": "text", "name": "Text", "type": "text", "text": {"read_only": True}},
    {
        "id": "kind",
        "name": "Kind",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "cat", "name": "Cat"}, {"id": "dog", "name": "Dog"}]},
    },
    {"id": "urgent", "name": "Urgent", "type": "binary"},
    {"id": "note", "name": "Note", "type": "text"},
]


def test_the_settings_asked_for_are_checked_before_anything_is_sent(cli, admin, org_id) -> None:
    queue = make_queue(admin, org_id, B21_BLOCKS)
    name = queue["name"]
    both = cli("queue", "consensus", name, "--off", "--answers", "2")
    assert both.code == 2 and "--off takes no other setting (given: --answers)" in both.err, both
    alone = cli("queue", "consensus", name, "--max", "3")
    assert alone.code == 2 and "--max needs --answers N (2-10)" in alone.err, alone
    share = cli("queue", "consensus", name, "--answers", "2", "--agreement", "most")
    assert share.code == 2 and "must be a share from 0.5 to 1" in share.err, share
    helped = cli("queue", "consensus", "--help")
    assert (
        helped.code == 0 and "--blocks IDS" in helped.out and "goes to review" in " ".join(helped.out.split())
    )


def test_an_older_server_says_it_has_no_consensus(cli, older: OlderServer, admin, org_id) -> None:
    queue = make_queue(admin, org_id, B21_BLOCKS)
    for args in (
        ("queue", "consensus", queue["name"]),
        ("queue", "consensus", queue["name"], "--answers", "2"),
    ):
        result = cli(*args, url=older.url)
        assert result.code == 7, result  # not supported by this server
        assert "has no consensus (several workers answer each task, blind, until they agree)" in result.err
        assert "Traceback" not in result.err
    assert not [seen for seen in older.seen if seen.startswith("PATCH")]
    exported = cli("export", queue["name"], "--format", "jsonl", "--answers", url=older.url)
    assert exported.code == 7 and "has no consensus" in exported.err, exported


def test_consensus_set_read_and_shown_per_task_in_stats_and_export(
    cli, server: ServerProcess, admin, org_id
) -> None:
    needs_b21(server)
    queue = make_queue(admin, org_id, B21_BLOCKS)
    name, qpath = queue["name"], f"/orgs/{org_id}/queues/{queue['id']}"
    wrong = cli("queue", "consensus", name, "--answers", "2", "--blocks", "kind,note,nope")
    assert wrong.code == 2, wrong
    assert "'note' is a text block" in wrong.err and "'nope' is no block of the queue" in wrong.err
    assert "nothing was changed" in wrong.err
    made = cli("queue", "consensus", name, "--answers", "2", "--max", "3")
    assert made.code == 0, made
    assert (
        f"Queue {queue['id']} {name!r} now: Each task is answered by 2 workers, a third when they disagree"
        in made.out
    )
    assert "on each of Kind and Urgent" in made.out
    shown = cli("queue", "consensus", name, "--json")
    assert shown.json()["consensus"] == {
        "answers": 2,
        "max_answers": 3,
        "agreement": 0.5,
        "blocks": ["kind", "urgent"],
    }

    ids = admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": [
        {"data": {"text": "one"}}, {"data": {"text": "two"}}]}).json()["ids"]  # fmt: skip
    answers = {"worker": ("cat", "cat"), "worker2": ("dog", "cat")}
    for role, kinds in answers.items():
        who = httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS[role]}"})
        for kind in kinds:
            task = who.post(f"{qpath}/tasks/next").json()
            done = who.post(
                f"{qpath}/tasks/{task['id']}/complete", json={"data": {"kind": kind, "urgent": False}}
            )
            assert done.status_code == 200, done.text
        who.close()

    listed = cli("tasks", "list", name, "--consensus", "collecting")
    assert listed.code == 0, listed
    row = next(line for line in listed.out.splitlines() if line.lstrip().startswith(str(ids[0])))
    assert "collecting" in row and "2 answers, they disagree: up to 3" in row, listed.out
    assert listed.out.rstrip().endswith(
        f"1 collecting pending task in queue {queue['id']} {name!r}; shown: 1-1."
    )
    assert cli("tasks", "list", name, "--consensus", "disputed", "--json").json()["count"] == 0
    bad = cli("tasks", "list", name, "--limit", "0")
    assert bad.code == 2 and "must be a whole number from 1 to 1000" in bad.err, bad

    collecting = cli("tasks", "show", name, str(ids[0]))
    assert collecting.code == 0, collecting
    assert "open · consensus: collecting answers (2 answers, they disagree: up to 3)" in collecting.out
    assert "Wes <wes@acme.test>" in collecting.out and "Wyn <wyn@acme.test>" in collecting.out
    header = next(line for line in collecting.out.splitlines() if line.startswith("worker"))
    assert header.split() == ["worker", "answered", "seconds", "Kind", "Urgent", "Note"]  # what workers fill
    assert "agreement: Kind 50%, Urgent 100%" in collecting.out
    settled = cli("tasks", "show", name, str(ids[1]), "--json").json()
    assert settled["consensus"]["state"] == "settled" and len(settled["consensus"]["answers"]) == 2

    stats = cli("stats", name)
    assert stats.code == 0, stats
    assert "0 disputed" in stats.out and "agreement" in stats.out
    wes = next(line for line in stats.out.splitlines() if "wes@acme.test" in line)
    assert " 50%" in wes  # of 2 answers, 1 held the final values of a settled task (the other collects)

    exported = cli("export", name, "--format", "jsonl")
    assert exported.code == 0, exported
    lines = [json.loads(line) for line in exported.out.splitlines()]
    assert [(t["id"], t["consensus"]["state"]) for t in lines] == [(ids[1], "settled")]
    assert {a["worker"] for a in lines[0]["consensus"]["answers"]} == {"wes@acme.test", "wyn@acme.test"}
    flat = cli("export", name, "--format", "csv")
    assert flat.code == 0 and "answers are written with --format jsonl" in flat.err
    refused = cli("export", name, "--format", "csv", "--answers")
    assert refused.code == 2 and "add --format jsonl" in refused.err

    off = cli("queue", "consensus", name, "--off")
    assert off.code == 0 and "No consensus: one answer completes a task." in off.out, off


def test_stats_of_a_queue_without_consensus_has_no_answer_columns(cli, admin, worker, org_id) -> None:
    queue = make_queue(admin, org_id)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}})
    task = worker.post(f"{qpath}/tasks/next").json()
    assert (
        worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}).status_code
        == 200
    )
    result = cli("stats", queue["name"])
    assert result.code == 0, result
    assert "1 completed since" in result.out and "disputed" not in result.out
    header = next(line for line in result.out.splitlines() if line.lstrip().startswith("worker"))
    assert "agreement" not in header and "median s" in header
    assert "wes@acme.test" in result.out


CONSENSUS_TOML = """\
name = "{name}"
consensus = {consensus}

[[blocks]]
id = "kind"
name = "Kind"
type = "single_selection"
single_selection = {{ options = [{{ id = "cat", name = "Cat" }}, {{ id = "dog", name = "Dog" }}] }}

[[blocks]]
id = "note"
name = "Note"
type = "text"
"""


def test_a_queue_file_with_wrong_consensus_settings_says_where_and_sends_nothing(cli, tmp_path) -> None:
    path = tmp_path / "q.toml"
    path.write_text(
        CONSENSUS_TOML.format(name="Never made", consensus='{ answers = 12, blocks = ["note"], at = 1 }')
    )
    result = cli("queue", "create", str(path))
    assert result.code == 2, result
    assert "consensus.at: unknown key (valid: answers, max_answers, agreement, blocks)" in result.err
    path.write_text(CONSENSUS_TOML.format(name="Never made", consensus='{ answers = 12, blocks = ["note"] }'))
    result = cli("queue", "create", str(path))
    assert "consensus: answers must be 2-10, not 12" in result.err
    assert "consensus: 'note' is a text block" in result.err
    path.write_text(CONSENSUS_TOML.format(name="Never made", consensus="false"))
    assert "consensus: must be a table such as { answers = 2" in cli("queue", "create", str(path)).err


def test_an_older_server_changes_nothing_for_a_file_with_consensus(
    cli, older: OlderServer, admin, org_id, tmp_path
) -> None:
    queue = make_queue(admin, org_id, B21_BLOCKS)
    path = tmp_path / "edit.json"
    path.write_text(json.dumps({"name": "Renamed", "consensus": {"answers": 2}}))
    result = cli("queue", "edit", str(queue["id"]), str(path), url=older.url)
    assert result.code == 7 and "has no consensus" in result.err, result
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["name"] == queue["name"]


def test_queue_files_create_show_and_turn_off_consensus(
    cli, server: ServerProcess, admin, org_id, tmp_path
) -> None:
    needs_b21(server)
    path = tmp_path / "q.toml"
    path.write_text(
        CONSENSUS_TOML.format(name=f"Pets {tmp_path.name[-6:]}", consensus="{ answers = 2, max_answers = 3 }")
    )
    made = cli("queue", "create", str(path), "--json")
    assert made.code == 0, made
    queue_id = made.json()["id"]
    shown = cli("queue", "show", str(queue_id))
    assert shown.code == 0, shown
    assert tomllib.loads(shown.out)["consensus"] == {
        "answers": 2,
        "max_answers": 3,
        "agreement": 0.5,
        "blocks": ["kind"],
    }
    off = tmp_path / "off.toml"
    off.write_text("consensus = false\n")
    assert cli("queue", "edit", str(queue_id), str(off)).code == 0
    assert admin.get(f"/orgs/{org_id}/queues/{queue_id}").json()["consensus"] is None
