"""The `queuedesk` command line, run as a real subprocess against the real server.

Covers the listing and JSON output, creating tasks, naming queues, flushing, webhooks, exit codes,
configuration (profiles, precedence, `config path|show`), all-or-nothing CSV import at 10,000 rows,
and a streaming export of 20,000 completed tasks whose peak memory must not grow with the number of
tasks, round-tripped back through `import`; progress on a terminal (a pty) and when piped.
"""

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.api.config import Profile, load_config, save_profile
from queuedesk.commands.progress import Progress
from tests.conftest import make_queue
from tests.fill import fill_completed
from tests.support import CORE_BLOCKS, KEYS, ServerProcess, free_port, queuedesk_command

BIG = 20_000
SMALL = 2_000
RSS_GROWTH_LIMIT_KB = 15 * 1024


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"exit {self.code}\nstdout: {self.out[-2000:]}\nstderr: {self.err[-2000:]}"


NO_CONFIG = "/nonexistent/queuedesk-test/config.toml"  # never the profiles of the machine's user


def cli_env(
    server: ServerProcess,
    token: str | None = KEYS["admin"],
    org: int | None = None,
    url: str | None = None,
    config: str = NO_CONFIG,
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    env["QUEUEDESK_CONFIG"] = config
    if url != "":
        env["QUEUEDESK_URL"] = url or server.url
    if token is not None:
        env["QUEUEDESK_TOKEN"] = token
    if org is not None:
        env["QUEUEDESK_ORG"] = str(org)
    return env


@pytest.fixture
def cli(server: ServerProcess, org_id: int) -> Callable[..., Result]:
    """`cli("queues", "--json")` runs `queuedesk queues --json` as the admin; keywords change the env
    (`url=""` leaves QUEUEDESK_URL out)."""

    def run(
        *args: str,
        token: str | None = KEYS["admin"],
        org: int | None = org_id,
        url: str | None = None,
        config: str = NO_CONFIG,
        timeout: float = 120,
    ) -> Result:
        done = subprocess.run(
            [*queuedesk_command(), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=cli_env(server, token, org, url, config),
            timeout=timeout,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    return run


def n_pending(admin: httpx.Client, org_id: int, queue_id: int) -> int:
    response = admin.get(f"/orgs/{org_id}/queues/{queue_id}")
    assert response.status_code == 200, response.text
    return response.json()["n_tasks"]


def all_tasks(admin: httpx.Client, org_id: int, queue_id: int, kind: str) -> list[dict]:
    """Every pending (`tasks`) or completed (`tasks/completed`) task of a queue, through the API."""
    found: list[dict] = []
    while True:
        page = admin.get(
            f"/orgs/{org_id}/queues/{queue_id}/{kind}", params={"offset": len(found), "limit": 1000}
        )
        assert page.status_code == 200, page.text
        body = page.json()
        found += body["tasks"]
        if body["next"] is None:
            assert len(found) == body["count"]
            return found


def as_key(data: dict) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def create(admin: httpx.Client, org_id: int, queue_id: int, data: dict) -> dict:
    response = admin.post(f"/orgs/{org_id}/queues/{queue_id}/tasks/create", json={"data": data})
    assert response.status_code == 200, response.text
    return response.json()


# --- queues ---------------------------------------------------------------------------------------


def test_queues_table(cli, admin, org_id, clients) -> None:
    queue = make_queue(admin, org_id, name="Table Queue")
    for n in range(3):
        create(admin, org_id, queue["id"], {"paragraph": f"t{n}"})
    claimed = clients["worker"].post(f"/orgs/{org_id}/queues/{queue['id']}/tasks/next")
    assert claimed.status_code == 200

    result = cli("queues")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert lines[0].split() == ["id", "name", "pending", "active", "created"]
    assert set(lines[1].strip()) == {"─"}  # a rich table, plain when piped
    (row,) = [line for line in lines[2:] if "Table Queue" in line]
    cells = [c.strip() for c in row.split("  ") if c.strip()]
    assert cells[0] == str(queue["id"]) and cells[1] == "Table Queue"
    assert cells[2:4] == ["3", "Wes"], row
    assert cells[-1] == queue["created_at"][:16].replace("T", " "), row
    assert "\x1b[" not in result.out  # no colour codes when piped
    assert result.err == ""


def test_connection_options_before_the_command_count_like_after_it(cli, server, org_id) -> None:
    flags = ["--url", server.url, "--token", KEYS["supervisor"], "--org", str(org_id)]
    before = cli(*flags, "queues", "--json", token=None, org=None, url="")
    assert before.code == 0, before
    after = cli("queues", "--json", *flags, token=None, org=None, url="")
    assert after.code == 0, after
    assert before.json() == after.json() and before.json()
    # One given after the command wins over the same one before it.
    mixed = cli("--token", "qd_wrong", *flags[:2], "queues", "--token", KEYS["worker"], token=None, url="")
    assert mixed.code == 0, mixed


def test_queues_json(cli, admin, org_id) -> None:
    queue = make_queue(admin, org_id, name="Json Queue ✓")
    create(admin, org_id, queue["id"], {"paragraph": "one"})

    result = cli("queues", "--json")
    assert result.code == 0, result
    listed = result.json()
    assert listed == admin.get(f"/orgs/{org_id}/queues").json()
    assert [q["id"] for q in listed] == sorted(q["id"] for q in listed)
    (mine,) = [q for q in listed if q["id"] == queue["id"]]
    assert mine["name"] == "Json Queue ✓"
    assert mine["n_tasks"] == 1
    assert mine["active_users"] == []
    assert set(mine) == {
        "id",
        "name",
        "created_at",
        "n_tasks",
        "active_users",
        "review_percent",
        "gold_percent",
    }


def test_organization_is_asked_from_the_server_when_not_given(cli, admin, org_id, queue) -> None:
    result = cli("queues", "--json", org=None)
    assert result.code == 0, result
    assert queue["id"] in [q["id"] for q in result.json()]


# --- tasks create ---------------------------------------------------------------------------------


def test_tasks_create(cli, admin, org_id, queue) -> None:
    data = {"paragraph": 'Printer, "again"\non fire — ünïcode', "category": "blue"}
    result = cli("tasks", "create", str(queue["id"]), "--data", json.dumps(data), "--json")
    assert result.code == 0, result
    task = result.json()
    assert task["data"] == {**data, "photo": None}
    assert task["status"] == "new" and task["source"] == "api" and task["queue_id"] == queue["id"]
    stored = admin.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks/{task['id']}").json()
    assert stored["data"] == task["data"]

    plain = cli("tasks", "create", str(queue["id"]), "--data", '{"paragraph": "second"}')
    assert plain.code == 0, plain
    assert plain.out.startswith("Created task ")
    assert f"in queue {queue['id']} {queue['name']!r}" in plain.out
    assert n_pending(admin, org_id, queue["id"]) == 2


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ('{"category": "purple"}', ["nothing was sent", "category", "purple"]),
        ('{"colour": "red"}', ["colour"]),
        ('{"photo": "not a url"}', ["nothing was sent", "photo", "not an http(s) URL"]),
        ("{}", ["data"]),
        ('{"paragraph": ', ["--data is not valid JSON"]),
    ],
    ids=["unknown-option", "unknown-field", "bad-url", "empty", "not-json"],
)
def test_tasks_create_invalid_data(cli, admin, org_id, queue, data, named) -> None:
    result = cli("tasks", "create", str(queue["id"]), "--data", data)
    assert result.code == 2, result
    for word in named:
        assert word in result.err, result
    assert result.out == ""
    assert n_pending(admin, org_id, queue["id"]) == 0


@pytest.mark.parametrize(
    "data",
    ["[1]", '"just text"', "5", "null", '[["paragraph", "sneaked in"]]'],
    ids=["list", "string", "number", "null", "pairs"],
)
def test_tasks_create_data_must_be_a_json_object(cli, admin, org_id, queue, data) -> None:
    result = cli("tasks", "create", str(queue["id"]), "--data", data)
    assert "Traceback" not in result.err, result
    assert result.code == 2, result
    assert "--data" in result.err, result
    assert n_pending(admin, org_id, queue["id"]) == 0


def test_queue_by_id_and_by_name(cli, admin, org_id) -> None:
    named = make_queue(admin, org_id, name="Support Tickets")
    twin_a = make_queue(admin, org_id, name="Twin Queue")
    twin_b = make_queue(admin, org_id, name="twin queue")
    data = '{"paragraph": "x"}'

    for ref in (str(named["id"]), "Support Tickets", "support tickets", "SUPPORT TICKETS"):
        result = cli("tasks", "create", ref, "--data", data, "--json")
        assert result.code == 0, (ref, result)
        assert result.json()["queue_id"] == named["id"]
    assert n_pending(admin, org_id, named["id"]) == 4

    exact = cli("tasks", "create", "twin queue", "--data", data, "--json")
    assert exact.code == 0, exact
    assert exact.json()["queue_id"] == twin_b["id"]

    ambiguous = cli("tasks", "create", "TWIN QUEUE", "--data", data)
    assert ambiguous.code == 2, ambiguous
    assert "names several queues" in ambiguous.err
    assert str(twin_a["id"]) in ambiguous.err and str(twin_b["id"]) in ambiguous.err
    assert n_pending(admin, org_id, twin_a["id"]) == 0
    assert n_pending(admin, org_id, twin_b["id"]) == 1


# --- flush ----------------------------------------------------------------------------------------


def test_flush_needs_yes_then_deletes_pending_only(cli, admin, clients, org_id, queue) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    done = create(admin, org_id, queue["id"], {"paragraph": "done"})
    worker = clients["worker"]
    assert worker.post(f"{qpath}/tasks/next").json()["id"] == done["id"]
    completed = worker.post(f"{qpath}/tasks/{done['id']}/complete", json={"data": {"category": "red"}})
    assert completed.status_code == 200, completed.text
    for n in range(3):
        create(admin, org_id, queue["id"], {"paragraph": f"pending {n}"})

    refused = cli("flush", queue["name"])
    assert refused.code == 2, refused
    assert "--yes" in refused.err and "(3 now)" in refused.err
    assert n_pending(admin, org_id, queue["id"]) == 3

    flushed = cli("flush", queue["name"], "--yes", "--json")
    assert flushed.code == 0, flushed
    assert flushed.json() == {"queue_id": queue["id"], "flushed": True, "pending_before": 3}
    assert n_pending(admin, org_id, queue["id"]) == 0
    kept = admin.get(f"{qpath}/tasks/completed").json()
    assert kept["count"] == 1
    assert kept["tasks"][0]["id"] == done["id"]

    again = cli("flush", str(queue["id"]), "--yes")
    assert again.code == 0, again
    assert "0 pending tasks deleted" in again.out


def test_flush_forbidden_for_a_worker(cli, admin, org_id, queue) -> None:
    create(admin, org_id, queue["id"], {"paragraph": "stay"})
    result = cli("flush", str(queue["id"]), "--yes", token=KEYS["worker"])
    assert result.code == 3, result
    assert "ask an admin" in result.err
    assert n_pending(admin, org_id, queue["id"]) == 1


# --- webhook --------------------------------------------------------------------------------------


def test_webhook_set_get_remove(cli, admin, org_id, queue) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    target = "http://127.0.0.1:9/cli-hook?x=1"

    empty = cli("webhook", "get", str(queue["id"]), "--json")
    assert empty.code == 0, empty
    assert empty.json() == {"queue_id": queue["id"], "target": ""}

    set_ = cli("webhook", "set", queue["name"], target, "--json")
    assert set_.code == 0, set_
    assert set_.json() == {"queue_id": queue["id"], "target": target}
    assert admin.get(f"{qpath}/webhook").json() == {"target": target}

    got = cli("webhook", "get", queue["name"], "--json")
    assert got.json() == {"queue_id": queue["id"], "target": target}
    plain = cli("webhook", "get", queue["name"])
    assert plain.out.strip() == target

    removed = cli("webhook", "remove", str(queue["id"]), "--json")
    assert removed.code == 0, removed
    assert removed.json() == {"queue_id": queue["id"], "target": ""}
    assert admin.get(f"{qpath}/webhook").json() == {"target": ""}
    admin.put(f"{qpath}/webhook", json={"target": target})
    said = cli("webhook", "remove", str(queue["id"]))
    assert (
        said.out.strip() == f"Removed the webhook of queue {queue['id']} {queue['name']!r} (it was {target})."
    )
    again = cli("webhook", "remove", str(queue["id"]))
    assert again.out.strip() == f"Queue {queue['id']} {queue['name']!r} had no webhook: nothing was removed."
    none = cli("webhook", "get", str(queue["id"]))
    assert none.out.strip() == f"(queue {queue['id']} {queue['name']!r} has no webhook)"


def test_webhook_set_refuses_bad_targets(cli, admin, org_id, queue) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    bad = cli("webhook", "set", str(queue["id"]), "ftp://example.com/hook")
    assert bad.code == 2, bad
    assert "target" in bad.err
    missing = cli("webhook", "set", str(queue["id"]))
    assert missing.code == 2, missing
    assert "TARGET" in missing.err
    assert admin.get(f"{qpath}/webhook").json() == {"target": ""}


# --- exit codes -----------------------------------------------------------------------------------


def test_exit_3_on_a_bad_token(cli) -> None:
    result = cli("queues", token="acme-nobody-0000000000000000")
    assert result.code == 3, result
    assert "QUEUEDESK_TOKEN" in result.err
    assert result.out == ""


def test_exit_4_on_an_unknown_queue(cli, admin, org_id, queue) -> None:
    by_name = cli("tasks", "create", "No Such Queue", "--data", '{"paragraph": "x"}')
    assert by_name.code == 4, by_name
    assert "No queue 'No Such Queue'" in by_name.err
    assert repr(queue["name"]) in by_name.err  # the queues there are are listed
    by_id = cli("export", "987654321", "--format", "jsonl")
    assert by_id.code == 4, by_id
    assert by_id.out == ""


def test_exit_6_on_a_closed_port(cli) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = cli("queues", url=url, timeout=60)
    assert result.code == 6, result
    assert f"cannot reach {url}" in result.err


# --- import ---------------------------------------------------------------------------------------

IMPORT_TEXTS = ["plain", "with, comma", 'a "quoted" word', "two\nlines", "déjà vu — 東京 🚀", "  spaced  "]


def import_rows(count: int) -> list[dict]:
    return [
        {
            "paragraph": f"{IMPORT_TEXTS[n % len(IMPORT_TEXTS)]} #{n}",
            "category": ("red", "blue", "green", None)[n % 4],
            "photo": f"https://example.com/p/{n}.png" if n % 5 == 0 else None,
        }
        for n in range(count)
    ]


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["paragraph", "category", "photo"])
        for row in rows:
            writer.writerow(["" if row[k] is None else row[k] for k in ("paragraph", "category", "photo")])


def test_import_with_one_bad_row_creates_nothing(cli, admin, org_id, queue, tmp_path) -> None:
    create(admin, org_id, queue["id"], {"paragraph": "already there"})
    before = n_pending(admin, org_id, queue["id"])
    rows = import_rows(10_000)
    rows[7530]["category"] = "purple"  # row 7,531
    path = tmp_path / "batch.csv"
    write_csv(path, rows)

    result = cli("import", str(queue["id"]), str(path))
    assert result.code == 2, result
    assert "nothing was imported" in result.err
    assert "row 7531 " in result.err
    assert "purple" in result.err and "category" in result.err
    assert result.err.count("row ") == 1, result.err
    assert n_pending(admin, org_id, queue["id"]) == before == 1


def test_import_of_a_file_that_is_not_utf8(cli, admin, org_id, queue, tmp_path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("paragraph,category\ncafé au lait,red\n".encode("latin-1"))
    result = cli("import", str(queue["id"]), str(path))
    assert "Traceback" not in result.err, result
    assert result.code == 2, result
    assert "latin1.csv" in result.err, result
    assert n_pending(admin, org_id, queue["id"]) == 0


def test_import_10000_rows(cli, admin, org_id, queue, tmp_path) -> None:
    rows = import_rows(10_000)
    path = tmp_path / "tickets-2026.csv"
    write_csv(path, rows)

    result = cli("import", queue["name"], str(path), "--json")
    assert result.code == 0, result
    answer = result.json()
    assert answer["created"] == 10_000
    assert answer["source"] == "tickets-2026.csv"
    assert len(set(answer["ids"])) == 10_000

    assert n_pending(admin, org_id, queue["id"]) == 10_000
    tasks = all_tasks(admin, org_id, queue["id"], "tasks")
    assert {t["id"] for t in tasks} == set(answer["ids"])
    assert {t["source"] for t in tasks} == {"tickets-2026.csv"}
    assert Counter(as_key(t["data"]) for t in tasks) == Counter(as_key(r) for r in rows)


# --- export ---------------------------------------------------------------------------------------

EXPORT_TEXTS = [
    "plain words",
    "commas, everywhere, really",
    'she said "no", then "yes"',
    "line one\nline two\nline three",
    "windows\r\nline",
    "carriage\ronly",
    "ünïcödé — 東京 — 🚀🎉",
    '"starts and ends with quotes"',
    "  leading and trailing spaces  ",
    '[1, 2, "looks like JSON"]',
    "null",
    "=SUM(A1:A2)",
    "tab\tseparated",
    "trailing newline\n",
]
FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit; " * 16  # ~1 KB per task


def export_data(n: int) -> dict[str, Any]:
    return {
        "paragraph": f"{EXPORT_TEXTS[n % len(EXPORT_TEXTS)]} #{n} {FILLER}",
        "category": ("red", "blue", "green", None)[n % 4],
        "photo": f"https://example.com/img/{n}.png?size=a,b" if n % 3 == 0 else None,
    }


RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as out:\n"
    "    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(code)\n"
)


@dataclass
class Export:
    queue: dict
    path: Path
    peak_rss_kb: int
    result: Result


@dataclass
class Exports:
    big_queue: dict
    small_queue: dict
    runs: dict[tuple[str, int], Export]


def run_export(
    server: ServerProcess, org_id: int, queue_ref: str, fmt: str, path: Path
) -> tuple[int, Result]:
    """`queuedesk export` in a fresh wrapper process that reports the export's peak RSS (KiB)."""
    rss_file = path.with_suffix(path.suffix + ".rss")
    done = subprocess.run(
        [
            *(sys.executable, "-c", RSS_WRAPPER, str(rss_file)),
            *queuedesk_command(),
            *("export", queue_ref, "--format", fmt, "-o", str(path)),
        ],
        capture_output=True,
        text=True,
        env=cli_env(server, org=org_id),
        timeout=120,
    )
    return int(rss_file.read_text()), Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def exports(server, clients, org_id, tmp_path_factory) -> Iterator[Exports]:
    admin = clients["admin"]
    big = make_queue(admin, org_id, name="Export Big")
    small = make_queue(admin, org_id, name="Export Small")
    fill_completed(server.db_url, big["id"], BIG, "wes@acme.test", export_data)
    fill_completed(server.db_url, small["id"], SMALL, "wes@acme.test", export_data)
    folder = tmp_path_factory.mktemp("exports")
    runs: dict[tuple[str, int], Export] = {}
    for fmt in ("csv", "jsonl"):
        for queue, count in ((small, SMALL), (big, BIG)):
            path = folder / f"export-{count}.{fmt}"
            ref = queue["name"] if fmt == "csv" else str(queue["id"])
            rss, result = run_export(server, org_id, ref, fmt, path)
            runs[(fmt, count)] = Export(queue, path, rss, result)
    yield Exports(big, small, runs)


def test_export_to_a_file_that_cannot_be_written(cli, queue, tmp_path) -> None:
    target = tmp_path / "no-such-folder" / "out.csv"
    result = cli("export", str(queue["id"]), "-o", str(target))
    assert "Traceback" not in result.err, result
    assert result.code == 2, result  # as `import` of an unreadable file: a bad argument
    assert str(target) in result.err, result
    assert not target.exists()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_memory_stays_flat(exports, fmt) -> None:
    small, big = exports.runs[(fmt, SMALL)], exports.runs[(fmt, BIG)]
    for run in (small, big):
        assert run.result.code == 0, run.result
    growth = big.peak_rss_kb - small.peak_rss_kb
    report = (
        f"{fmt} export peak RSS: {SMALL:,} tasks {small.peak_rss_kb / 1024:.1f} MiB, "
        f"{BIG:,} tasks {big.peak_rss_kb / 1024:.1f} MiB, growth {growth / 1024:.1f} MiB "
        f"(file sizes {small.path.stat().st_size / 2**20:.1f} / {big.path.stat().st_size / 2**20:.1f} MiB)"
    )
    print(report)
    assert growth <= RSS_GROWTH_LIMIT_KB, report
    assert big.path.stat().st_size > 9 * small.path.stat().st_size, report


def read_export_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_export_csv_content(exports, admin, org_id) -> None:
    run = exports.runs[("csv", BIG)]
    assert run.result.code == 0, run.result
    assert f"Exported {BIG:,} completed tasks of queue {run.queue['id']}" in run.result.err
    rows = read_export_csv(run.path)
    assert len(rows) == BIG
    assert list(rows[0]) == ["id", "status", "created_at", "completed_at", "completed_by", "source"] + [
        b["id"] for b in CORE_BLOCKS
    ]
    assert len({r["id"] for r in rows}) == BIG
    assert {r["status"] for r in rows} == {"completed"}
    assert {r["completed_by"] for r in rows} == {"wes@acme.test"}
    assert {r["source"] for r in rows} == {"manual"}
    contract_form = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
    assert all(contract_form.fullmatch(r["completed_at"]) for r in rows), rows[0]
    assert all(contract_form.fullmatch(r["created_at"]) for r in rows), rows[0]
    ids = [int(r["id"]) for r in rows]
    assert ids == sorted(ids, reverse=True), "newest completion first"
    exported = Counter(as_key({k: (r[k] or None) for k in ("paragraph", "category", "photo")}) for r in rows)
    assert exported == Counter(as_key(export_data(n)) for n in range(BIG))
    raw = run.path.read_bytes()
    assert "東京 — 🚀🎉".encode() in raw


def test_export_jsonl_content(exports, admin, org_id) -> None:
    run = exports.runs[("jsonl", BIG)]
    assert run.result.code == 0, run.result
    text = run.path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    lines = text.split("\n")[:-1]
    assert len(lines) == BIG
    tasks = [json.loads(line) for line in lines]
    first_page = admin.get(
        f"/orgs/{org_id}/queues/{run.queue['id']}/tasks/completed", params={"limit": 5}
    ).json()
    assert tasks[:5] == first_page["tasks"], "each line is the task as the API answers it"
    assert len({t["id"] for t in tasks}) == BIG
    assert {t["queue_id"] for t in tasks} == {run.queue["id"]}
    assert Counter(as_key(t["data"]) for t in tasks) == Counter(as_key(export_data(n)) for n in range(BIG))
    assert "🚀🎉" in text  # written as UTF-8, not \u escapes


def test_exported_csv_imports_back_identical(exports, cli, admin, org_id) -> None:
    run = exports.runs[("csv", BIG)]
    assert run.result.code == 0, run.result
    target = make_queue(admin, org_id, name="Export Copy")

    result = cli("import", str(target["id"]), str(run.path), "--json")
    assert result.code == 0, result
    assert result.json()["created"] == BIG
    assert result.json()["source"] == run.path.name

    source_tasks = all_tasks(admin, org_id, run.queue["id"], "tasks/completed")
    copied = all_tasks(admin, org_id, target["id"], "tasks")
    assert len(source_tasks) == len(copied) == BIG
    assert {t["source"] for t in copied} == {run.path.name}
    source_data = Counter(as_key(t["data"]) for t in source_tasks)
    copied_data = Counter(as_key(t["data"]) for t in copied)
    missing = source_data - copied_data
    extra = copied_data - source_data
    assert source_data == copied_data, (
        f"{sum(missing.values())} source task(s) differ, e.g. {next(iter(missing), None)!r} "
        f"became {next(iter(extra), None)!r}"
    )


def test_export_to_stdout_is_the_same_csv(exports, server, org_id) -> None:
    run = exports.runs[("csv", SMALL)]
    done = subprocess.run(  # bytes: the cells' own \r and \r\n must come through untranslated
        [*queuedesk_command(), "export", str(run.queue["id"])],
        capture_output=True,
        env=cli_env(server, org=org_id),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == run.path.read_bytes()
    assert (
        done.stderr.decode()
        == f"Exported {SMALL:,} completed tasks of queue {run.queue['id']} 'Export Small'.\n"
    )


# --- configuration ----------------------------------------------------------------------------------


def test_config_path_prints_the_files_path(cli, tmp_path) -> None:
    chosen = tmp_path / "my" / "config.toml"
    result = cli("config", "path", config=str(chosen))
    assert result.code == 0, result
    assert result.out == f"{chosen}\n"


def test_the_default_profile_is_used_when_nothing_else_is_given(cli, server, org_id, queue, tmp_path) -> None:
    config = tmp_path / "config.toml"
    save_profile("demo", Profile(url=server.url, token=KEYS["worker"], org=org_id), path=config)
    result = cli("queues", "--json", url="", token=None, org=None, config=str(config))
    assert result.code == 0, result
    assert queue["id"] in [q["id"] for q in result.json()]
    denied = cli("flush", str(queue["id"]), "--yes", url="", token=None, org=None, config=str(config))
    assert denied.code == 3, denied  # it really was the worker's key


def test_an_unknown_profile_is_exit_2_listing_the_profiles(cli, server, tmp_path) -> None:
    config = tmp_path / "config.toml"
    save_profile("demo", Profile(url=server.url, token=KEYS["admin"]), path=config)
    save_profile("spare", Profile(url=server.url, token=KEYS["worker"]), make_default=False, path=config)
    result = cli("queues", "--profile", "dmeo", url="", token=None, org=None, config=str(config))
    assert result.code == 2, result
    assert "There is no profile 'dmeo'" in result.err and "the profiles: demo, spare" in result.err


def test_a_malformed_config_file_is_exit_2_naming_the_place(cli, tmp_path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[profiles.demo]\nurl = "http://127.0.0.1:1"\ntoken = "k"\norg = "one"\n')
    result = cli("queues", url="", token=None, org=None, config=str(config))
    assert result.code == 2, result
    assert f"{config}: profiles.demo.org: " in result.err


def test_a_key_from_the_environment_is_not_sent_to_the_url_of_the_flags(cli, server) -> None:
    elsewhere = f"http://127.0.0.1:{free_port()}"
    result = cli("queues", "--url", server.url, url=elsewhere)  # the admin's key is for `elsewhere`
    assert result.code == 3, result
    assert "Authentication credentials were not provided" in result.err
    same = cli("queues", "--url", server.url + "/")  # the environment names this server: its key goes
    assert same.code == 0, same


def test_config_show_says_where_each_value_comes_from(cli, server, org_id, tmp_path) -> None:
    config = tmp_path / "config.toml"
    save_profile("demo", Profile(url=server.url, token=KEYS["supervisor"], org=org_id), path=config)
    result = cli("config", "show", "--json", url="", token=None, org=None, config=str(config))
    assert result.code == 0, result
    assert result.json() == {
        "config_file": str(config),
        "config_file_exists": True,
        "profile": "demo",
        "default_profile": "demo",
        "profiles": ["demo"],
        "url": {"value": server.url, "source": "profile 'demo'"},
        "token": {"value": "acme-s…cdef", "source": "profile 'demo'"},
        "org": {"value": org_id, "source": "profile 'demo'"},
    }
    assert KEYS["supervisor"] not in result.out

    # A key in the environment without its URL would go to the profile's server: refused, and said.
    stray = cli("config", "show", url="", token=KEYS["worker"], org=None, config=str(config))
    assert stray.code == 2, stray
    assert "QUEUEDESK_TOKEN holds a key without a server URL" in stray.err and server.url in stray.err
    assert KEYS["worker"] not in stray.err + stray.out

    plain = cli("config", "show", "--url", "http://queues.example", config=str(config))
    assert plain.code == 0, plain
    assert f"config file: {config}" in plain.out and "profiles: demo (default)" in plain.out
    rows = {line.split()[0]: line for line in plain.out.splitlines()[3:] if line.strip()}
    assert "http://queues.example" in rows["url"] and "flags (--url)" in rows["url"]
    assert "not set" in rows["token"] and "asked from the server" in rows["org"]
    assert (
        load_config(config).profiles["demo"].token.get_secret_value() == KEYS["supervisor"]
    )  # show changes nothing


# --- issue 11 on a QueueDesk server -------------------------------------------------------------------


def test_another_organization_names_the_keys_own(cli, org_id, other_org) -> None:
    result = cli("queues", org=other_org["org"])
    assert result.code == 3, result
    assert f"The key belongs to organization {org_id} ('Acme'), not {other_org['org']}." in result.err
    assert "Check the organization id" in result.err and "--org" in result.err


def test_an_empty_QUEUEDESK_ORG_is_asked_from_the_server(server, queue) -> None:
    env = {**cli_env(server), "QUEUEDESK_ORG": ""}
    done = subprocess.run(
        [*queuedesk_command(), "queues", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert queue["id"] in [q["id"] for q in json.loads(done.stdout)]


def test_no_url_anywhere_is_exit_2_naming_the_option_and_the_variable(cli) -> None:
    result = cli("queues", url="")
    assert result.code == 2, result
    assert "--url" in result.err and "QUEUEDESK_URL" in result.err


@pytest.mark.parametrize("size", ["0", "1001", "-5", "ten"])
def test_page_size_is_checked_against_1_to_1000(cli, queue, size) -> None:
    result = cli("export", str(queue["id"]), "--page-size", size)
    assert result.code == 2, result
    assert "--page-size" in result.err and "1 to 1000" in result.err
    assert result.out == ""


def test_import_from_a_start_row(cli, admin, org_id, queue, tmp_path) -> None:
    rows = import_rows(10)
    path = tmp_path / "part.csv"
    write_csv(path, rows)
    result = cli("import", str(queue["id"]), str(path), "--start-row", "8", "--json")
    assert result.code == 0, result
    assert result.json()["created"] == 3 and result.json()["source"] == "part.csv"
    tasks = all_tasks(admin, org_id, queue["id"], "tasks")
    assert [t["data"] for t in tasks] == rows[7:]
    bad = cli("import", str(queue["id"]), str(path), "--start-row", "0")
    assert bad.code == 2 and "--start-row" in bad.err, bad


def test_export_filters_on_a_queuedesk_server(cli, admin, clients, org_id, queue) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    for n in range(3):
        create(admin, org_id, queue["id"], {"paragraph": f"p{n}"})
    done = []
    for worker in (clients["worker"], clients["worker2"], clients["worker"]):
        task = worker.post(f"{qpath}/tasks/next").json()
        finished = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
        assert finished.status_code == 200, finished.text
        done.append(finished.json())
    result = cli(
        "export", str(queue["id"]), "--format", "jsonl", "--completed-by", "wes@acme.test",
        "--start-date", done[1]["completed_at"],
    )  # fmt: skip
    assert result.code == 0, result
    assert [json.loads(line)["id"] for line in result.out.splitlines()] == [done[2]["id"]]
    assert result.err.strip().startswith("Exported 1 completed task of")
    bad = cli("export", str(queue["id"]), "--end-date", "soon")
    assert bad.code == 2 and "'soon' is not an ISO 8601 date" in bad.err, bad


# --- progress -------------------------------------------------------------------------------------------


def run_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the command with stderr on a pseudo-terminal; its exit code and what it drew there."""
    main, side = pty.openpty()
    try:
        done = subprocess.run(
            [*queuedesk_command(), *args],
            stdout=subprocess.PIPE,
            stderr=side,
            env={**env, "TERM": "xterm-256color", "COLUMNS": "120"},
            timeout=120,
        )
        os.close(side)
        side = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
        if side != -1:
            os.close(side)
    return done.returncode, drawn.decode(errors="replace")


TIME_LEFT = re.compile(r"\d+:\d\d:\d\d")


def test_progress_is_a_rich_bar_on_a_terminal(server, admin, org_id, tmp_path) -> None:
    queue = make_queue(admin, org_id, name="Progress Bar")
    fill_completed(server.db_url, queue["id"], 3000, "wes@acme.test", lambda n: {"paragraph": f"t{n}"})
    code, text = run_on_a_terminal(
        ["export", str(queue["id"]), "-o", str(tmp_path / "out.csv"), "--page-size", "500"],
        cli_env(server, org=org_id),
    )
    assert code == 0, text
    assert "Exporting 'Progress Bar'" in text and "3000/3000" in text, text
    assert "tasks/s" in text and "━" in text, text
    assert TIME_LEFT.search(text), f"no time left shown: {text}"
    assert "Exported 3,000 completed tasks" in text


def test_import_progress_is_a_rich_bar_on_a_terminal(server, admin, org_id, queue, tmp_path) -> None:
    path = tmp_path / "rows.csv"
    write_csv(path, import_rows(2000))
    code, text = run_on_a_terminal(
        ["import", queue["name"], str(path), "--chunk-rows", "500"], cli_env(server, org=org_id)
    )
    assert code == 0, text
    assert f"Importing into '{queue['name']}'" in text and "2000/2000" in text, text
    assert "rows/s" in text and "━" in text, text
    assert TIME_LEFT.search(text), f"no time left shown: {text}"
    assert n_pending(admin, org_id, queue["id"]) == 2000


def test_progress_is_plain_lines_when_piped() -> None:
    stream = io.StringIO()
    with Progress("Importing into 'Q'", "rows", 1000, stream=stream, interval=0) as progress:
        progress.advance(250)
        progress.advance(750)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(
        r"Importing into 'Q': 250 / 1,000 rows \(25%\), [\d,]+ rows/s, about [\d,]+ s left", lines[0]
    )
    assert lines[1].startswith("Importing into 'Q': 1,000 / 1,000 rows (100%)")
    assert "\x1b" not in stream.getvalue() and "━" not in stream.getvalue()
    quiet = io.StringIO()
    with Progress("Exporting 'Q'", "tasks", stream=quiet) as progress:  # the usual 10 s between lines
        progress.advance(5000, total=9000)
    assert quiet.getvalue() == ""


def test_no_arguments_give_the_app_the_namespace_the_whole_parser_gives() -> None:
    """`queuedesk` alone skips building every command's parser (a start-up cost): same namespace."""
    from queuedesk.cli import app_parser, build_parser

    assert app_parser().parse_args([]) == build_parser().parse_args([])
