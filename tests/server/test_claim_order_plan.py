"""B24/B25's claim stays index-bound: with 60,000 pending tasks (and some reserved, prioritized, due,
given back and held) the claim's statements walk `ix_tasks_claim_order` in its own order on both
databases — no sort of the queue's tasks, no scan of the table — as the plans of the databases say."""

import json
import re
import sqlite3
from pathlib import Path

from queuedesk.server.store.claim_order import NEVER_CLAIMED, RESERVED_FOR_ME
from queuedesk.server.store.tasks import CLAIMS
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value

PENDING = 60_000
PARAMS = {"queue_id": 1, "user_id": 3, "now": 1_800_000_000_000_000, "lease": 0, "task_id": 1}


def _fill(db_url: str, backend: str) -> None:
    """60,000 tasks in queue 1: most plain, every 7th prioritized, every 11th due, every 13th reserved
    for user 4, every 17th given back by user 3, every 19th held."""
    numbers = (
        "generate_series(1, 60000) AS n"
        if backend == "postgresql"
        else "(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 60000) SELECT n FROM s)"
    )
    execute_sql(
        db_url,
        f"""INSERT INTO tasks (queue_id, status, data, source, created_at, priority, due_at, reserved_for,
        released_by, released_until, assigned_to, lease_expires_at)
        SELECT 1, CASE WHEN n % 19 = 0 THEN 'in_progress' WHEN n % 17 = 0 THEN 'open' ELSE 'new' END, '{{}}',
        'api', n, CASE WHEN n % 7 = 0 THEN n % 5 ELSE 0 END,
        CASE WHEN n % 11 = 0 THEN 1700000000000000 + n ELSE 4611686018427387904 END,
        CASE WHEN n % 13 = 0 THEN 4 ELSE NULL END, CASE WHEN n % 17 = 0 THEN 3 ELSE NULL END,
        CASE WHEN n % 17 = 0 THEN 1900000000000000 ELSE NULL END,
        CASE WHEN n % 19 = 0 THEN 4 ELSE NULL END, CASE WHEN n % 19 = 0 THEN 1900000000000000 ELSE NULL END
        FROM {numbers}""",
    )
    execute_sql(db_url, "ANALYZE")


def _sqlite_plan(db_url: str, sql: str) -> str:
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as conn:
        return "\n".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, PARAMS))


def _postgres_plan(db_url: str, numbered: tuple[str, tuple[str, ...]]) -> str:
    text, names = numbered
    for index in range(len(names), 0, -1):  # $10 before $1
        text = text.replace(f"${index}", str(PARAMS[names[index - 1]]))
    plan = json.loads(query_value(db_url, "EXPLAIN (FORMAT JSON) " + text))
    return json.dumps(plan)


def _scans_of_tasks(node: object) -> list[str]:
    """The sequential scans of `tasks` anywhere in a PostgreSQL plan."""
    if isinstance(node, list):
        return [found for item in node for found in _scans_of_tasks(item)]
    if not isinstance(node, dict):
        return []
    found = (
        [node["Alias"]]
        if node.get("Node Type") == "Seq Scan" and node.get("Relation Name") == "tasks"
        else []
    )
    return found + _scans_of_tasks(node.get("Plans", [])) + _scans_of_tasks(node.get("Plan", []))


def test_the_claim_walks_the_claim_order_index(tmp_path: Path, backend: str) -> None:
    server = ServerProcess(tmp_path / "plan.db", seed=ROLES_SEED, backend=backend).start()
    server.stop()
    _fill(server.db_url, backend)
    statements = {
        "candidates": CLAIMS._candidates[False],
        "candidates ahead": CLAIMS._candidates[True],
        "seeks without expired claims": CLAIMS._seeks,
        "given back by me": CLAIMS._given_back_by_me,
        "consensus never claimed": NEVER_CLAIMED,
        "consensus reserved for me": RESERVED_FOR_ME,
    }
    for name, statement in statements.items():
        if backend == "sqlite":
            plan = _sqlite_plan(server.db_url, statement.text)
            seeks = re.findall(r"USING (?:COVERING )?INDEX (\w+)", plan)
            assert "ix_tasks_claim_order" in seeks, (name, plan)
            # the only sort allowed: of the expired claims (the queue's tasks in progress) or of the
            # seeks' two or three answers, never within a seek
            sorts = plan.count("TEMP B-TREE")
            assert sorts <= (0 if name.startswith("consensus") else 1), (name, plan)
            assert "RIGHT PART" not in plan, (name, plan)
            assert "SCAN tasks" not in plan, (name, plan)
        else:
            plan = _postgres_plan(server.db_url, statement.numbered)
            assert "ix_tasks_claim_order" in plan, (name, plan)
            assert _scans_of_tasks(json.loads(plan)) == [], (name, plan)
    assert query_value(server.db_url, "SELECT count(*) FROM tasks") >= PENDING
