"""SVG snapshots of gold tasks (B22) at 80x24 and 200x60: a worker's Feedback tab with a miss (the
known answer beside theirs), and the Gold tab of a supervisor (each gold task's expected values,
answered by how many, how many right; the highlighted one's misses).

Each picture has a server of its own, its times set behind the server's back on the fixed morning
of the other pictures (test_review_snapshots.py). `--snapshot-update` rewrites them; look at the
PNGs first. They run once the server lists B22 (until then they skip, as every test needing it)."""

from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta

import pytest
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from tests.api.test_client_gold import needs_b22
from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.support.sql import query_value
from tests.tui.test_review_snapshots import BLOCKS, MORNING
from tests.tui.test_snapshots import ready_picture
from tests.tui.test_tab_snapshots import micros

SIZES = [(80, 24), (200, 60)]
# Each gold report, the verdict it expects, and what Wes and Wyn answered.
GOLD = [
    ("“Win a free phone, click here”", "remove", "remove", "remove"),
    ("Threatens another user by name", "escalate", "remove", "escalate"),
    ("Asks where the meeting is", "ok", "ok", "remove"),
]


def gold_table(db: str) -> str:
    """The table of scored gold answers (the one with `answered_at` and `gold` in its name)."""
    if db.startswith("sqlite:///"):
        sql = (
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%gold%' "
            "AND sql LIKE '%answered_at%'"
        )
    else:
        sql = (
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'answered_at' "
            "AND table_name LIKE '%gold%' LIMIT 1"
        )
    name = query_value(db, sql)
    assert name, "no table of gold answers with an answered_at column"
    return str(name)


def gold_server(tmp_path_factory: pytest.TempPathFactory) -> ServerProcess:
    """A moderation queue with a gold share and three gold reports, each answered by Wes and Wyn."""
    server = ServerProcess(tmp_path_factory.mktemp("gold-snapshots") / "qd.db", seed=ROLES_SEED).start()
    needs_b22(server)
    admin, wes, wyn = (server.client(role) for role in ("admin", "worker", "worker2"))
    queue = admin.post(
        "/orgs/1/queues",
        json={"name": "Moderation", "description": "Is the post fine?", "data": BLOCKS, "review_percent": 10},
    ).json()
    base = f"/orgs/1/queues/{queue['id']}"
    admin.patch(base, json={"gold_percent": 10}).raise_for_status()
    for message, expected, _, _ in GOLD:
        admin.post(
            f"{base}/tasks/create", json={"data": {"message": message}, "gold": {"verdict": expected}}
        ).raise_for_status()
    for worker, column in ((wes, 2), (wyn, 3)):
        for _ in GOLD:
            task = worker.post(f"{base}/tasks/next").json()
            verdict = next(row[column] for row in GOLD if row[0] == task["data"]["message"])
            worker.post(
                f"{base}/tasks/{task['id']}/complete", json={"data": {"verdict": verdict}}
            ).raise_for_status()
    db = server.db_url
    start = MORNING - timedelta(minutes=50)
    execute_sql(db, f"UPDATE queues SET created_at = {micros(start - timedelta(days=2))}")
    execute_sql(db, f"UPDATE tasks SET created_at = {micros(start)}")
    execute_sql(db, f"UPDATE {gold_table(db)} SET answered_at = {micros(start + timedelta(minutes=20))}")
    for client in (admin, wes, wyn):
        client.close()
    return server


@pytest.fixture
def server_for_picture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], ServerProcess]]:
    started: list[ServerProcess] = []

    def start() -> ServerProcess:
        started.append(gold_server(tmp_path_factory))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def on_tab(tab: str, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Open the second queue, show `tab`, then press `keys`."""

    async def run(pilot: Pilot[None]) -> None:
        await ready_picture(pilot)
        for key in ("down", "enter"):
            await pilot.press(key)
            await ready_picture(pilot)
        pilot.app.screen.query_one(TabbedContent).active = tab
        await ready_picture(pilot)
        for key in keys:
            await pilot.press(key)
            await ready_picture(pilot)

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_worker_feedback_with_a_miss(
    snap_compare,
    server: ServerProcess,
    server_for_picture: Callable[[], ServerProcess],
    size: tuple[int, int],
) -> None:
    """Wes missed the threat (Remove where Escalate was known): the known value beside his."""
    needs_b22(server)  # the suite's server: no server of the picture's own started to skip
    app = app_for(server_for_picture(), "worker", now=MORNING)
    assert snap_compare(app, terminal_size=size, run_before=on_tab("tab-feedback"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_gold_tab(
    snap_compare, server_for_picture: Callable[[], ServerProcess], size: tuple[int, int]
) -> None:
    """Three gold reports, each answered twice; the second highlighted, with Wes's miss below."""
    app = app_for(server_for_picture(), "supervisor", now=MORNING)
    assert snap_compare(app, terminal_size=size, run_before=on_tab("tab-gold", "down"))
