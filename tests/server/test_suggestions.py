"""B23 suggestions over real HTTP on both databases: what a suggestion may be (and the envelope
when it may not), that the server never applies one, who sees them (not a worker in a consensus
queue), the outcome recorded by the completing transaction (on the settled or decided values in a
consensus queue; a review does not change it), the completion event's extra keys, B15's `by_agent`."""

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.server.routes.account import FEATURES
from queuedesk.server.store.schema import LATEST
from tests.conftest import make_queue
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value
from tests.support.contract import body_of

BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {"read_only": True}},
    {"id": "picture", "name": "Picture", "type": "image", "image": {}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        },
    },
    {
        "id": "tags",
        "name": "Tags",
        "type": "multiple_selection",
        "multiple_selection": {"options": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
    },
    {"id": "size", "name": "Size", "type": "number", "number": {}},
    {"id": "note", "name": "Note", "type": "text", "text": {}},
]


def suggested_queue(admin: httpx.Client, org_id: int, **extra: Any) -> str:
    made = make_queue(admin, org_id, BLOCKS, label="Suggested", **extra)
    return f"/orgs/{org_id}/queues/{made['id']}"


def offer(value: Any, agent: str = "model-a", score: float | None = 0.9) -> dict[str, Any]:
    return {"value": value, "agent": agent, "score": score}


SUGGESTIONS = {
    "category": offer("red"),
    "tags": offer(["b", "a"], "model-b", 0.4),
    "size": offer(3, "model-a", None),
    "note": offer("first line\nsecond line", "rule-1", 1),
}


def create(admin: httpx.Client, qpath: str, suggestions: Any = SUGGESTIONS, text: str = "t") -> dict:
    body = {"data": {"paragraph": text}, "suggestions": suggestions}
    return body_of(admin.post(f"{qpath}/tasks/create", json=body))


def claim_and_complete(client: httpx.Client, qpath: str, expected: int, **data: Any) -> dict:
    claimed = body_of(client.post(f"{qpath}/tasks/next"))
    assert claimed["id"] == expected
    return body_of(client.post(f"{qpath}/tasks/{expected}/complete", json={"data": data}))


def test_features_name_b23(clients) -> None:
    assert "B23" in body_of(clients["worker"].get("/me"))["features"]
    assert "B23" in FEATURES


@pytest.mark.parametrize(
    ("suggestions", "field", "code"),
    [
        ({"paragraph": offer("x")}, "suggestions.paragraph", "invalid_value"),  # read-only
        ({"picture": offer("https://example.test/a.png")}, "suggestions.picture", "invalid_value"),
        ({"colour": offer("red")}, "suggestions.colour", "unknown_field"),
        ({"category": offer("purple")}, "suggestions.category.value", "invalid_value"),
        ({"category": offer(None)}, "suggestions.category.value", "invalid_value"),
        ({"category": {"value": "red"}}, "suggestions.category.agent", "invalid_value"),
        ({"category": offer("red", "m" * 101)}, "suggestions.category.agent", "invalid_value"),
        ({"category": offer("red", "bad\x1b[2J")}, "suggestions.category.agent", "invalid_value"),
        ({"category": offer("red", score=1.5)}, "suggestions.category.score", "invalid_value"),
        ({"category": offer("red", score=True)}, "suggestions.category.score", "invalid_value"),
        ({"category": {**offer("red"), "why": "x"}}, "suggestions.category.why", "unknown_field"),
        ({"category": "red"}, "suggestions.category", "invalid_value"),
        (["red"], "suggestions", "invalid_value"),
    ],
)
def test_wrong_suggestions_are_refused_with_the_envelope(admin, org_id, suggestions, field, code) -> None:
    qpath = suggested_queue(admin, org_id)
    response = admin.post(
        f"{qpath}/tasks/create", json={"data": {"paragraph": "t"}, "suggestions": suggestions}
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["status_code"] == 400
    assert {"code": code, "field": field} in [
        {"code": e["code"], "field": e["field"]} for e in body["errors"]
    ]
    assert body_of(admin.get(f"{qpath}/tasks"))["count"] == 0  # nothing created


def test_imports_take_suggestions_and_name_the_failing_task(admin, org_id) -> None:
    qpath = suggested_queue(admin, org_id)
    bad = admin.post(
        f"{qpath}/tasks/import",
        json={
            "source": "manual",
            "tasks": [
                {"data": {"paragraph": "a"}, "suggestions": {"category": offer("red")}},
                {"data": {"paragraph": "b"}, "suggestions": {"category": offer("red", score=-0.1)}},
            ],
        },
    )
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["field"] == "tasks[1].suggestions.category.score"
    gold_too = admin.post(
        f"{qpath}/tasks/import",
        json={
            "source": "manual",
            "tasks": [
                {
                    "data": {"paragraph": "g"},
                    "gold": {"category": "red"},
                    "suggestions": {"category": offer("red")},
                }
            ],
        },
    )
    assert gold_too.status_code == 400 and gold_too.json()["errors"][0]["field"] == "tasks[0].suggestions"
    made = body_of(
        admin.post(
            f"{qpath}/tasks/import",
            json={
                "source": "tickets.csv",
                "tasks": [
                    {"data": {"paragraph": "a"}, "suggestions": {"category": offer("blue", score=0.2)}},
                    {"data": {"paragraph": "b"}},
                    {"data": {"paragraph": "c"}, "suggestions": None},
                ],
            },
        )
    )
    first, second, third = made["ids"]
    assert body_of(admin.get(f"{qpath}/tasks/{first}"))["suggestions"] == {
        "category": offer("blue", score=0.2)
    }
    assert body_of(admin.get(f"{qpath}/tasks/{second}"))["suggestions"] is None
    assert body_of(admin.get(f"{qpath}/tasks/{third}"))["suggestions"] is None


def test_suggestions_are_shown_never_applied_and_the_outcome_is_recorded(
    admin, worker, org_id, receiver
) -> None:
    qpath = suggested_queue(admin, org_id)
    assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
    created = create(admin, qpath)
    assert created["data"]["category"] is None  # never applied
    assert created["suggestions"] == SUGGESTIONS
    plain = body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "plain"}}))
    assert "suggestions" not in plain  # Part A's shape when there are none
    seen = body_of(worker.get(f"{qpath}/tasks/{created['id']}"))
    assert seen["suggestions"] == SUGGESTIONS and seen["suggestion_outcome"] is None
    claimed = body_of(worker.post(f"{qpath}/tasks/next"))
    assert claimed["id"] == created["id"] and claimed["suggestions"] == SUGGESTIONS
    # the tags in another order are the same set; 3.0 is 3; the note changed; category kept
    done = body_of(
        worker.post(
            f"{qpath}/tasks/{created['id']}/complete",
            json={"data": {"category": "red", "tags": ["a", "b"], "size": 3.0, "note": "mine"}},
        )
    )
    outcome = {"category": "accepted", "tags": "accepted", "size": "accepted", "note": "changed"}
    assert done["suggestion_outcome"] == outcome and done["suggestions"] == SUGGESTIONS
    after = body_of(admin.get(f"{qpath}/tasks/{created['id']}"))
    assert after["suggestion_outcome"] == outcome and after["data"]["note"] == "mine"
    (event,) = receiver.wait_for(1)
    body = json.loads(event.body)
    assert body["suggestions"] == SUGGESTIONS and body["suggestion_outcome"] == outcome
    # a review's correction changes the values, not the outcome
    corrected = admin.post(
        f"{qpath}/tasks/{created['id']}/review",
        json={"verdict": "correct", "data": {"note": "first line\nsecond line"}},
    )
    assert corrected.status_code == 200, corrected.text
    assert body_of(admin.get(f"{qpath}/tasks/{created['id']}"))["suggestion_outcome"] == outcome
    # a task without suggestions: no extra keys in its event
    claim_and_complete(worker, qpath, plain["id"], category="blue")
    events = [json.loads(e.body) for e in receiver.wait_for(3)]
    plain_event = next(e for e in events if e.get("id") == plain["id"])
    assert "suggestions" not in plain_event and "suggestion_outcome" not in plain_event
    history = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert all("suggestions" not in t for t in history["tasks"])  # A2 keeps Part A's shape


def test_by_agent_counts_each_suggested_block_of_the_completions(
    admin, worker, supervisor_client, org_id
) -> None:
    qpath = suggested_queue(admin, org_id)
    one = create(admin, qpath, {"category": offer("red"), "note": offer("x", "rule-1")})
    two = create(admin, qpath, {"category": offer("red"), "size": offer(4, "model-a")})
    create(admin, qpath, {"category": offer("blue", "model-z")})  # never completed: not counted
    claim_and_complete(worker, qpath, one["id"], category="red", note="x")
    claim_and_complete(worker, qpath, two["id"], category="blue", size=4)
    stats = body_of(supervisor_client.get(f"{qpath}/stats"))
    assert stats["by_agent"] == [
        {"agent": "model-a", "offered": 3, "accepted": 2},
        {"agent": "rule-1", "offered": 1, "accepted": 1},
    ]
    assert worker.get(f"{qpath}/stats").status_code == 403


def test_a_consensus_queue_hides_them_from_workers_and_judges_the_settled_values(
    admin, worker, clients, org_id
) -> None:
    worker2 = clients["worker2"]
    qpath = suggested_queue(admin, org_id, consensus={"answers": 2})
    created = create(admin, qpath, {"category": offer("red"), "note": offer("n")})
    assert created["suggestions"] is not None  # the admin who created it sees them
    assert body_of(worker.get(f"{qpath}/tasks/{created['id']}"))["suggestions"] is None
    claimed = body_of(worker.post(f"{qpath}/tasks/next"))
    assert claimed["suggestions"] is None
    body_of(
        worker.post(
            f"{qpath}/tasks/{created['id']}/complete", json={"data": {"category": "blue", "note": "n"}}
        )
    )
    listed = body_of(worker.get(f"{qpath}/tasks"))["tasks"]
    assert all(t["suggestions"] is None for t in listed)
    assert body_of(worker2.post(f"{qpath}/tasks/next"))["suggestions"] is None
    settled = body_of(
        worker2.post(
            f"{qpath}/tasks/{created['id']}/complete", json={"data": {"category": "blue", "note": "m"}}
        )
    )
    assert settled["status"] == "completed" and settled.get("suggestions") is None
    task = body_of(admin.get(f"{qpath}/tasks/{created['id']}"))
    # the settled values: category blue (changed); note from the earliest answer holding them: "n"
    assert task["suggestion_outcome"] == {"category": "changed", "note": "accepted"}
    assert task["suggestions"] == {"category": offer("red"), "note": offer("n")}


def test_a_decided_task_is_judged_on_the_decided_values(admin, worker, clients, org_id) -> None:
    worker2 = clients["worker2"]
    qpath = suggested_queue(admin, org_id, consensus={"answers": 2})
    created = create(admin, qpath, {"category": offer("red")})
    for client, value in ((worker, "red"), (worker2, "blue")):
        claim_and_complete(client, qpath, created["id"], category=value)
    decided = admin.post(
        f"{qpath}/tasks/{created['id']}/review", json={"verdict": "decide", "data": {"category": "red"}}
    )
    assert decided.status_code == 200, decided.text
    assert body_of(admin.get(f"{qpath}/tasks/{created['id']}"))["suggestion_outcome"] == {
        "category": "accepted"
    }


@pytest.fixture
def supervisor_client(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["supervisor"]


def test_the_upgrade_from_version_18_adds_suggestions(tmp_path: Path, backend: str) -> None:
    """Schema version 19 on a version 18 database (both databases): the tasks' three columns and
    `suggestion_minutes`; a partial copy of the step (one column there already) is completed."""
    db = tmp_path / "v18.db"
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    with server.client("admin") as admin:
        older = body_of(admin.post("/orgs/1/queues/1/tasks/create", json={"data": {"paragraph": "older"}}))
    server.stop()
    for statement in (
        "DROP TABLE suggestion_minutes",
        "DROP INDEX ix_tasks_claim_confident",
        "ALTER TABLE tasks DROP COLUMN suggestion_score",
        "ALTER TABLE tasks DROP COLUMN suggestion_outcome",  # `suggestions` stays: a partial copy
        "UPDATE schema_version SET version = 18",
    ):
        execute_sql(server.db_url, statement)
    server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    try:
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST == 19
        with server.client("admin") as admin, server.client("worker") as worker:
            assert body_of(admin.get(f"/orgs/1/queues/1/tasks/{older['id']}"))["suggestions"] is None
            qpath = suggested_queue(admin, 1)
            made = create(admin, qpath, {"category": offer("red", score=0.3)})
            stored = f"SELECT suggestion_score FROM tasks WHERE id = {made['id']}"
            assert query_value(server.db_url, stored) == 0.3
            claim_and_complete(worker, qpath, made["id"], category="red")
            assert body_of(admin.get(f"{qpath}/stats"))["by_agent"] == [
                {"agent": "model-a", "offered": 1, "accepted": 1}
            ]
    finally:
        server.stop()


def test_least_confident_claims_the_lowest_suggestion_score_first(admin, worker, org_id) -> None:
    """B24's `order` "least_confident": priority, then the lowest score of a task's suggestions (tasks
    without a scored suggestion after), then as "oldest"."""
    qpath = suggested_queue(admin, org_id, order="least_confident")
    plain = body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "plain"}}))["id"]
    sure = create(admin, qpath, {"category": offer("red", score=0.8)})["id"]
    doubtful = create(admin, qpath, {"category": offer("red", score=0.9), "size": offer(1, score=0.2)})["id"]
    unscored = create(admin, qpath, {"category": offer("red", score=None)})["id"]
    body = {
        "data": {"paragraph": "first"},
        "suggestions": {"category": offer("red", score=0.99)},
        "priority": 5,
    }
    urgent = body_of(admin.post(f"{qpath}/tasks/create", json=body))["id"]
    claimed = []
    for _ in range(5):
        task = body_of(worker.post(f"{qpath}/tasks/next"))
        claimed.append(task["id"])
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}))
    assert claimed == [urgent, doubtful, sure, plain, unscored]
    # the same queue claimed "oldest" again: by priority, then age
    assert body_of(admin.patch(qpath, json={"order": "oldest"}))["order"] == "oldest"


def test_the_least_confident_claim_is_one_index_seek_at_100000_pending(backend: str, tmp_path: Path) -> None:
    """SQLite's plan of the least-confident claim: the seeks of `ix_tasks_claim_confident`, no scan of
    the tasks, with 100,000 pending tasks of assorted scores; and a claim's time there."""
    sqlite_only(backend, "SQLite's query plan")
    import time
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import create_engine, text

    from queuedesk.server.store import claim_order, schema, tasks

    engine = create_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    with engine.begin() as conn:
        schema.upgrade(conn)
        conn.execute(text("INSERT INTO organizations (id, name, created_at) VALUES (1, 'o', 0)"))
        conn.execute(
            text(
                "INSERT INTO queues (id, organization_id, name, description, blocks, created_at, claim_order) "
                "VALUES (1, 1, 'q', '', '[]', 0, 'least_confident')"
            )
        )
        conn.execute(
            text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
                "INSERT INTO tasks (id, queue_id, status, data, source, created_at, suggestion_score) "
                "SELECT i, 1, 'new', '{}', 'api', 0, CASE WHEN i % 3 = 0 THEN 2.0 ELSE (i * 7919 % 1000) / 1000.0 END FROM n"
            )
        )
        conn.execute(text("ANALYZE"))
        statement = tasks.CLAIMS._candidates["least_confident", False]
        values = {"queue_id": 1, "now": 0, "user_id": 7}
        plan = [row[3] for row in conn.execute(text(f"EXPLAIN QUERY PLAN {statement.text}"), values)]
        assert any("ix_tasks_claim_confident" in step for step in plan), plan
        assert not any(step.startswith("SCAN tasks") for step in plan), plan
        assert claim_order.queue_order(conn, 1) == "least_confident"
        now = datetime.now(UTC)
        started = time.perf_counter()
        task_id = tasks.CLAIMS.next_claimable(conn, 1, 7, now, others_only=False)
        seconds = time.perf_counter() - started
        lowest = conn.execute(text("SELECT min(suggestion_score) FROM tasks")).scalar_one()
        assert (
            conn.execute(text(f"SELECT suggestion_score FROM tasks WHERE id = {task_id}")).scalar_one()
            == lowest
        )
        assert tasks.CLAIMS.take(conn, task_id, 7, now, now + timedelta(minutes=15))
    print(f"least-confident claim at 100,000 pending: {seconds * 1000:.2f} ms; plan {plan}")
    assert seconds < 0.5
