"""B21 consensus over real HTTP on both databases: the settings, answers in place of completions,
the claim order, settling, disputes and the `decide` verdict, what each role sees, and B1's
`features`."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.server.routes.account import FEATURES
from queuedesk.server.store import rollups
from queuedesk.server.store.schema import LATEST
from tests.conftest import make_queue
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value, run_cli
from tests.support.contract import body_of

CHOICE = {"id": "category", "name": "Category", "type": "single_selection"}
BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {"read_only": True}},
    {
        **CHOICE,
        "single_selection": {
            "is_required": True,
            "options": [
                {"id": "red", "name": "Red"},
                {"id": "blue", "name": "Blue"},
                {"id": "green", "name": "Green"},
            ],
        },
    },
    {"id": "note", "name": "Note", "type": "text", "text": {}},
    {"id": "size", "name": "Size", "type": "number", "number": {}},
    {"id": "day", "name": "Day", "type": "date", "date": {}},
    {
        "id": "tags",
        "name": "Tags",
        "type": "multiple_selection",
        "multiple_selection": {"options": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
    },
]


@pytest.fixture
def worker2(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["worker2"]


@pytest.fixture
def supervisor(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["supervisor"]


def consensus_queue(admin: httpx.Client, org_id: int, **settings: Any) -> tuple[dict, str]:
    made = make_queue(admin, org_id, BLOCKS, label="Consensus", consensus={"answers": 2, **settings})
    return made, f"/orgs/{org_id}/queues/{made['id']}"


def email(client: httpx.Client) -> str:
    return str(body_of(client.get("/me"))["email"])


def create(admin: httpx.Client, qpath: str, n: int = 1) -> list[int]:
    return [
        body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": f"text {i}"}}))["id"]
        for i in range(n)
    ]


def answer(client: httpx.Client, qpath: str, expected: int | None = None, **data: Any) -> dict:
    claimed = body_of(client.post(f"{qpath}/tasks/next"))
    if expected is not None:
        assert claimed["id"] == expected
    return body_of(client.post(f"{qpath}/tasks/{claimed['id']}/complete", json={"data": data}))


# --- B1 features ----------------------------------------------------------------------------------


def test_me_names_the_part_b_sections_served_from_b19_on(clients) -> None:
    for role in ("admin", "supervisor", "worker"):
        assert body_of(clients[role].get("/me"))["features"] == ["B19", "B20", "B21", "B22"] == list(FEATURES)


# --- settings -------------------------------------------------------------------------------------


def test_consensus_defaults_and_where_it_is_returned(admin, worker, org_id) -> None:
    made, qpath = consensus_queue(admin, org_id)
    # max_answers defaults to answers, agreement to 0.5, blocks to every selection/binary block not read-only
    expected = {"answers": 2, "max_answers": 2, "agreement": 0.5, "blocks": ["category", "tags"]}
    assert made["consensus"] == expected
    assert body_of(worker.get(qpath))["consensus"] == expected
    changed = body_of(
        admin.patch(
            qpath,
            json={
                "consensus": {"answers": 3, "max_answers": 5, "agreement": 0.75, "blocks": ["size", "day"]}
            },
        )
    )
    assert changed["consensus"] == {
        "answers": 3,
        "max_answers": 5,
        "agreement": 0.75,
        "blocks": ["size", "day"],
    }
    assert body_of(admin.patch(qpath, json={"consensus": None}))["consensus"] is None
    assert make_queue(admin, org_id)["consensus"] is None


@pytest.mark.parametrize(
    "wrong",
    [
        {"answers": 1},
        {"answers": 11},
        {"answers": 2.0},
        {"answers": True},
        {"answers": 3, "max_answers": 2},
        {"answers": 2, "max_answers": 11},
        {"answers": 2, "agreement": 0.4},
        {"answers": 2, "agreement": 1.01},
        {"answers": 2, "agreement": "0.6"},
        {"answers": 2, "blocks": []},
        {"answers": 2, "blocks": ["note"]},
        {"answers": 2, "blocks": ["nope"]},
        {"answers": 2, "blocks": ["category", "category"]},
        {"answers": 2, "extra": 1},
        {"max_answers": 2},
        "2",
    ],
)
def test_consensus_settings_out_of_range_are_refused(admin, org_id, wrong) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    response = admin.patch(qpath, json={"consensus": wrong})
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["field"].startswith("consensus")


def test_a_queue_without_comparable_blocks_must_name_them(admin, org_id) -> None:
    text_only = [{"id": "note", "name": "Note", "type": "text", "text": {}}]
    response = admin.post(
        f"/orgs/{org_id}/queues", json={"name": "Texts only", "data": text_only, "consensus": {"answers": 2}}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "consensus.blocks"


def test_new_blocks_may_not_drop_a_compared_block(admin, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    response = admin.patch(qpath, json={"data": BLOCKS[:1] + BLOCKS[2:]})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "data"


def test_a_change_of_consensus_is_a_queue_update_in_the_audit_log(admin, org_id) -> None:
    made, qpath = consensus_queue(admin, org_id)
    body_of(admin.patch(qpath, json={"consensus": {"answers": 3}}))
    events = body_of(
        admin.get(f"/orgs/{org_id}/audit", params={"action": "queue.update", "queue_id": made["id"]})
    )["events"]
    detail = events[0]["detail"]
    assert detail["fields"] == ["consensus"]
    assert detail["consensus"]["from"]["answers"] == 2 and detail["consensus"]["to"]["answers"] == 3


# --- answers --------------------------------------------------------------------------------------


def test_an_answer_is_recorded_apart_and_the_task_goes_back_to_open(admin, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    (task_id,) = create(admin, qpath)
    answered = answer(worker, qpath, task_id, category="red", note="mine")
    assert answered["status"] == "open" and answered["completed_by"] is None
    assert answered["data"]["category"] == "red" and answered["data"]["note"] == "mine"
    # apart from the task's data: another worker, and the admin's pending list, see none of it
    assert body_of(worker2.get(f"{qpath}/tasks/{task_id}"))["data"]["category"] is None
    seen = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
    assert seen["data"]["category"] is None and seen["status"] == "open"
    assert seen["assignment"]["assigned_to"] is None
    # the worker sees their own answer, never another's, and no consensus object
    mine = body_of(worker.get(f"{qpath}/tasks/{task_id}"))
    assert mine["data"]["category"] == "red" and mine["consensus"] is None
    # a second answer by the same worker
    again = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
    assert again.status_code == 409 and again.json()["errors"][0]["code"] == "already_answered"


def test_a_worker_is_never_given_a_task_they_answered(admin, worker, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    create(admin, qpath, 2)
    answer(worker, qpath, category="red")
    answer(worker, qpath, category="red")
    nothing = worker.post(f"{qpath}/tasks/next")
    assert nothing.status_code == 204
    assert nothing.headers["X-Tasks-Answered"] == "2" and nothing.headers["X-Tasks-Held"] == "0"


def test_tasks_with_answers_are_claimed_before_tasks_without(admin, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    first, second = create(admin, qpath, 2)
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == first
    ahead = body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [first]}))
    assert ahead["id"] == second
    body_of(worker.post(f"{qpath}/tasks/{second}/complete", json={"data": {"category": "red"}}))
    body_of(worker.post(f"{qpath}/tasks/{first}/release"))
    # the second has an answer, the first none: the second comes first, though newer
    assert body_of(worker2.post(f"{qpath}/tasks/next"))["id"] == second


def test_one_holder_at_a_time(admin, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    (task_id,) = create(admin, qpath)
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == task_id
    held = worker2.post(f"{qpath}/tasks/next")
    assert held.status_code == 204 and held.headers["X-Tasks-Held"] == "1"


# --- settling -------------------------------------------------------------------------------------


def test_agreeing_answers_settle_the_task_in_the_same_request(
    admin, worker, worker2, org_id, receiver
) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
    (task_id,) = create(admin, qpath)
    answer(worker, qpath, task_id, category="red", note="first", tags=["a", "b"])
    settled = answer(worker2, qpath, task_id, category="red", note="second", tags=["b", "a"])
    assert settled["status"] == "completed"
    task = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
    # the agreed values; other blocks from the earliest answer holding every agreed value
    assert task["data"]["category"] == "red" and task["data"]["note"] == "first"
    assert task["data"]["paragraph"] == "text 0"  # read-only: the task's own
    assert task["completed_by"] == email(worker)
    state = task["consensus"]
    assert state["state"] == "settled" and state["decided_by"] is None
    assert [a["data"]["note"] for a in state["answers"]] == ["first", "second"]
    assert state["agreement"] == {"category": 1.0, "tags": 1.0}
    assert all(a["seconds"] is not None and a["seconds"] >= 0 for a in state["answers"])
    (event,) = receiver.wait_for(1)
    body = json.loads(event.body)
    assert body["status"] == "completed" and body["consensus"]["state"] == "settled"
    assert len(body["consensus"]["answers"]) == 2
    history = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert [t["id"] for t in history["tasks"]] == [task_id]


def test_numbers_by_value_and_dates_by_the_day_or_instant(admin, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id, blocks=["size", "day"])
    first, second = create(admin, qpath, 2)
    answer(worker, qpath, first, category="red", size=3, day="2026-01-02")
    assert answer(worker2, qpath, first, category="blue", size=3.0, day="2026-01-02")["status"] == "completed"
    answer(worker, qpath, second, category="red", size=3, day="2026-01-02T10:00:00Z")
    assert (
        answer(worker2, qpath, second, category="red", size=3, day="2026-01-02T11:00:00+01:00")["status"]
        == "completed"
    )


# --- disputes and the decide verdict ---------------------------------------------------------------


def disputed_task(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> tuple[str, int]:
    """A task of a queue (answers 2, max 3) that the worker, worker2 and the admin answered apart."""
    _made, qpath = consensus_queue(admin, org_id, max_answers=3)
    (task_id,) = create(admin, qpath)
    assert answer(worker, qpath, task_id, category="red")["status"] == "open"
    assert answer(worker2, qpath, task_id, category="blue")["status"] == "open"
    collecting = body_of(admin.get(f"{qpath}/tasks/{task_id}"))["consensus"]
    assert collecting["state"] == "collecting" and collecting["agreement"]["category"] == 0.5
    assert answer(admin, qpath, task_id, category="green")["status"] == "open"
    return qpath, task_id


def test_at_max_answers_without_settling_the_task_is_disputed(admin, worker, worker2, org_id) -> None:
    qpath, task_id = disputed_task(admin, worker, worker2, org_id)
    task = body_of(admin.get(f"{qpath}/tasks/{task_id}"))
    assert task["status"] == "open" and task["consensus"]["state"] == "disputed"
    assert len(task["consensus"]["answers"]) == 3
    # not claimable, out of A2, counted in n_tasks, listed by B2's filter
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
    assert body_of(admin.get(f"{qpath}/tasks/completed"))["count"] == 0
    assert body_of(admin.get(qpath))["n_tasks"] == 1
    disputed = body_of(admin.get(f"{qpath}/tasks", params={"consensus": "disputed"}))
    assert [t["id"] for t in disputed["tasks"]] == [task_id] and disputed["count"] == 1
    assert body_of(admin.get(f"{qpath}/tasks", params={"consensus": "collecting"}))["count"] == 0
    assert admin.get(f"{qpath}/tasks", params={"consensus": "nope"}).status_code == 400


def test_collecting_filter_lists_tasks_with_answers_waiting(admin, worker, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    first, _second = create(admin, qpath, 2)
    answer(worker, qpath, first, category="red")
    listed = body_of(admin.get(f"{qpath}/tasks", params={"consensus": "collecting"}))
    assert [t["id"] for t in listed["tasks"]] == [first]


def test_disputed_tasks_come_first_in_the_review_loop_and_are_decided(
    admin, supervisor, worker, worker2, org_id
) -> None:
    qpath, task_id = disputed_task(admin, worker, worker2, org_id)
    # sampled completed work waits too, drawn earlier: the disputed task still comes first
    body_of(admin.patch(qpath, json={"review_percent": 100}))
    (other,) = create(admin, qpath)
    answer(worker, qpath, other, category="red")
    assert answer(worker2, qpath, other, category="red")["status"] == "completed"
    claimed = body_of(supervisor.post(f"{qpath}/reviews/next"))
    assert claimed["id"] == task_id
    assert claimed["consensus"]["state"] == "disputed" and len(claimed["consensus"]["answers"]) == 3
    for verdict in ("accept", "redo"):
        refused = supervisor.post(f"{qpath}/tasks/{task_id}/review", json={"verdict": verdict})
        assert refused.status_code == 409 and refused.json()["errors"][0]["code"] == "conflict"
    corrected = supervisor.post(
        f"{qpath}/tasks/{task_id}/review", json={"verdict": "correct", "data": {"category": "red"}}
    )
    assert corrected.status_code == 409
    # decide on a task that is not disputed; decide by someone who answered
    not_disputed = supervisor.post(
        f"{qpath}/tasks/{other}/review", json={"verdict": "decide", "data": {"category": "red"}}
    )
    assert not_disputed.status_code == 409 and not_disputed.json()["errors"][0]["code"] == "conflict"
    answered = admin.post(
        f"{qpath}/tasks/{task_id}/review", json={"verdict": "decide", "data": {"category": "red"}}
    )
    assert answered.status_code == 409 and answered.json()["errors"][0]["code"] == "conflict"
    # validated as B7
    bad = supervisor.post(
        f"{qpath}/tasks/{task_id}/review", json={"verdict": "decide", "data": {"category": "purple"}}
    )
    assert bad.status_code == 400
    assert supervisor.post(f"{qpath}/tasks/{task_id}/review", json={"verdict": "decide"}).status_code == 400
    decided = body_of(
        supervisor.post(
            f"{qpath}/tasks/{task_id}/review", json={"verdict": "decide", "data": {"category": "blue"}}
        )
    )
    assert decided["status"] == "completed" and decided["completed_by"] == email(supervisor)
    assert decided["data"]["category"] == "blue"
    assert decided["review"]["state"] == "decided"
    assert decided["consensus"]["state"] == "decided" and decided["consensus"]["decided_by"] == email(
        supervisor
    )
    listed = body_of(admin.get(f"{qpath}/reviews", params={"verdict": "decide"}))
    assert [t["id"] for t in listed["tasks"]] == [task_id]
    again = supervisor.post(
        f"{qpath}/tasks/{task_id}/review", json={"verdict": "decide", "data": {"category": "blue"}}
    )
    assert again.status_code == 409


def test_after_consensus_is_set_to_null_the_next_answer_completes(admin, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id, max_answers=3)
    first, second = create(admin, qpath, 2)
    answer(worker, qpath, first, category="red")
    answer(worker2, qpath, first, category="blue")
    answer(admin, qpath, first, category="green")  # disputed
    answer(worker, qpath, second, category="red")
    body_of(admin.patch(qpath, json={"consensus": None}))
    done = answer(worker2, qpath, second, category="blue")
    assert done["status"] == "completed" and done["completed_by"] == email(worker2)
    assert done["data"]["category"] == "blue"
    # the disputed task stays disputed: not claimable, still waiting for a decision
    assert worker.post(f"{qpath}/tasks/next").status_code == 204
    assert body_of(admin.get(f"{qpath}/tasks/{first}"))["consensus"]["state"] == "disputed"


def test_roles_see_the_consensus_object_workers_see_null(admin, supervisor, worker, worker2, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    (task_id,) = create(admin, qpath)
    answer(worker, qpath, task_id, category="red")
    for client in (admin, supervisor):
        state = body_of(client.get(f"{qpath}/tasks/{task_id}"))["consensus"]
        (given,) = state["answers"]
        assert list(given) == ["worker", "name", "data", "answered_at", "seconds"]
        assert given["worker"] == email(worker) and given["data"]["category"] == "red"
        assert state["state"] == "collecting" and state["decided_by"] is None
    for client in (worker, worker2):
        assert body_of(client.get(f"{qpath}/tasks/{task_id}"))["consensus"] is None
        listed = body_of(client.get(f"{qpath}/tasks"))["tasks"]
        assert all(t["consensus"] is None for t in listed)
    claimed = body_of(worker2.post(f"{qpath}/tasks/next"))
    assert claimed["id"] == task_id and claimed["consensus"] is None and claimed["data"]["category"] is None


def test_a_flush_takes_the_answers_with_the_tasks(admin, worker, org_id) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    create(admin, qpath, 2)
    answer(worker, qpath, category="red")
    assert admin.put(f"{qpath}/flush").status_code == 200
    create(admin, qpath)
    answer(worker, qpath, category="red")
    nothing = worker.post(f"{qpath}/tasks/next")
    assert nothing.status_code == 204 and nothing.headers["X-Tasks-Answered"] == "1"


# --- stats ----------------------------------------------------------------------------------------


def test_stats_count_answers_agreement_and_disputes(admin, supervisor, worker, worker2, org_id) -> None:
    qpath, disputed_id = disputed_task(admin, worker, worker2, org_id)
    (settled_id,) = create(admin, qpath)
    answer(worker, qpath, settled_id, category="red")
    answer(worker2, qpath, settled_id, category="blue")
    answer(admin, qpath, settled_id, category="blue")  # settles on blue: worker2 and admin agreed
    body_of(
        supervisor.post(
            f"{qpath}/tasks/{disputed_id}/review", json={"verdict": "decide", "data": {"category": "red"}}
        )
    )
    stats = body_of(supervisor.get(f"{qpath}/stats"))
    assert stats["disputed"] == 0
    by_worker = {w["email"]: w for w in stats["by_worker"]}
    # completed counts answers; a decided task is no one's completion (not the supervisor's)
    assert email(supervisor) not in by_worker
    mine, theirs, admins = by_worker[email(worker)], by_worker[email(worker2)], by_worker[email(admin)]
    assert (mine["completed"], mine["answers"], mine["agreed"]) == (2, 2, 1)  # red held on the decided one
    assert (theirs["completed"], theirs["answers"], theirs["agreed"]) == (2, 2, 1)
    assert (admins["completed"], admins["answers"], admins["agreed"]) == (2, 2, 1)
    assert all(w["median_seconds"] is not None for w in (mine, theirs, admins))
    assert sum(stats["completed"]) == 2  # the buckets count tasks completed


def test_stats_count_the_disputed_tasks_now(admin, worker, worker2, org_id) -> None:
    qpath, _task_id = disputed_task(admin, worker, worker2, org_id)
    stats = body_of(admin.get(f"{qpath}/stats"))
    assert stats["disputed"] == 1 and stats["pending"] == 1


# --- the schema -------------------------------------------------------------------------------------


def test_the_upgrade_from_version_14_adds_consensus(tmp_path: Path, backend: str) -> None:
    db = tmp_path / "v14.db"
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    server.stop()
    on = " ON task_answers" if backend == "postgresql" else ""
    for trigger in rollups.ANSWER_TRIGGER_NAMES:
        execute_sql(server.db_url, f"DROP TRIGGER {trigger}{on}")
    on = " ON tasks" if backend == "postgresql" else ""
    for trigger in rollups.TASK_TRIGGER_NAMES:  # version 14's: every completion counts for its worker
        execute_sql(server.db_url, f"DROP TRIGGER {trigger}{on}")
    for statement in rollups.trigger_statements(backend, apart=False):
        execute_sql(server.db_url, statement)
    for table in ("task_answers", "consensus_tasks", "answer_counts", "answer_hours"):
        execute_sql(server.db_url, f"DROP TABLE {table}")
    # The access version's trigger on queues as version 14 had it, without the new columns.
    columns = "organization_id, name, description, blocks, webhook_target"
    if backend == "postgresql":
        execute_sql(server.db_url, "DROP TRIGGER qd_access_queues ON queues")
        execute_sql(
            server.db_url,
            f"CREATE TRIGGER qd_access_queues AFTER UPDATE OF {columns} OR DELETE ON queues "
            "FOR EACH STATEMENT EXECUTE FUNCTION qd_access_changed()",
        )
    else:
        execute_sql(server.db_url, "DROP TRIGGER qd_access_queues_update")
        execute_sql(
            server.db_url,
            f"CREATE TRIGGER qd_access_queues_update AFTER UPDATE OF {columns} ON queues "
            "BEGIN UPDATE access_version SET version = version + 1; END",
        )
    for column in ("consensus", "consensus_used"):
        execute_sql(server.db_url, f"ALTER TABLE queues DROP COLUMN {column}")
    execute_sql(server.db_url, "UPDATE schema_version SET version = 14")
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    try:
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST
        with (
            server.client("admin") as admin,
            server.client("worker") as worker,
            server.client("worker2") as other,
        ):
            _made, qpath = consensus_queue(admin, 1)
            (task_id,) = create(admin, qpath)
            answer(worker, qpath, task_id, category="red")
            assert answer(other, qpath, task_id, category="red")["status"] == "completed"
            stats = body_of(admin.get(f"{qpath}/stats"))
            assert sorted(w["agreed"] for w in stats["by_worker"]) == [1, 1]  # the answers' triggers count
    finally:
        server.stop()


def test_a_backup_holds_the_answers_and_a_restore_brings_them_back(
    server: ServerProcess, admin, worker, org_id, backend: str, tmp_path: Path
) -> None:
    sqlite_only(backend, "backup and restore copy SQLite files; PostgreSQL uses pg_dump")
    made, qpath = consensus_queue(admin, org_id)
    (task_id,) = create(admin, qpath)
    answer(worker, qpath, task_id, category="green")
    backup = tmp_path / "backup.db"
    assert run_cli(["backup", str(backup), "--db", server.db_url]).returncode == 0
    restored = tmp_path / "restored.db"
    done = run_cli(["restore", str(backup), "--db", f"sqlite:///{restored}"])
    assert done.returncode == 0, done.stderr
    for copy in (backup, restored):
        with closing(sqlite3.connect(copy)) as conn:
            found = conn.execute("SELECT data FROM task_answers WHERE task_id = ?", (task_id,)).fetchone()
            triggers = {
                row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            }
        assert json.loads(found[0])["category"] == "green"
        assert set(rollups.ANSWER_TRIGGER_NAMES) <= triggers
    assert made["consensus"] is not None


def test_a_prune_takes_the_answers_with_the_completed_tasks(
    server: ServerProcess, admin, worker, worker2, org_id
) -> None:
    _made, qpath = consensus_queue(admin, org_id)
    (task_id,) = create(admin, qpath)
    answer(worker, qpath, task_id, category="red")
    assert answer(worker2, qpath, task_id, category="red")["status"] == "completed"
    forty_days = 40 * 86_400 * 1_000_000
    execute_sql(
        server.db_url, f"UPDATE tasks SET completed_at = completed_at - {forty_days} WHERE id = {task_id}"
    )
    done = run_cli(["prune", "--db", server.db_url, "--completed-older-than", "30d"], timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert query_value(server.db_url, f"SELECT count(*) FROM tasks WHERE id = {task_id}") == 0
    assert query_value(server.db_url, f"SELECT count(*) FROM task_answers WHERE task_id = {task_id}") == 0
    assert query_value(server.db_url, f"SELECT count(*) FROM consensus_tasks WHERE task_id = {task_id}") == 0


def test_the_claim_order_seeks_and_never_scans(backend: str, tmp_path: Path) -> None:
    """SQLite's plan of each claim phase: index searches only (the answer sets' walk, the never
    claimed, the given back), with 2,000 tasks answered by one worker in the queue."""
    sqlite_only(backend, "SQLite's query plan")
    from sqlalchemy import create_engine, text

    from queuedesk.server.store import claim_order, schema

    engine = create_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    with engine.begin() as conn:
        schema.upgrade(conn)
        conn.execute(text("INSERT INTO organizations (id, name, created_at) VALUES (1, 'o', 0)"))
        conn.execute(
            text(
                "INSERT INTO queues (id, organization_id, name, description, blocks, created_at) VALUES (1, 1, 'q', '', '[]', 0)"
            )
        )
        conn.execute(
            text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
                "INSERT INTO tasks (id, queue_id, status, data, source, created_at) SELECT i, 1, 'open', '{}', 'api', 0 FROM n"
            )
        )
        conn.execute(
            text(
                "INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers) "
                "SELECT id, 1, 'collecting', ',7,', 1 FROM tasks"
            )
        )
        conn.execute(text("ANALYZE"))
        statements = [claim_order.ANSWERED_FIRST["sqlite"], claim_order.NEVER_CLAIMED, claim_order.GIVEN_BACK]
        for statement in statements:
            values = {"queue_id": 1, "now": 0, "user_id": 7, "me": ",7,"}
            plan = [row[3] for row in conn.execute(text(f"EXPLAIN QUERY PLAN {statement.text}"), values)]
            # The recursive walk's own rows (g, f, a constant row) are not tables.
            tables = [
                step
                for step in plan
                if step.startswith("SCAN") and step not in ("SCAN g", "SCAN f", "SCAN CONSTANT ROW")
            ]
            assert tables == [], plan
            assert any(step.startswith("SEARCH") for step in plan), plan
    engine.dispose()
