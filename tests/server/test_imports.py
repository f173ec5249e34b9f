"""Import sessions (B18): an import larger than one request is all or nothing, even across a crash.

Over real HTTP against `queuedesk serve`, on SQLite and PostgreSQL: staged rows are invisible to
lists and claims until the commit; the commit makes every row a task at once (a concurrent reader
sees none or all); committing again answers the same ids; a re-sent chunk changes nothing; a refused
row is named; and `queuedesk import` with its server SIGKILLed mid-way, restarted and the same
command run again, ends with exactly the file's tasks.
"""

import csv
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.server.store.schema import LATEST
from tests.support import KEYS, ROLES_SEED, ServerProcess, execute_sql, query_value, queuedesk_command
from tests.support.contract import body_of, claim
from tests.tcp_proxy import TcpProxy

SESSION_KEYS = [
    "id",
    "key",
    "status",
    "source",
    "total",
    "staged",
    "next_offset",
    "created_at",
    "expires_at",
    "committed_at",
    "created",
    "ids",
]
_keys = iter(range(1, 1_000_000))


def rows(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"data": {"paragraph": f"row {n}", "category": ("red", "blue")[n % 2]}}
        for n in range(start, start + count)
    ]


def open_session(admin: httpx.Client, qpath: str, total: int, source: str = "tickets.csv") -> dict:
    session = body_of(
        admin.post(f"{qpath}/imports", json={"key": f"test-{next(_keys)}", "source": source, "total": total})
    )
    assert list(session) == SESSION_KEYS
    return session


def stage(admin: httpx.Client, qpath: str, session: dict, offset: int, items: list[dict]) -> httpx.Response:
    return admin.post(f"{qpath}/imports/{session['id']}/chunks", json={"offset": offset, "tasks": items})


def pending_count(admin: httpx.Client, qpath: str) -> int:
    return body_of(admin.get(f"{qpath}/tasks", params={"limit": 1}))["count"]


def test_staged_rows_are_invisible_to_lists_counts_and_claims_until_the_commit(admin, worker, qpath):
    session = open_session(admin, qpath, 6)
    assert (session["status"], session["staged"], session["next_offset"]) == ("staged", 0, 0)
    body_of(stage(admin, qpath, session, 0, rows(3)))
    staged = body_of(stage(admin, qpath, session, 3, rows(3, 3)))
    assert (staged["staged"], staged["next_offset"]) == (6, 6)

    assert pending_count(admin, qpath) == 0
    assert body_of(admin.get(qpath))["n_tasks"] == 0
    assert worker.post(f"{qpath}/tasks/next").status_code == 204

    result = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    assert result["created"] == 6 and len(set(result["ids"])) == 6
    assert result["ids"] == sorted(result["ids"])
    assert pending_count(admin, qpath) == 6
    assert body_of(admin.get(qpath))["n_tasks"] == 6
    first = claim(worker, qpath)
    assert first["id"] == result["ids"][0]
    assert first["data"] == {"paragraph": "row 0", "category": "red", "photo": None}
    assert first["source"] == "tickets.csv"


def test_the_commit_is_in_the_audit_log_with_its_count_and_first_and_last_id(admin, qpath):
    session = open_session(admin, qpath, 5, source="audited.csv")
    body_of(stage(admin, qpath, session, 0, rows(5)))
    result = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    _, _, org, _, queue = qpath.split("/")
    events = body_of(admin.get(f"/orgs/{org}/audit", params={"limit": 1000}))["events"]
    (event,) = [e for e in events if e["subject"].get("import_id") == session["id"]]
    assert event["action"] == "import.commit"
    assert event["subject"] == {"queue_id": int(queue), "import_id": session["id"]}
    assert event["detail"] == {
        "created": 5,
        "source": "audited.csv",
        "first_id": result["ids"][0],
        "last_id": result["ids"][-1],
    }


def test_committing_again_answers_the_same_ids_and_the_same_key_finds_the_committed_session(admin, qpath):
    session = open_session(admin, qpath, 4)
    body_of(stage(admin, qpath, session, 0, rows(4)))
    first = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    again = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    assert again == first
    read_back = body_of(admin.get(f"{qpath}/imports/{session['id']}"))
    assert (read_back["status"], read_back["created"], read_back["ids"]) == ("committed", 4, first["ids"])
    reopened = body_of(
        admin.post(f"{qpath}/imports", json={"key": session["key"], "source": "tickets.csv", "total": 4})
    )
    assert (reopened["id"], reopened["status"], reopened["ids"]) == (session["id"], "committed", first["ids"])
    assert pending_count(admin, qpath) == 4
    late = stage(admin, qpath, session, 0, rows(1))
    assert late.status_code == 409 and "already committed" in late.json()["errors"][0]["message"]
    other = admin.post(f"{qpath}/imports", json={"key": session["key"], "source": "tickets.csv", "total": 5})
    assert other.status_code == 409


def test_the_staged_rows_are_removed_after_the_commit_and_the_tasks_stay(server, admin, qpath):
    session = open_session(admin, qpath, 5)
    body_of(stage(admin, qpath, session, 0, rows(5)))
    staged = f"SELECT count(*) FROM import_rows WHERE session_id = {session['id']}"
    assert query_value(server.db_url, staged) == 5
    created = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    assert created["created"] == 5 and pending_count(admin, qpath) == 5
    assert query_value(server.db_url, staged) == 0
    assert body_of(admin.post(f"{qpath}/imports/{session['id']}/commit")) == created


def test_a_re_sent_chunk_changes_nothing(admin, qpath):
    session = open_session(admin, qpath, 4)
    body_of(stage(admin, qpath, session, 0, rows(2)))
    again = body_of(stage(admin, qpath, session, 0, [{"data": {"paragraph": "changed"}}] * 2))
    assert again["staged"] == 2
    overlapping = body_of(stage(admin, qpath, session, 1, rows(3, 1)))  # rows 1-3: only 2 and 3 are new
    assert overlapping["staged"] == 4
    result = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))
    assert result["created"] == 4
    tasks = body_of(admin.get(f"{qpath}/tasks"))["tasks"]
    assert [t["data"]["paragraph"] for t in tasks] == ["row 0", "row 1", "row 2", "row 3"]


def test_a_commit_with_rows_missing_creates_nothing_and_says_where_to_go_on(admin, qpath):
    session = open_session(admin, qpath, 5)
    body_of(stage(admin, qpath, session, 0, rows(2)))
    body_of(stage(admin, qpath, session, 3, rows(2, 3)))  # row 2 missing
    status = body_of(admin.get(f"{qpath}/imports/{session['id']}"))
    assert (status["staged"], status["next_offset"]) == (4, 2)
    refused = admin.post(f"{qpath}/imports/{session['id']}/commit")
    assert refused.status_code == 409
    assert "4 of its 5 rows" in refused.json()["errors"][0]["message"]
    assert "from row 2" in refused.json()["errors"][0]["message"]
    assert pending_count(admin, qpath) == 0


def test_the_commit_is_atomic_for_a_concurrent_reader_and_concurrent_commits(clients, admin, qpath):
    total, chunk = 4000, 1000
    session = open_session(admin, qpath, total)
    for offset in range(0, total, chunk):
        body_of(stage(admin, qpath, session, offset, rows(chunk, offset)))
    seen: list[int] = []
    answers: list[dict] = []
    stop = threading.Event()

    def read() -> None:
        with httpx.Client(base_url=str(admin.base_url), headers=dict(admin.headers), timeout=30) as reader:
            while not stop.is_set():
                seen.append(pending_count(reader, qpath))

    def commit() -> None:
        with httpx.Client(base_url=str(admin.base_url), headers=dict(admin.headers), timeout=60) as committer:
            answers.append(body_of(committer.post(f"{qpath}/imports/{session['id']}/commit")))

    reader = threading.Thread(target=read)
    reader.start()
    committers = [threading.Thread(target=commit) for _ in range(3)]
    for thread in committers:
        thread.start()
    for thread in committers:
        thread.join()
    stop.set()
    reader.join()
    assert len(answers) == 3 and answers[0] == answers[1] == answers[2]
    assert answers[0]["created"] == total
    assert set(seen) <= {0, total}, sorted(set(seen))
    assert pending_count(admin, qpath) == total


def test_a_refused_row_is_named_and_nothing_of_its_chunk_is_staged(admin, qpath):
    session = open_session(admin, qpath, 10)
    items = rows(3, 5)
    items[1] = {"data": {"category": "purple"}}
    refused = stage(admin, qpath, session, 5, items)
    assert refused.status_code == 400
    [problem] = refused.json()["errors"]
    assert problem["field"] == "tasks[1].data.category"
    assert problem["message"].startswith("row 6: ")
    assert body_of(admin.get(f"{qpath}/imports/{session['id']}"))["staged"] == 0
    past_the_end = stage(admin, qpath, session, 9, rows(2))
    assert past_the_end.status_code == 400 and past_the_end.json()["errors"][0]["field"] == "tasks"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"key": "", "source": "a.csv", "total": 1}, "key"),
        ({"key": "a b", "source": "a.csv", "total": 1}, "key"),
        ({"key": "k", "source": "../a.csv", "total": 1}, "source"),
        ({"key": "k", "source": "a.csv", "total": 0}, "total"),
        ({"key": "k", "source": "a.csv", "total": True}, "total"),
    ],
)
def test_opening_refuses_bad_fields(admin, qpath, body, field):
    refused = admin.post(f"{qpath}/imports", json=body)
    assert refused.status_code == 400
    assert [e["field"] for e in refused.json()["errors"]] == [field]


def test_only_admins_import_and_other_organizations_see_nothing(clients, admin, qpath, other_org):
    session = open_session(admin, qpath, 1)
    for role in ("supervisor", "worker"):
        assert (
            clients[role]
            .post(f"{qpath}/imports", json={"key": "k", "source": "a.csv", "total": 1})
            .status_code
            == 403
        )
        assert clients[role].get(f"{qpath}/imports/{session['id']}").status_code == 403
    other = clients["other_admin"]
    other_path = f"/orgs/{other_org['org']}/queues/{other_org['queue']}"
    assert other.get(f"{other_path}/imports/{session['id']}").status_code == 404
    assert other.post(f"{other_path}/imports/{session['id']}/commit").status_code == 404
    assert admin.get(f"{qpath}/imports/999999").status_code == 404


# --- the command, with its server killed mid-way -------------------------------------------------------


class KillingProxy(TcpProxy):
    """Forwards to the server, until the `kill_at`-th chunk request: then `kill` runs before it
    arrives, and the connection is cut."""

    def __init__(self, upstream_port: int, kill_at: int, kill: Callable[[], None]) -> None:
        super().__init__(upstream_port)
        self.kill_at, self.kill = kill_at, kill
        self.chunks_seen = 0
        self._counting = threading.Lock()

    def _pipe(self, source: Any, target: Any) -> None:
        try:
            from_server = source.getpeername() == self.upstream
        except OSError:
            from_server = False
        if not from_server:
            source = _Watched(source, self)
        super()._pipe(source, target)


class _Watched:
    def __init__(self, sock: Any, proxy: KillingProxy) -> None:
        self._sock, self._proxy = sock, proxy

    def recv(self, size: int) -> bytes:
        data = self._sock.recv(size)
        if b"/chunks HTTP/1.1" in data:
            with self._proxy._counting:
                self._proxy.chunks_seen += 1
                if self._proxy.chunks_seen == self._proxy.kill_at:
                    self._proxy.kill()
                    return b""  # the request never arrives; the connection is cut
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _write_csv(path: Path, count: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["paragraph", "category"])
        for n in range(count):
            writer.writerow([f"ticket {n}", ("red", "blue", "")[n % 3]])


def _import(url: str, org: int, queue_id: int, path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    env |= {
        "QUEUEDESK_CONFIG": "/nonexistent/queuedesk-test/config.toml",
        "QUEUEDESK_URL": url,
        "QUEUEDESK_TOKEN": KEYS["admin"],
        "QUEUEDESK_ORG": str(org),
    }
    return subprocess.run(
        [*queuedesk_command(), "import", str(queue_id), str(path), "--chunk-rows", "40", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_import_survives_a_server_killed_mid_way_and_the_same_command_resumes(backend, tmp_path):
    """3 chunks of 40 rows: the server is SIGKILLed as the third arrives, so two are staged and
    nothing is created; restarted, the same command resumes the session and ends with exactly 120."""
    server = ServerProcess(tmp_path / "import.db", seed=ROLES_SEED, backend=backend).start()
    proxy = KillingProxy(server.port, kill_at=3, kill=lambda: server.stop(signal.SIGKILL))
    proxy.start()
    path = tmp_path / "tickets.csv"
    _write_csv(path, 120)
    try:
        with server.client("admin") as admin:
            org = body_of(admin.get("/me"))["organization_id"]
            queue_id = body_of(admin.get(f"/orgs/{org}/queues"))[0]["id"]
            before = body_of(admin.get(f"/orgs/{org}/queues/{queue_id}"))["n_tasks"]

        first = _import(f"http://127.0.0.1:{proxy.port}", org, queue_id, path)
        assert first.returncode == 6, (first.stdout, first.stderr)  # the server went away
        assert "nothing was imported: 80 of 120 rows wait staged" in first.stderr
        assert "run the same command again to resume" in first.stderr
        proxy.stop()

        server = ServerProcess(server.db_path, seed=ROLES_SEED, backend=backend, port=server.port).start()
        with server.client("admin") as admin:
            assert body_of(admin.get(f"/orgs/{org}/queues/{queue_id}"))["n_tasks"] == before

            second = _import(server.url, org, queue_id, path)
            assert second.returncode == 0, (second.stdout, second.stderr)
            assert "resuming import session" in second.stderr and "80 of 120 rows" in second.stderr
            answer = json.loads(second.stdout)
            assert (answer["created"], answer["resumed"], answer["already_imported"]) == (120, True, False)
            assert body_of(admin.get(f"/orgs/{org}/queues/{queue_id}"))["n_tasks"] == before + 120

            third = _import(server.url, org, queue_id, path)  # done already: the same answer, nothing new
            assert third.returncode == 0, (third.stdout, third.stderr)
            assert json.loads(third.stdout)["ids"] == answer["ids"]
            pending = body_of(admin.get(f"/orgs/{org}/queues/{queue_id}/tasks", params={"limit": 1000}))
            imported = [t for t in pending["tasks"] if t["source"] == "tickets.csv"]
            assert sorted(t["data"]["paragraph"] for t in imported) == sorted(
                f"ticket {n}" for n in range(120)
            )
            assert pending["count"] == before + 120
    finally:
        proxy.stop()
        server.stop()


# --- the schema -------------------------------------------------------------------------------------


def test_a_version_6_database_gets_import_sessions_and_expired_ones_go_at_start(backend, tmp_path):
    """Upgrade 6 → 7 on either database; a session past its time is deleted, rows and all, at start."""
    server = ServerProcess(tmp_path / "old.db", seed=ROLES_SEED, backend=backend).start()
    server.stop()
    execute_sql(server.db_url, "DROP TABLE import_rows")
    execute_sql(server.db_url, "DROP TABLE import_sessions")
    execute_sql(server.db_url, "UPDATE schema_version SET version = 6")
    server = ServerProcess(server.db_path, seed=ROLES_SEED, backend=backend, port=server.port).start()
    try:
        assert (
            query_value(server.db_url, "SELECT version FROM schema_version") == LATEST
        )  # 7 and every later step
        with server.client("admin") as admin:
            org = body_of(admin.get("/me"))["organization_id"]
            qpath = f"/orgs/{org}/queues/{body_of(admin.get(f'/orgs/{org}/queues'))[0]['id']}"
            session = open_session(admin, qpath, 3)
            body_of(stage(admin, qpath, session, 0, rows(2)))
        server.stop()
        execute_sql(server.db_url, f"UPDATE import_sessions SET expires_at = 0 WHERE id = {session['id']}")
        server = ServerProcess(server.db_path, seed=ROLES_SEED, backend=backend, port=server.port).start()
        with server.client("admin") as admin:
            assert admin.get(f"{qpath}/imports/{session['id']}").status_code == 404
        assert query_value(server.db_url, "SELECT count(*) FROM import_rows") == 0
        assert query_value(server.db_url, "SELECT count(*) FROM import_sessions") == 0
    finally:
        server.stop()


def test_progress_follows_chunks_in_any_order(admin, qpath):
    """The session keeps its staged count and first missing row as chunks land (schema 12): in any
    order, re-sent or not, they say what a count of the rows would."""
    session = open_session(admin, qpath, 10)

    def progress(offset: int, count: int) -> tuple[int, int]:
        staged = body_of(stage(admin, qpath, session, offset, rows(count, offset)))
        return staged["staged"], staged["next_offset"]

    assert progress(4, 2) == (2, 0)
    assert progress(0, 2) == (4, 2)
    assert progress(0, 2) == (4, 2)  # re-sent: nothing new
    assert progress(2, 2) == (6, 6)  # fills the gap up to the rows staged ahead
    assert progress(8, 2) == (8, 6)
    assert progress(5, 3) == (10, 10)  # overlaps a staged row
    read = body_of(admin.get(f"{qpath}/imports/{session['id']}"))
    assert (read["staged"], read["next_offset"]) == (10, 10)
    assert body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))["created"] == 10


def test_a_version_8_database_keeps_its_sessions_progress(backend, tmp_path):
    """Upgrade to 12 on either database: a staged session with a gap keeps its count and its first
    missing row, worked out once from its rows."""
    server = ServerProcess(tmp_path / "v8.db", seed=ROLES_SEED, backend=backend).start()
    try:
        with server.client("admin") as admin:
            org = body_of(admin.get("/me"))["organization_id"]
            qpath = f"/orgs/{org}/queues/{body_of(admin.get(f'/orgs/{org}/queues'))[0]['id']}"
            session = open_session(admin, qpath, 9)
            body_of(stage(admin, qpath, session, 0, rows(3)))
            body_of(stage(admin, qpath, session, 5, rows(2, 5)))
        server.stop()
        execute_sql(server.db_url, "ALTER TABLE import_sessions DROP COLUMN staged_rows")
        execute_sql(server.db_url, "ALTER TABLE import_sessions DROP COLUMN first_missing")
        execute_sql(server.db_url, "UPDATE schema_version SET version = 8")
        server = ServerProcess(server.db_path, seed=ROLES_SEED, backend=backend, port=server.port).start()
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST
        with server.client("admin") as admin:
            read = body_of(admin.get(f"{qpath}/imports/{session['id']}"))
            assert (read["staged"], read["next_offset"]) == (5, 3)
            staged = body_of(stage(admin, qpath, session, 3, rows(2, 3)))
            assert (staged["staged"], staged["next_offset"]) == (7, 7)
    finally:
        server.stop()


def test_an_expired_session_goes_after_the_answer_and_its_key_serves_a_new_one(server, admin, qpath):
    """Issue 43, finding 4: opening a session deleted every expired one with its staged rows in its
    own transaction (1,000,000 rows stopped the server for 1.39 s). Now the expired session with the
    key is only renamed out of the way; it and its rows go after the answer, a batch per transaction."""
    key = f"test-{next(_keys)}"
    first = body_of(admin.post(f"{qpath}/imports", json={"key": key, "source": "a.csv", "total": 3}))
    body_of(stage(admin, qpath, first, 0, rows(3)))
    execute_sql(server.db_url, f"UPDATE import_sessions SET expires_at = 0 WHERE id = {first['id']}")
    second = body_of(admin.post(f"{qpath}/imports", json={"key": key, "source": "b.csv", "total": 2}))
    assert second["id"] != first["id"] and (second["key"], second["source"], second["staged"]) == (
        key,
        "b.csv",
        0,
    )
    assert admin.get(f"{qpath}/imports/{first['id']}").status_code == 404
    left = f"SELECT count(*) FROM import_rows WHERE session_id = {first['id']}"
    sessions = f"SELECT count(*) FROM import_sessions WHERE id = {first['id']}"
    deadline = time.monotonic() + 20
    while (query_value(server.db_url, left), query_value(server.db_url, sessions)) != (0, 0):
        assert time.monotonic() < deadline, "the expired session was never removed"
        time.sleep(0.1)
    body_of(stage(admin, qpath, second, 0, rows(2)))
    assert body_of(admin.post(f"{qpath}/imports/{second['id']}/commit"))["created"] == 2
