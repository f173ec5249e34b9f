"""B15 queue stats over real HTTP: buckets, medians, the queue's work now, bounds, roles, isolation."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from queuedesk.api.timestamps import format_timestamp
from tests.support import ServerProcess, assert_envelope, execute_sql

MINUTE = 60_000_000  # microseconds


def micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


def complete(admin: httpx.Client, worker: httpx.Client, qpath: str) -> dict:
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}}).raise_for_status()
    task = worker.post(f"{qpath}/tasks/next").json()
    done = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
    assert done.status_code == 200, done.text
    return done.json()


# B19's counts, and B21's (0 in a queue without consensus)
NOT_REVIEWED = {"reviewed": 0, "accepted": 0, "corrected": 0, "redone": 0, "answers": 0, "agreed": 0}
NOT_REVIEWED |= {"gold_answered": 0, "gold_correct": 0}  # B22


def place(server: ServerProcess, task_id: int, by: str, at: datetime, seconds: float) -> None:
    """Move a completion to a known moment with a known working time."""
    execute_sql(
        server.db_url,
        f"UPDATE tasks SET completed_by = '{by}', completed_at = {micros(at)}, "
        f"work_micros = {int(seconds * 1_000_000)} WHERE id = {task_id}",
    )


def test_buckets_and_medians_of_two_workers(server, admin, worker, qpath) -> None:
    since = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=59)  # four buckets to now
    ids = [complete(admin, worker, qpath)["id"] for _ in range(5)]
    # Wes: 10 s, 20 s, 60 s (median 20) in buckets 0, 0 and 3; Wyn: 30 s, 50 s (median 40) in bucket 1.
    place(server, ids[0], "wes@acme.test", since + timedelta(minutes=1), 10)
    place(server, ids[1], "wes@acme.test", since + timedelta(minutes=14), 20)
    place(server, ids[2], "wyn@acme.test", since + timedelta(minutes=16), 30)
    place(server, ids[3], "wyn@acme.test", since + timedelta(minutes=29), 50)
    place(server, ids[4], "wes@acme.test", since + timedelta(minutes=50), 60)
    # One before the period: not counted.
    extra = complete(admin, worker, qpath)["id"]
    place(server, extra, "wes@acme.test", since - timedelta(minutes=1), 5)

    answer = admin.get(f"{qpath}/stats", params={"since": format_timestamp(since), "bucket_minutes": 15})
    assert answer.status_code == 200, answer.text
    stats = answer.json()
    assert list(stats) == [
        "since",
        "bucket_minutes",
        "pending",
        "in_progress",
        "completed",
        "by_worker",
        "reviews_pending",
        "disputed",
    ]
    assert stats["since"] == format_timestamp(since) and stats["bucket_minutes"] == 15
    assert stats["completed"] == [2, 2, 0, 1]
    assert stats["by_worker"] == [
        {
            "email": "wes@acme.test",
            "name": "Wes",
            "completed": 3,
            "median_seconds": 20.0,
            "last_completed_at": format_timestamp(since + timedelta(minutes=50)),
            **NOT_REVIEWED,
        },
        {
            "email": "wyn@acme.test",
            "name": "Wyn",
            "completed": 2,
            "median_seconds": 40.0,
            "last_completed_at": format_timestamp(since + timedelta(minutes=29)),
            **NOT_REVIEWED,
        },
    ]


def test_a_completion_records_how_long_its_claim_held_the_task(server, admin, worker, qpath) -> None:
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}}).raise_for_status()
    task = worker.post(f"{qpath}/tasks/next").json()
    # The claim was taken 42 s ago (moved behind the server's back), then the task is completed now.
    execute_sql(
        server.db_url, f"UPDATE tasks SET assigned_at = assigned_at - 42 * 1000000 WHERE id = {task['id']}"
    )
    worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}).raise_for_status()
    stats = admin.get(f"{qpath}/stats").json()
    (wes,) = stats["by_worker"]
    assert wes["completed"] == 1 and 42 <= wes["median_seconds"] < 47
    assert sum(stats["completed"]) == 1 and stats["completed"][-1] == 1  # the newest bucket


def test_the_default_period_is_eight_hours_in_quarter_hours(admin, qpath) -> None:
    before = datetime.now(UTC)
    stats = admin.get(f"{qpath}/stats").json()
    since = datetime.fromisoformat(stats["since"])
    assert (
        timedelta(hours=8) - timedelta(seconds=5)
        <= before - since
        <= timedelta(hours=8) + timedelta(seconds=5)
    )
    assert stats["bucket_minutes"] == 15 and stats["completed"] == [0] * 32
    assert stats["by_worker"] == [] and stats["pending"] == 0 and stats["in_progress"] == 0


def test_pending_and_in_progress_now(server, admin, worker, qpath) -> None:
    for _ in range(4):
        admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}}).raise_for_status()
    held = worker.post(f"{qpath}/tasks/next").json()
    lapsed = worker.post(f"{qpath}/tasks/next", json={"exclude": [held["id"]]}).json()
    execute_sql(server.db_url, f"UPDATE tasks SET lease_expires_at = 1 WHERE id = {lapsed['id']}")
    stats = admin.get(f"{qpath}/stats").json()
    # A claim whose lease ran out is waiting for a worker again.
    assert (stats["pending"], stats["in_progress"]) == (3, 1)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"bucket_minutes": "0"}, "bucket_minutes"),
        ({"bucket_minutes": "1441"}, "bucket_minutes"),
        ({"bucket_minutes": "ten"}, "bucket_minutes"),
        ({"since": "yesterday"}, "since"),
        ({"since": "2999-01-01T00:00:00Z"}, "since"),
        ({"since": "2020-01-01T00:00:00Z"}, "since"),  # far more than 500 buckets
        ({"since": "9999-12-31T23:59:59-14:00"}, "since"),
    ],
)
def test_bad_values_are_a_400(admin, qpath, params: dict[str, str], field: str) -> None:
    assert_envelope(admin.get(f"{qpath}/stats", params=params), 400, "invalid_parameter", field)


def test_at_most_500_buckets(admin, qpath) -> None:
    now = datetime.now(UTC)
    fits = format_timestamp(now - timedelta(minutes=499 * 60 + 30))  # 500 buckets, the last one partial
    assert (
        len(admin.get(f"{qpath}/stats", params={"since": fits, "bucket_minutes": 60}).json()["completed"])
        == 500
    )
    too_many = format_timestamp(now - timedelta(minutes=500 * 60 + 30))
    body = assert_envelope(
        admin.get(f"{qpath}/stats", params={"since": too_many, "bucket_minutes": 60}), 400, field="since"
    )
    assert "500" in body["errors"][0]["message"]


def test_roles_and_other_organizations(clients, org_id, qpath, other_org) -> None:
    assert clients["supervisor"].get(f"{qpath}/stats").status_code == 200
    assert_envelope(clients["worker"].get(f"{qpath}/stats"), 403, "forbidden")
    assert_envelope(clients["anonymous"].get(f"{qpath}/stats"), 401)
    other = f"/orgs/{other_org['org']}/queues/{other_org['queue']}/stats"
    assert_envelope(clients["admin"].get(other), 404)
    assert_envelope(clients["other_admin"].get(f"{qpath}/stats"), 404)
    assert_envelope(clients["admin"].get(f"/orgs/{org_id}/queues/999999999/stats"), 404)
