"""SVG snapshots of review (B19): the review screen (read-only, and with a correction marked), the
Stats tab with each worker's accept rate, and a worker's Feedback tab, at 80x24 and 200x60.

Each picture has a server of its own (a review claim changes what the next picture shows). Times
are set behind the server's back, as in test_snapshots.py: the review and feedback pictures on the
fixed morning of the other pictures, the stats picture on the hour the module began (the server
counts its period up to its own now). `--snapshot-update` rewrites them; look at the PNGs first.
"""

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import FAR_FUTURE, steps
from tests.tui.test_tab_snapshots import STATS_NOW, micros

SIZES = [(80, 24), (200, 60)]
MORNING = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)  # the app's clock in the other pictures
OPTIONS = [
    {"id": "ok", "name": "Fine"},
    {"id": "remove", "name": "Remove"},
    {"id": "escalate", "name": "Escalate"},
]
BLOCKS = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {
        "id": "verdict",
        "name": "Verdict",
        "type": "single_selection",
        "single_selection": {"is_required": True, "options": OPTIONS},
    },
    {"id": "reason", "name": "Reason", "type": "text", "text": {"placeholder": "Why? (optional)"}},
]
# What Wes answered on each report, in order; then the supervisor's verdicts on the first four.
REPORTS = [
    ("“Buy cheap watches at this link”", "ok", ""),
    ("A photo of a cat asleep on a keyboard", "ok", "harmless"),
    ("Threatens another user by name", "ok", ""),
    ("Copies a news article in full", "remove", "copyright"),
    ("Asks where to buy a concert ticket", "remove", ""),
    ("Posts the same link forty times", "ok", ""),
]
VERDICTS = [
    {
        "verdict": "correct",
        "data": {"verdict": "remove", "reason": "spam"},
        "note": "Links to shops are spam.",
    },
    {"verdict": "accept"},
    {"verdict": "redo", "note": "A threat is always escalated: read the policy, section 2."},
    {"verdict": "accept", "note": "Good call."},
]
SECONDS_TAKEN = [95, 41, 12, 130, 64, 23]


def review_server(tmp_path_factory: pytest.TempPathFactory, at: datetime) -> ServerProcess:
    """A server with a moderation queue reviewing all of its work: six reports done by Wes, the
    first four reviewed by Sue, two waiting; every time set before `at`."""
    server = ServerProcess(tmp_path_factory.mktemp("review-snapshots") / "qd.db", seed=ROLES_SEED).start()
    admin, worker, supervisor = (server.client(role) for role in ("admin", "worker", "supervisor"))
    queue = admin.post(
        "/orgs/1/queues",
        json={
            "name": "Moderation",
            "description": "Is the post fine?",
            "data": BLOCKS,
            "review_percent": 100,
        },
    ).json()
    base = f"/orgs/1/queues/{queue['id']}"
    ids = []
    for message, verdict, reason in REPORTS:
        admin.post(f"{base}/tasks/create", json={"data": {"message": message}}).raise_for_status()
        task = worker.post(f"{base}/tasks/next").json()
        worker.post(
            f"{base}/tasks/{task['id']}/complete",
            json={"data": {"verdict": verdict, "reason": reason or None}},
        ).raise_for_status()
        ids.append(task["id"])
    for task_id, body in zip(ids, VERDICTS, strict=False):
        supervisor.post(f"{base}/tasks/{task_id}/review", json=body).raise_for_status()
    db = server.db_url
    start = at - timedelta(minutes=50)
    execute_sql(db, f"UPDATE queues SET created_at = {micros(start - timedelta(days=2))}")
    for n, task_id in enumerate(ids):
        done = start + timedelta(minutes=4 * n + 3)
        claimed = done - timedelta(seconds=SECONDS_TAKEN[n])
        execute_sql(
            db,
            f"UPDATE tasks SET created_at = {micros(start)}, assigned_at = {micros(claimed)}, "
            f"completed_at = {micros(done)}, work_micros = {SECONDS_TAKEN[n] * 1_000_000} WHERE id = {task_id}",
        )
        reviewed = done + timedelta(minutes=20 + n)
        execute_sql(
            db,
            f"UPDATE reviews SET reviewed_at = {micros(reviewed)} WHERE task_id = {task_id} AND reviewed_at IS NOT NULL",
        )
    execute_sql(
        db, f"UPDATE tasks SET created_at = {micros(at - timedelta(minutes=5))} WHERE source = 'review'"
    )
    execute_sql(db, f"UPDATE tasks SET lease_expires_at = {FAR_FUTURE} WHERE status = 'in_progress'")
    for client in (admin, worker, supervisor):
        client.close()
    return server


@pytest.fixture
def server_at(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[datetime], ServerProcess]]:
    started: list[ServerProcess] = []

    def start(at: datetime) -> ServerProcess:
        started.append(review_server(tmp_path_factory, at))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review_screen(
    snap_compare, server_at: Callable[[datetime], ServerProcess], size: tuple[int, int]
) -> None:
    """Read-only, the verdict keys in the footer: who did it, in how long, the form as Wes left it."""
    app = app_for(server_at(MORNING), "supervisor", now=MORNING)
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "v"))


def test_review_screen_correcting(snap_compare, server_at: Callable[[datetime], ServerProcess]) -> None:
    """Editing: the choice changed and marked, the worker's value beside it, a note written."""
    app = app_for(server_at(MORNING), "supervisor", now=MORNING)
    keys = ("down", "v", "e", "3", "escape", "n", *"Ticket touts are escalated", "enter")
    assert snap_compare(app, terminal_size=(100, 30), run_before=steps(*keys))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_with_accept_rates(
    snap_compare, server_at: Callable[[datetime], ServerProcess], size: tuple[int, int]
) -> None:
    app = app_for(server_at(STATS_NOW), "supervisor", now=STATS_NOW)
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "enter", "4"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_worker_feedback(
    snap_compare, server_at: Callable[[datetime], ServerProcess], size: tuple[int, int]
) -> None:
    """Wes's corrected and redone reports, the newest first, the correction's values and note below."""
    app = app_for(server_at(MORNING), "worker", now=MORNING)
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "enter", "6", "down"))
