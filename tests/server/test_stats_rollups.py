"""B15 read from the rollups answers exactly what the completions themselves say: random completions
written, moved and removed behind the server's back (the triggers keep the rollups), random periods
and bucket widths, each answer compared with the same figures worked out here from the rows.
Replayable: each case is a seed."""

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import median
from typing import Any

import httpx
import pytest

from queuedesk.api.timestamps import format_timestamp
from queuedesk.server.store.schema import LATEST
from tests.conftest import make_queue
from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value

MINUTE = 60_000_000
HOUR = 60 * MINUTE
WORKERS = ("wes@acme.test", "wyn@acme.test", "ada@acme.test", "nobody@acme.test", None)
# A completion this close to the moment of the request would make the answer depend on when it ran.
QUIET = 3 * MINUTE


def micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


def _sql_value(value: Any) -> str:
    return "NULL" if value is None else f"'{value}'" if isinstance(value, str) else str(int(value))


def _work(rng: random.Random) -> int | None:
    """Working times with many ties, across many 16-second bins, with the odd missing or negative one."""
    roll = rng.random()
    if roll < 0.05:
        return None
    if roll < 0.08:
        return -rng.randrange(1, 3_000_000)  # below one second: 0 s; below that: no time
    if roll < 0.6:
        return rng.choice((5, 6, 16, 17, 31, 32, 47, 300)) * 1_000_000 + rng.randrange(1_000_000)
    return rng.randrange(0, 4_000_000_000)


def write_completions(db_url: str, queue_id: int, rng: random.Random, count: int, now: int) -> None:
    rows = []
    for _ in range(count):
        if rng.random() < 0.03:
            at = now + QUIET + rng.randrange(10 * HOUR)  # in the future: never in a period
        else:
            at = now - QUIET - rng.randrange(10 * 24 * HOUR)
        values = (queue_id, "completed", "{}", "manual", at - HOUR, at, rng.choice(WORKERS), _work(rng))
        rows.append("(" + ", ".join(_sql_value(v) for v in values) + ")")
    execute_sql(
        db_url,
        "INSERT INTO tasks (queue_id, status, data, source, created_at, completed_at, completed_by, "
        "work_micros) VALUES " + ", ".join(rows),
    )


def change_some(db_url: str, queue_id: int, rng: random.Random, now: int) -> None:
    """Moves, re-attributions and removals, as a prune or a hand with a SQL shell would make them."""
    ids = [row[0] for row in json.loads(_completions_json(db_url, queue_id, "id"))]
    for task_id in rng.sample(ids, len(ids) // 10):
        at = now - QUIET - rng.randrange(10 * 24 * HOUR)
        execute_sql(
            db_url,
            f"UPDATE tasks SET completed_at = {at}, completed_by = {_sql_value(rng.choice(WORKERS))}, "
            f"work_micros = {_sql_value(_work(rng))} WHERE id = {task_id}",
        )
    gone = rng.sample(ids, len(ids) // 20)
    execute_sql(db_url, f"DELETE FROM tasks WHERE id IN ({', '.join(map(str, gone))})")


def _completions_json(db_url: str, queue_id: int, columns: str) -> str:
    where = f"FROM tasks WHERE queue_id = {queue_id} AND completed_at IS NOT NULL"
    if db_url.startswith("sqlite"):
        return query_value(db_url, f"SELECT json_group_array(json_array({columns})) {where}")
    return query_value(db_url, f"SELECT coalesce(json_agg(json_build_array({columns})), '[]')::text {where}")


def _names(db_url: str, queue_id: int) -> dict[str, str]:
    users = f"FROM users WHERE organization_id = (SELECT organization_id FROM queues WHERE id = {queue_id})"
    if db_url.startswith("sqlite"):
        found = query_value(db_url, f"SELECT json_group_object(email, name) {users}")
    else:
        found = query_value(db_url, f"SELECT json_object_agg(email, name)::text {users}")
    return json.loads(found)


def expected(
    completions: list[list[Any]], names: dict[str, str], since: int, width: int, buckets: int, until: int
) -> dict:
    """B15's figures worked out from every completion, one by one."""
    counts = [0] * buckets
    workers: dict[str | None, dict[str, Any]] = {}
    for at, by, work in completions:
        if not since <= at <= until:
            continue
        counts[min((at - since) // width, buckets - 1)] += 1
        worker = workers.setdefault(by, {"completed": 0, "seconds": [], "last": 0})
        worker["completed"] += 1
        worker["last"] = max(worker["last"], at)
        if work is not None:
            seconds = work // 1_000_000 if work >= 0 else -(-work // 1_000_000)  # SQL's division
            if seconds >= 0:
                worker["seconds"].append(seconds)
    by_worker = [
        {
            "email": email,
            "name": names.get(email or ""),
            "completed": worker["completed"],
            "median_seconds": median(worker["seconds"]) if worker["seconds"] else None,
            "last_completed_at": format_timestamp(datetime.fromtimestamp(worker["last"] / 1e6, UTC)),
            "reviewed": 0,
            "accepted": 0,
            "corrected": 0,
            "redone": 0,
            "answers": 0,
            "agreed": 0,
            "gold_answered": 0,
            "gold_correct": 0,
        }
        for email, worker in sorted(workers.items(), key=lambda item: (-item[1]["completed"], item[0] or ""))
    ]
    return {"completed": counts, "by_worker": by_worker}


def _periods(rng: random.Random, now: datetime) -> list[tuple[datetime, int]]:
    chosen = []
    for _ in range(12):
        width = rng.choice((1, 5, 15, 60, 90, 360, 1440))
        back = timedelta(microseconds=rng.randrange(MINUTE, min(500 * width * MINUTE, 11 * 24 * HOUR)))
        chosen.append((now - back, width))
    aligned = now.replace(minute=0, second=0, microsecond=0) - timedelta(days=7)
    return [*chosen, (aligned, 60), (aligned + timedelta(seconds=1), 60), (now - timedelta(days=7), 60)]


def assert_stats_match(
    admin: httpx.Client, qpath: str, db_url: str, queue_id: int, rng: random.Random
) -> None:
    completions = json.loads(_completions_json(db_url, queue_id, "completed_at, completed_by, work_micros"))
    names = _names(db_url, queue_id)
    for since, width in _periods(rng, datetime.now(UTC)):
        asked = admin.get(
            f"{qpath}/stats", params={"since": format_timestamp(since), "bucket_minutes": width}
        )
        assert asked.status_code == 200, asked.text
        answer = asked.json()
        until = micros(datetime.now(UTC))
        start = micros(datetime.fromisoformat(answer["since"]))
        want = expected(completions, names, start, width * MINUTE, len(answer["completed"]), until)
        got = {"completed": answer["completed"], "by_worker": answer["by_worker"]}
        assert got == want, f"since {answer['since']}, {width}-minute buckets"


@pytest.fixture(scope="module")
def own_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Rows written behind the server's back leave its queue counters behind (what `doctor` checks):
    on a server of this module's own, never the session's."""
    process = ServerProcess(tmp_path_factory.mktemp("rollups") / "qd.db", seed=ROLES_SEED, backend=backend)
    yield process.start()
    process.stop()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stats_from_rollups_equal_the_completions_own_figures(own_server: ServerProcess, seed: int) -> None:
    rng = random.Random(seed)
    now = micros(datetime.now(UTC))
    with own_server.client("admin") as admin:
        queue = make_queue(admin, 1)
        qpath = f"/orgs/1/queues/{queue['id']}"
        write_completions(own_server.db_url, queue["id"], rng, 1500, now)
        change_some(own_server.db_url, queue["id"], rng, now)
        assert_stats_match(admin, qpath, own_server.db_url, queue["id"], rng)


ROLLUPS = ("completion_minutes", "worker_hours", "work_bins", "work_seconds")


def test_the_upgrade_to_version_13_counts_the_completions_already_stored(
    tmp_path: Path, backend: str
) -> None:
    db = tmp_path / "v12.db"
    server = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    server.stop()
    rng = random.Random(13)
    now = micros(datetime.now(UTC))
    write_completions(server.db_url, 1, rng, 800, now)
    # Back to version 12: no rollups, no triggers.
    for event in ("insert", "delete", "update"):
        on = " ON tasks" if backend == "postgresql" else ""
        execute_sql(server.db_url, f"DROP TRIGGER qd_rollup_{event}{on}")
    for table in ROLLUPS:
        execute_sql(server.db_url, f"DROP TABLE {table}")
    execute_sql(server.db_url, "UPDATE schema_version SET version = 12")
    write_completions(server.db_url, 1, rng, 200, now)  # written at version 12, never counted
    server = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    try:
        assert query_value(server.db_url, "SELECT version FROM schema_version") == LATEST  # 13 and on
        with server.client("admin") as admin:
            assert_stats_match(admin, "/orgs/1/queues/1", server.db_url, 1, rng)
    finally:
        server.stop()
