"""SVG snapshots of the queue screen's Stats and Webhook tabs (and a delivery's attempts) at 80x24
and 200x60, on data with fixed times and a fixed clock.

The webhook's target, deliveries and attempts are written straight into the database with fixed
times (the pending one held by a dispatcher of another host, so no server ever sends it), and the
app's clock stands at 2026-11-23 09:30.

Stats are counted by the server up to its own, real now, so they cannot be pinned to a date. They
are pinned to an hour instead: the app's clock stands at the start of the hour the module began in,
and every completion is placed at a fixed distance before it. Everything the tab shows is relative
("8 h ago", "3 min ago") or a count, and the buckets the server adds after the app's now (the real
clock runs on) are not the period's and are not drawn, so the picture is the same whenever it runs.

`pytest tests/tui/test_tab_snapshots.py --snapshot-update` rewrites them; look at the PNGs
(`rsvg-convert -o x.png file.svg`) before accepting.
"""

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import FAR_FUTURE, steps

SIZES = [(80, 24), (200, 60)]
NINE_THIRTY = 1795426200_000000  # 2026-11-23 09:30:00 UTC, the webhook pictures' clock, in microseconds
SECOND = 1_000_000
TARGET = "https://hooks.example.com/queuedesk"
# Completions per 15-minute bucket over the 8 hours before the anchor, oldest first (32 buckets).
PATTERN = [0, 0, 1, 2, 3, 2, 1, 0, 0, 1, 3, 4, 2, 1, 0, 0, 0, 0, 2, 3, 5, 3, 2, 1, 0, 0, 1, 2, 1, 0, 1, 2]
WORKERS = [("wes@acme.test", 95), ("wes@acme.test", 110), ("wyn@acme.test", 185), ("ada@acme.test", 42)]
# id offset in the webhook's tasks, status, attempts, last code, last error, created (s before 09:30), next try
DELIVERIES = [
    (0, "delivered", 1, 200, None, 1080, None),
    (1, "delivered", 2, 204, None, 900, None),
    (2, "failed", 1, 410, "the receiver answered 410", 720, None),
    (3, "pending", 3, 500, "the receiver answered 500", 420, 11 * 60 + 7),
    (4, "pending", 1, None, "no answer within 15 s", 60, 5 * 60),
]


# The start of the hour the module began in, fixed for the module: the data and the clock use it.
ANCHOR = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
# The stats picture's clock: a second before the hour, so the period's last bucket is the quarter
# hour just ended, wholly in the server's past however late in the hour the test runs.
STATS_NOW = ANCHOR - timedelta(seconds=1)


def micros(moment: datetime) -> int:
    return int(moment.timestamp() * SECOND)


@pytest.fixture(scope="module")
def tab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("tab-snapshots") / "qd.db", seed=ROLES_SEED).start()
    admin, worker = server.client("admin"), server.client("worker")
    base = "/orgs/1/queues/1"
    done = sum(PATTERN)
    for n in range(done + 5):
        admin.post(f"{base}/tasks/create", json={"data": {"paragraph": f"report {n}"}}).raise_for_status()
    ids = []
    for _ in range(done):
        task = worker.post(f"{base}/tasks/next").json()
        worker.post(
            f"{base}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
        ).raise_for_status()
        ids.append(task["id"])
    worker.post(f"{base}/tasks/next").raise_for_status()  # one held by Wes
    db = server.db_url
    since = ANCHOR - timedelta(hours=8)
    made = iter(ids)
    turns = itertools.cycle(WORKERS)
    for bucket, count in enumerate(PATTERN):
        for k in range(count):
            email, seconds = next(turns)
            at = since + timedelta(minutes=15 * bucket + 2 + 2 * k)
            execute_sql(
                db,
                f"UPDATE tasks SET completed_at = {micros(at)}, completed_by = '{email}', "
                f"work_micros = {(seconds + 7 * k) * SECOND} WHERE id = {next(made)}",
            )
    # The server judges "in progress" by its own (real) clock: the lease must outlive any run.
    execute_sql(db, f"UPDATE tasks SET lease_expires_at = {FAR_FUTURE} WHERE status = 'in_progress'")
    execute_sql(
        db, f"UPDATE queues SET webhook_target = '{TARGET}', webhook_secret = 'whsec_{'A' * 32}' WHERE id = 1"
    )
    for delivery_id, (offset, status, attempts, code, error, before, next_in) in enumerate(DELIVERIES, 1):
        created = NINE_THIRTY - before * SECOND
        next_at = "NULL" if next_in is None else NINE_THIRTY + next_in * SECOND
        delivered = created + attempts * 3 * SECOND if status == "delivered" else "NULL"
        execute_sql(
            db,
            "INSERT INTO deliveries (id, queue_id, task_id, event_id, target, payload, status, attempts, "
            "retry_step, last_status_code, last_error, next_attempt_at, created_at, delivered_at, "
            "claimed_by, claimed_until) VALUES "
            f"({delivery_id}, 1, {ids[offset]}, 'msg_snapshot{delivery_id}', '{TARGET}', '{{}}', '{status}', "
            f"{attempts}, {attempts}, {'NULL' if code is None else code}, "
            f"{'NULL' if error is None else repr(error)}, {next_at}, {created}, {delivered}, "
            # held by a dispatcher elsewhere: no server here ever sends these
            f"'snapshot-host:1:0', {FAR_FUTURE})",
        )
    attempts = [(503, "the receiver answered 503", 1912), (500, "the receiver answered 500", 35)]
    attempts += [(None, "ConnectError: [Errno 111] Connection refused", 2)]
    for n, (code, error, took) in enumerate(attempts):
        execute_sql(
            db,
            "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms) "
            f"VALUES (4, {NINE_THIRTY - (420 - 150 * n) * SECOND}, {'NULL' if code is None else code}, "
            f"{error!r}, {took})",
        )
    for client in (admin, worker):
        client.close()
    yield server
    server.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_tab(snap_compare, tab_server: ServerProcess, size: tuple[int, int]) -> None:
    app = app_for(tab_server, "supervisor", now=STATS_NOW)
    assert snap_compare(app, terminal_size=size, run_before=steps("enter", "4"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_webhook_tab(snap_compare, tab_server: ServerProcess, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(tab_server, "admin"), terminal_size=size, run_before=steps("enter", "5"))


def test_delivery_attempts(snap_compare, tab_server: ServerProcess) -> None:
    """The pending delivery that failed three times: each attempt's code, time taken and error."""
    assert snap_compare(
        app_for(tab_server, "admin"), terminal_size=(80, 24), run_before=steps("enter", "5", "down", "enter")
    )


def test_the_pictures_data_is_fixed(tab_server: ServerProcess) -> None:
    """What the stats picture shows took, whenever the module runs."""
    with tab_server.client("admin") as admin:
        since = ANCHOR - timedelta(hours=8)
        stats = admin.get("/orgs/1/queues/1/stats", params={"since": since.isoformat(), "bucket_minutes": 15})
    body = stats.json()
    assert body["completed"][: len(PATTERN)] == PATTERN and sum(body["completed"]) == sum(PATTERN)
    assert (body["pending"], body["in_progress"]) == (5, 1)
