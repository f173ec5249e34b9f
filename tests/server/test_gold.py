"""B22 gold tasks over real HTTP on both databases: who creates them and with which values, the
deterministic share of claims, the answer that looks like a completion, what stays apart (n_tasks,
A2, B2, events, flush), the PATCH of expected values and retiring, `/gold/answers`, B15 and B1."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.server.rules.gold import gold_due
from queuedesk.server.store.schema import LATEST
from tests.conftest import make_queue
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value, run_cli
from tests.support.contract import body_of

BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {"read_only": True}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        },
    },
    {"id": "size", "name": "Size", "type": "number", "number": {}},
    {"id": "note", "name": "Note", "type": "text", "text": {}},
]


@pytest.fixture
def worker2(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["worker2"]


@pytest.fixture
def supervisor(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["supervisor"]


def gold_queue(admin: httpx.Client, org_id: int, percent: int = 0) -> tuple[dict, str]:
    made = make_queue(admin, org_id, BLOCKS, label="Gold", gold_percent=percent)
    return made, f"/orgs/{org_id}/queues/{made['id']}"


def make_gold(admin: httpx.Client, qpath: str, text: str = "g", **expected: Any) -> int:
    body = {"data": {"paragraph": text}, "gold": expected or {"category": "red"}}
    return int(body_of(admin.post(f"{qpath}/tasks/create", json=body))["id"])


def make_task(admin: httpx.Client, qpath: str, text: str = "t") -> int:
    return int(body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": text}}))["id"])


def user_id(admin: httpx.Client, org_id: int, client: httpx.Client) -> int:
    email = body_of(client.get("/me"))["email"]
    return next(u["id"] for u in body_of(admin.get(f"/orgs/{org_id}/users")) if u["email"] == email)


def test_features_and_gold_percent(admin: httpx.Client, org_id: int) -> None:
    assert "B22" in body_of(admin.get("/me"))["features"]
    made, qpath = gold_queue(admin, org_id, 20)
    assert made["gold_percent"] == 20
    assert body_of(admin.get(qpath))["gold_percent"] == 20
    listed = next(q for q in body_of(admin.get(f"/orgs/{org_id}/queues")) if q["id"] == made["id"])
    assert listed["gold_percent"] == 20
    assert body_of(admin.patch(qpath, json={"gold_percent": 35}))["gold_percent"] == 35
    for wrong in (51, -1, True, "10"):
        assert admin.patch(qpath, json={"gold_percent": wrong}).status_code == 400
    events = body_of(
        admin.get(f"/orgs/{org_id}/audit", params={"queue_id": made["id"], "action": "queue.update"})
    )
    detail = events["events"][0]["detail"]
    assert "gold_percent" in detail["fields"] and detail["gold_percent"] == {"from": 20, "to": 35}
    assert gold_queue(admin, org_id)[0]["gold_percent"] == 0


def test_who_creates_gold_and_with_what(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    _made, qpath = gold_queue(admin, org_id)
    body = {"data": {"paragraph": "x"}, "gold": {"category": "red"}}
    assert supervisor.post(f"{qpath}/tasks/create", json=body).status_code == 403
    assert worker.post(f"{qpath}/tasks/create", json=body).status_code == 403
    created = body_of(admin.post(f"{qpath}/tasks/create", json=body))
    assert "gold" not in created and created["source"] == "api" and created["status"] in ("new", "open")
    for gold in ({"note": "free text"}, {"paragraph": "x"}, {"category": "purple"}, {"nope": 1}, {}, []):
        answer = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "x"}, "gold": gold})
        assert answer.status_code == 400, (gold, answer.text)
    plain = body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "y"}, "gold": None}))
    assert body_of(admin.get(f"{qpath}/tasks/{plain['id']}")).get("gold") is None
    imported = body_of(
        admin.post(
            f"{qpath}/tasks/import",
            json={
                "source": "manual",
                "tasks": [{"data": {"paragraph": "a"}}, {"data": {"paragraph": "b"}, "gold": {"size": 3}}],
            },
        )
    )
    assert imported["created"] == 2
    bad = admin.post(
        f"{qpath}/tasks/import",
        json={"source": "manual", "tasks": [{"data": {"paragraph": "c"}, "gold": {"note": "x"}}]},
    )
    assert bad.status_code == 400 and "tasks[0].gold" in bad.text
    gold_ids = [t["id"] for t in body_of(admin.get(f"{qpath}/tasks", params={"gold": "true"}))["tasks"]]
    assert gold_ids == [created["id"], imported["ids"][1]]


def test_gold_is_not_work_in_lists_counts_or_flush(
    admin: httpx.Client, supervisor: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    made, qpath = gold_queue(admin, org_id)
    gold_id = make_gold(admin, qpath)
    task_id = make_task(admin, qpath)
    assert body_of(admin.get(qpath))["n_tasks"] == 1
    assert [t["id"] for t in body_of(admin.get(f"{qpath}/tasks"))["tasks"]] == [task_id]
    listed = body_of(supervisor.get(f"{qpath}/tasks", params={"gold": "true"}))
    assert listed["count"] == 1
    assert listed["tasks"][0]["gold"] == {"category": "red"} and listed["tasks"][0]["retired"] is False
    assert worker.get(f"{qpath}/tasks", params={"gold": "true"}).status_code == 403
    assert "gold" not in body_of(worker.get(f"{qpath}/tasks/{gold_id}"))
    assert body_of(admin.get(f"{qpath}/tasks/{gold_id}"))["gold"] == {"category": "red"}
    assert admin.put(f"{qpath}/flush").status_code == 200
    assert body_of(admin.get(qpath))["n_tasks"] == 0
    assert body_of(admin.get(f"{qpath}/tasks", params={"gold": "true"}))["count"] == 1
    assert made["id"]


def test_answering_gold_looks_like_a_completion(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    _made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath, category="red", size=3)
    claimed = body_of(worker.post(f"{qpath}/tasks/next"))
    assert claimed["id"] == gold_id
    assert claimed["status"] == "in_progress" and "gold" not in claimed and claimed["source"] == "api"
    assert claimed["assignment"]["assigned_to"] == body_of(worker.get("/me"))["email"]
    # One holder at a time.
    assert worker2.post(f"{qpath}/tasks/next").status_code == 204
    done = body_of(
        worker.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "blue", "size": 3.0}})
    )
    me = body_of(worker.get("/me"))["email"]
    assert done["status"] == "completed" and done["completed_by"] == me and done["completed_at"]
    assert set(done) == {
        "id",
        "status",
        "created_at",
        "completed_at",
        "completed_by",
        "queue",
        "queue_id",
        "data",
        "source",
    }
    assert done["data"]["category"] == "blue"
    again = worker.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "red"}})
    assert again.status_code == 409 and again.json()["errors"][0]["code"] == "already_completed"
    mine = body_of(worker.get(f"{qpath}/tasks/{gold_id}"))
    assert mine["status"] == "completed" and mine["completed_by"] == me
    # Never again to the same worker; open for the others.
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
    second = body_of(worker2.post(f"{qpath}/tasks/next"))
    assert second["id"] == gold_id and second["data"]["category"] is None
    body_of(worker2.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "red", "size": 3}}))
    # Not in A2, no event, still not counted.
    assert body_of(admin.get(f"{qpath}/tasks/completed"))["count"] == 0
    assert body_of(admin.get(f"{qpath}/webhook/deliveries"))["count"] == 0
    assert body_of(admin.get(qpath))["n_tasks"] == 0
    answers = body_of(admin.get(f"{qpath}/gold/answers"))
    assert answers["count"] == 2
    newest, oldest = answers["answers"]
    assert newest["correct"] is True and newest["wrong"] == []
    assert oldest["worker"] == me and oldest["correct"] is False and oldest["wrong"] == ["category"]
    assert oldest["expected"] == {"category": "red", "size": 3} and oldest["data"]["category"] == "blue"
    assert set(newest) == {"task_id", "worker", "answered_at", "data", "expected", "correct", "wrong"}
    assert worker.get(f"{qpath}/gold/answers").status_code == 403
    own = body_of(worker.get(f"{qpath}/gold/answers", params={"completed_by": "me"}))
    assert [a["worker"] for a in own["answers"]] == [me]
    assert body_of(admin.get(f"{qpath}/gold/answers", params={"correct": "true"}))["count"] == 1
    assert admin.get(f"{qpath}/gold/answers", params={"correct": "maybe"}).status_code == 400
    assert body_of(admin.get(f"{qpath}/tasks/{gold_id}"))["status"] == "open"


def test_the_share_follows_the_formula(admin: httpx.Client, worker: httpx.Client, org_id: int) -> None:
    made, qpath = gold_queue(admin, org_id, 50)
    gold_ids = [make_gold(admin, qpath, f"g{i}") for i in range(3)]
    task_ids = [make_task(admin, qpath, f"t{i}") for i in range(5)]
    uid = user_id(admin, org_id, worker)
    golds_left, tasks_left = list(gold_ids), list(task_ids)
    for k in range(len(gold_ids) + len(task_ids)):
        claimed = body_of(worker.post(f"{qpath}/tasks/next"))
        due = gold_due(uid, made["id"], k, 50)
        expected = (golds_left if (due and golds_left) or not tasks_left else tasks_left).pop(0)
        assert claimed["id"] == expected, (k, due)
        # Claiming again returns the same task, and does not count as a new claim.
        assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == expected
        body_of(worker.post(f"{qpath}/tasks/{expected}/complete", json={"data": {"category": "red"}}))
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
    assert gold_due(uid, made["id"], 0, 0) is False


def test_release_heartbeat_and_retire(admin: httpx.Client, worker: httpx.Client, org_id: int) -> None:
    made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath)
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == gold_id
    assert body_of(worker.post(f"{qpath}/tasks/{gold_id}/heartbeat"))["assigned_to"]
    released = body_of(worker.post(f"{qpath}/tasks/{gold_id}/release"))
    assert released["status"] == "open" and released["assignment"]["assigned_to"] is None
    changed = body_of(admin.patch(f"{qpath}/tasks/{gold_id}", json={"gold": {"category": "blue"}}))
    assert changed["gold"] == {"category": "blue"}
    retired = body_of(admin.patch(f"{qpath}/tasks/{gold_id}", json={"retired": True}))
    assert retired["retired"] is True
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
    assert admin.patch(f"{qpath}/tasks/{gold_id}", json={"gold": {"note": "x"}}).status_code == 400
    assert admin.patch(f"{qpath}/tasks/{gold_id}", json={"retired": False}).status_code == 400
    assert admin.patch(f"{qpath}/tasks/{gold_id}", json={"colour": 1}).status_code == 400
    assert worker.patch(f"{qpath}/tasks/{gold_id}", json={"retired": True}).status_code == 403
    events = body_of(
        admin.get(f"/orgs/{org_id}/audit", params={"queue_id": made["id"], "action": "task.update"})
    )
    assert [e["detail"]["fields"] for e in events["events"]] == [["retired"], ["gold"]]
    # A completed task: 409.
    task_id = make_task(admin, qpath)
    body_of(worker.post(f"{qpath}/tasks/next"))
    body_of(worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}))
    late = admin.patch(f"{qpath}/tasks/{task_id}", json={"retired": True})
    assert late.status_code == 409 and late.json()["errors"][0]["code"] == "already_completed"


def test_new_expected_values_keep_earlier_scores(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    _made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath, category="red")
    body_of(worker.post(f"{qpath}/tasks/next"))
    body_of(worker.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "blue"}}))
    body_of(admin.patch(f"{qpath}/tasks/{gold_id}", json={"gold": {"category": "blue"}}))
    body_of(worker2.post(f"{qpath}/tasks/next"))
    body_of(worker2.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "blue"}}))
    newest, oldest = body_of(admin.get(f"{qpath}/gold/answers"))["answers"]
    assert (newest["correct"], newest["expected"]) == (True, {"category": "blue"})
    assert (oldest["correct"], oldest["expected"]) == (False, {"category": "red"})
    stats = body_of(admin.get(f"{qpath}/stats"))
    by_worker = {w["email"]: w for w in stats["by_worker"]}
    assert (
        by_worker[newest["worker"]]["gold_answered"] == 1 and by_worker[newest["worker"]]["gold_correct"] == 1
    )
    assert by_worker[oldest["worker"]]["gold_correct"] == 0


def test_the_upgrade_from_version_15_adds_gold(tmp_path: Path, backend: str) -> None:
    db = tmp_path / "v15.db"
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    server.stop()
    for table in ("gold_tasks", "gold_answers", "gold_claims", "gold_minutes"):
        execute_sql(server.db_url, f"DROP TABLE {table}")
    execute_sql(server.db_url, "ALTER TABLE queues DROP COLUMN gold_percent")
    execute_sql(server.db_url, "UPDATE schema_version SET version = 15")
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    try:
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST
        with server.client("admin") as admin, server.client("worker") as worker:
            _made, qpath = gold_queue(admin, 1, 50)
            gold_id = make_gold(admin, qpath)
            assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == gold_id
            body_of(worker.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "red"}}))
            assert body_of(admin.get(f"{qpath}/gold/answers"))["answers"][0]["correct"] is True
    finally:
        server.stop()


def test_a_backup_holds_the_gold_tables(
    server: ServerProcess,
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
    backend: str,
    tmp_path: Path,
) -> None:
    sqlite_only(backend, "backup and restore copy SQLite files; PostgreSQL uses pg_dump")
    _made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath, category="blue")
    body_of(worker.post(f"{qpath}/tasks/next"))
    body_of(worker.post(f"{qpath}/tasks/{gold_id}/complete", json={"data": {"category": "red"}}))
    backup = tmp_path / "backup.db"
    assert run_cli(["backup", str(backup), "--db", server.db_url]).returncode == 0
    restored = tmp_path / "restored.db"
    done = run_cli(["restore", str(backup), "--db", f"sqlite:///{restored}"])
    assert done.returncode == 0, done.stderr
    for copy in (backup, restored):
        with closing(sqlite3.connect(copy)) as conn:
            expected = conn.execute(
                "SELECT expected FROM gold_tasks WHERE task_id = ?", (gold_id,)
            ).fetchone()
            scored = conn.execute(
                "SELECT correct, wrong FROM gold_answers WHERE task_id = ?", (gold_id,)
            ).fetchone()
        assert json.loads(expected[0]) == {"category": "blue"}
        assert (bool(scored[0]), json.loads(scored[1])) == (False, ["category"])


def test_an_import_session_stages_and_commits_gold_tasks(admin: httpx.Client, org_id: int) -> None:
    _made, qpath = gold_queue(admin, org_id)
    session = body_of(admin.post(f"{qpath}/imports", json={"key": "gold-1", "source": "g.csv", "total": 3}))
    chunks = f"{qpath}/imports/{session['id']}/chunks"
    wrong = admin.post(
        chunks, json={"offset": 0, "tasks": [{"data": {"paragraph": "a"}, "gold": {"note": "x"}}]}
    )
    assert wrong.status_code == 400 and "tasks[0].gold" in wrong.text
    rows = [
        {"data": {"paragraph": "a"}},
        {"data": {"paragraph": "b"}, "gold": {"category": "blue"}},
        {"data": {"paragraph": "c"}},
    ]
    body_of(admin.post(chunks, json={"offset": 0, "tasks": rows}))
    ids = body_of(admin.post(f"{qpath}/imports/{session['id']}/commit"))["ids"]
    assert len(ids) == 3
    assert body_of(admin.get(qpath))["n_tasks"] == 2
    listed = body_of(admin.get(f"{qpath}/tasks", params={"gold": "true"}))["tasks"]
    assert [(t["id"], t["gold"], t["source"]) for t in listed] == [(ids[1], {"category": "blue"}, "g.csv")]
    assert [t["id"] for t in body_of(admin.get(f"{qpath}/tasks"))["tasks"]] == [ids[0], ids[2]]


def test_no_share_serves_no_gold(admin: httpx.Client, worker: httpx.Client, org_id: int) -> None:
    _made, qpath = gold_queue(admin, org_id, 0)
    make_gold(admin, qpath)
    task_id = make_task(admin, qpath)
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == task_id
    body_of(worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}))
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
