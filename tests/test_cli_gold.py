"""The command line's gold tasks (B22): `tasks create --gold`, `import` with `gold.<block>` columns,
`gold share|list|answers|expect|retire`, and `stats` with each worker's gold accuracy; run as real
subprocesses against the real server (and one made to answer as an older server)."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import httpx

from tests.api.test_client_consensus import older  # noqa: F401  (the fixture, used by name)
from tests.api.test_client_gold import needs_b22
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer
from tests.test_cli import cli  # noqa: F401  (the fixture, used by name)

GOLD_BLOCKS = [
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


def test_gold_input_is_checked_before_anything_is_sent(cli, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id, GOLD_BLOCKS)
    name = queue["name"]
    bad_json = cli("tasks", "create", name, "--data", '{"text": "t"}', "--gold", "kind=cat")
    assert bad_json.code == 2 and "--gold is not valid JSON" in bad_json.err, bad_json
    too_much = cli("gold", "share", name, "60")
    assert too_much.code == 2 and "the gold share must be 0-50" in too_much.err, too_much
    unsure = cli("gold", "retire", name, "5")
    assert unsure.code == 2 and "add --yes" in unsure.err, unsure
    for header, row, said in (
        ("text,gold.note", "t,hello", "'note' is a text block: gold compares selections"),
        ("text,gold.nope", "t,cat", "'nope' is no block of the queue"),
        ("text,gold.kind", "t,mouse", "row 1 (line 2): gold.kind"),
    ):
        path = tmp_path / "gold.csv"
        path.write_text(f"{header}\n{row}\n", encoding="utf-8")
        refused = cli("import", name, str(path))
        assert refused.code == 2 and said in refused.err, (header, refused)
    assert (
        httpx.get(f"{admin.base_url}/orgs/{org_id}/queues/{queue['id']}", headers=admin.headers).json()[
            "n_tasks"
        ]
        == 0
    )
    helped = cli("import", "--help")
    assert helped.code == 0 and "gold.<block id>" in helped.out
    gold_help = cli("gold", "--help")
    assert gold_help.code == 0 and "share" in gold_help.out and "retire" in gold_help.out


def test_an_older_server_says_it_has_no_gold(cli, older: OlderServer, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id, GOLD_BLOCKS)
    name = queue["name"]
    path = tmp_path / "gold.csv"
    path.write_text("text,kind,gold.kind\nplain,,\ngolden,,cat\n", encoding="utf-8")
    for args in (
        ("gold", "share", name),
        ("gold", "share", name, "10"),
        ("gold", "list", name),
        ("gold", "answers", name),
        ("gold", "expect", name, "5", "--expect", '{"kind": "dog"}'),
        ("gold", "retire", name, "5", "--yes"),
        ("tasks", "create", name, "--data", '{"text": "t"}', "--gold", '{"kind": "cat"}'),
        ("import", name, str(path)),
    ):
        result = cli(*args, url=older.url)
        assert result.code == 7, (args, result)  # not supported by this server
        assert "has no gold tasks (tasks with a known answer" in result.err, (args, result)
        assert "Traceback" not in result.err
    assert not [seen for seen in older.seen if seen.startswith(("PATCH", "POST"))]
    plain = path.with_name("plain.csv")
    plain.write_text("text,kind,gold.kind\nplain,,\n", encoding="utf-8")
    imported = cli("import", name, str(plain), url=older.url)  # gold columns left empty: ordinary tasks
    assert imported.code == 0, imported


def test_gold_through_the_command_line(cli, server: ServerProcess, admin, org_id, tmp_path) -> None:
    needs_b22(server)
    queue = make_queue(admin, org_id, GOLD_BLOCKS)
    name, qpath = queue["name"], f"/orgs/{org_id}/queues/{queue['id']}"
    shared = cli("gold", "share", name, "20")
    assert shared.code == 0 and "About 20% of each worker's claims serve a gold task" in shared.out, shared
    assert cli("gold", "share", name, "--json").json() == {"queue_id": queue["id"], "gold_percent": 20}
    wrong = cli("tasks", "create", name, "--data", '{"text": "a"}', "--gold", '{"note": "x"}')
    assert wrong.code == 2 and "'note' is a text block" in wrong.err, wrong
    made = cli("tasks", "create", name, "--data", '{"text": "a"}', "--gold", '{"kind": "cat"}', "--json")
    assert made.code == 0, made
    first = made.json()["id"]
    path = tmp_path / "gold.csv"
    path.write_text("text,gold.kind,gold.urgent\nb,dog,yes\nc,,\n", encoding="utf-8")
    imported = cli("import", name, str(path), "--json")
    assert imported.code == 0 and imported.json()["created"] == 2, imported
    second, plain = imported.json()["ids"]
    listed = cli("gold", "list", name, "--json").json()
    assert {t["id"]: t["gold"] for t in listed} == {
        first: {"kind": "cat"},
        second: {"kind": "dog", "urgent": True},
    }

    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['worker']}"}) as wes:
        served = []
        for _ in range(3):
            claim = wes.post(f"{qpath}/tasks/next")
            assert claim.status_code == 200, claim.text
            task = claim.json()
            assert "gold" not in task and task["source"] in ("api", "gold.csv")
            served.append(task["id"])
            done = wes.post(
                f"{qpath}/tasks/{task['id']}/complete", json={"data": {"kind": "dog", "urgent": True}}
            )
            assert done.status_code == 200, done.text
    assert sorted(served) == sorted([first, second, plain])

    mine = cli("gold", "answers", name, "--worker", "me", "--misses", token=KEYS["worker"])
    assert mine.code == 0, mine
    assert "kind: answered dog, expected cat" in mine.out and "2 gold answers" in mine.out
    unasked = cli("gold", "answers", name, token=KEYS["worker"])
    assert unasked.code == 3 and "nothing was sent" in unasked.err, unasked
    listing = cli("gold", "list", name)
    assert listing.code == 0 and "1 of 1 (100%)" in listing.out and "0 of 1 (0%)" in listing.out, listing
    changed = cli("gold", "expect", name, str(first), "--expect", '{"kind": "dog"}')
    assert changed.code == 0 and "keep their score" in changed.out, changed
    retired = cli("gold", "retire", name, str(second), "--yes")
    assert retired.code == 0 and "is retired" in retired.out, retired
    stats = cli("stats", name)
    assert stats.code == 0 and "gold accuracy" in stats.out and "50%" in stats.out, stats
