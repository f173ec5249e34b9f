"""The command line's priority and due dates (B24) and reservations (B25): `tasks create --priority
--due --reserved-for`, `import` with the columns priority, due_at and reserved_for, `tasks patch`,
`tasks assign`, `tasks list --overdue --reserved-for` and `queue order`; run as real subprocesses
against the real server (and one made to answer as an older server)."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import contextlib
import io

import pytest

from queuedesk.cli import build_parser
from tests.api.test_client_consensus import older  # noqa: F401  (the fixture, used by name)
from tests.api.test_client_priority import needs
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer
from tests.test_cli import cli  # noqa: F401  (the fixture, used by name)


def parsed(*args: str) -> tuple[int, str]:
    """`queuedesk ARGS` read by the real parser in this process: (exit code, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            build_parser().parse_args(list(args))
        except SystemExit as exit:
            return int(exit.code or 0), out.getvalue()
    return 0, out.getvalue()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("tasks", "create", "q", "--data", "{}", "--priority", "9999"), "from -1000 to 1000, not 9999"),
        (("tasks", "patch", "q", "5", "--priority", "high"), "not 'high'"),
        (("tasks", "assign", "q", "5"), "one of the arguments --to --none is required"),
        (("tasks", "assign", "q", "5", "--to", "a@b.c", "--none"), "not allowed with argument"),
        (("queue", "order", "q", "newest"), "invalid choice: 'newest'"),
    ],
)
def test_the_parser_refuses_bad_options(args: tuple[str, ...], said: str) -> None:
    code, printed = parsed(*args)
    assert code == 2 and said in printed, printed


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("tasks", "create", "--help"), ("--priority N", "--due WHEN", "--reserved-for EMAIL", "+2h")),
        (("tasks", "patch", "--help"), ("priority", "due date", "Admins")),
        (("tasks", "assign", "--help"), ("--to EMAIL", "--none", "nobody else")),
        (("tasks", "list", "--help"), ("--overdue", "--reserved-for")),
        (("queue", "order", "--help"), ("least_confident", "lowest suggestion score")),
        (("import", "--help"), ("priority", "due_at", "reserved_for")),
    ],
)
def test_the_help_says_each_option(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    code, printed = parsed(*args)
    flat = " ".join(printed.split())
    assert code == 0 and all(w in flat for w in words), printed


def test_bad_values_are_refused_before_anything_is_sent(cli, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id)
    name = queue["name"]
    for args, said in (
        (
            ("tasks", "create", name, "--data", '{"paragraph": "p"}', "--due", "soon"),
            "'soon' is not a due date",
        ),
        (("tasks", "patch", name, "5"), "nothing to change: give --priority N and/or --due WHEN"),
    ):
        result = cli(*args)
        assert result.code == 2 and said in result.err, (args, result)
    path = tmp_path / "tasks.csv"
    path.write_text("paragraph,priority,due_at\np,5000,later\n", encoding="utf-8")
    refused = cli("import", name, str(path))
    assert refused.code == 2 and "row 1 (line 2): priority:" in refused.err and "'later'" in refused.err, (
        refused
    )
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["n_tasks"] == 0


def test_an_older_server_says_what_it_lacks(cli, older: OlderServer, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id)
    name = queue["name"]
    path = tmp_path / "placed.csv"
    path.write_text("paragraph,priority,reserved_for\np,5,wes@acme.test\n", encoding="utf-8")
    for args, words in (
        (
            ("tasks", "create", name, "--data", '{"paragraph": "p"}', "--priority", "5"),
            "priority and due dates",
        ),
        (
            ("tasks", "create", name, "--data", '{"paragraph": "p"}', "--reserved-for", "w@x.y"),
            "reservations",
        ),
        (("tasks", "patch", name, "5", "--priority", "1"), "priority and due dates"),
        (("tasks", "assign", name, "5", "--to", "wes@acme.test"), "reservations"),
        (("tasks", "list", name, "--overdue"), "priority and due dates"),
        (("queue", "order", name, "least_confident"), "priority and due dates"),
        (("import", name, str(path)), "priority and due dates"),
    ):
        result = cli(*args, url=older.url)
        assert result.code == 7, (args, result)  # not supported by this server
        assert f"has no {words}" in result.err and "upgrade the server" in result.err, (args, result)
        assert "Traceback" not in result.err
    assert not [seen for seen in older.seen if seen.startswith(("PATCH", "POST"))]


def test_priority_due_dates_and_reservations_through_the_command_line(
    cli, server: ServerProcess, admin, org_id, tmp_path
) -> None:
    needs(server, "B24", "B25")
    queue = make_queue(admin, org_id)
    name = queue["name"]
    made = cli("tasks", "create", name, "--data", '{"paragraph": "late"}', "--priority", "5", "--due=-1h")
    assert made.code == 0 and "priority +5, overdue 1 h." in made.out, made
    late = int(made.out.split()[2])
    path = tmp_path / "tasks.csv"
    path.write_text(
        "paragraph,priority,due_at,reserved_for\nfor wes,,,wes@acme.test\nlater,-2,+3d,\n", encoding="utf-8"
    )
    imported = cli("import", name, str(path), "--json")
    assert imported.code == 0, imported
    for_wes, later = imported.json()["ids"]
    listed = cli("tasks", "list", name)
    assert listed.code == 0 and "priority" in listed.out and "reserved for" in listed.out, listed
    assert "overdue 1 h" in listed.out and "wes@acme.test" in listed.out, listed
    overdue = cli("tasks", "list", name, "--overdue", "--json").json()
    assert [t["id"] for t in overdue["tasks"]] == [late]
    mine = cli("tasks", "list", name, "--reserved-for", "me", "--json", token=KEYS["worker"]).json()
    assert [t["id"] for t in mine["tasks"]] == [for_wes]
    patched = cli("tasks", "patch", name, str(later), "--priority", "7", "--due", "none")
    assert (
        patched.code == 0
        and f"Task {later} in queue" in patched.out
        and "priority 7, no due date" in patched.out
    )
    refused = cli("tasks", "patch", name, str(later), "--priority", "7", token=KEYS["supervisor"])
    assert refused.code != 0 and "Traceback" not in refused.err, refused
    reserved = cli("tasks", "assign", name, str(later), "--to", "wyn@acme.test", token=KEYS["supervisor"])
    assert reserved.code == 0 and "is reserved for wyn@acme.test" in reserved.out, reserved
    wrong = cli("tasks", "assign", name, str(later), "--to", "sue@acme.test")
    assert wrong.code == 2 and "to" in wrong.err, wrong
    lifted = cli("tasks", "assign", name, str(later), "--none")
    assert lifted.code == 0 and "reserved for nobody now" in lifted.out, lifted
    shown = cli("tasks", "show", name, str(for_wes))
    assert "reserved for wes@acme.test" in shown.out, shown
    ordered = cli("queue", "order", name, "least_confident")
    assert ordered.code == 0 and "now claims least_confident" in ordered.out, ordered
    assert cli("queue", "order", name, "--json").json() == {
        "queue_id": queue["id"],
        "order": "least_confident",
    }
    queues = cli("queues", "--json").json()
    assert [q["n_overdue"] for q in queues if q["id"] == queue["id"]] == [1]
