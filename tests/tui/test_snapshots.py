"""SVG snapshots of every screen and modal of the app, on data with fixed times and a fixed clock.

The server is real; after seeding, its timestamps are set to fixed values behind its back, and the
shown server address is replaced by a fixed one, so the pictures do not depend on the run.
`pytest tests/tui/test_snapshots.py --snapshot-update` rewrites them; look at the PNGs
(`rsvg-convert -o x.png file.svg`) before accepting.
"""

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest
from textual.pilot import Pilot

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import KEYS, ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for, settle, settled_picture, stop_blinking
from tests.tui.test_images import image_server  # noqa: F401  (the fixture, used by name)

SHOWN_URL = "http://127.0.0.1:8000"
NOON = 1795420800_000000  # 2026-11-23 08:00:00 UTC in microseconds
MINUTE = 60_000_000
FAR_FUTURE = 4102444800_000000  # 2100-01-01 UTC in microseconds
SIZES = [(100, 30), (80, 24)]
SHOWN_IMAGE_HOST = "http://images.example"
IMAGE_HOST = "http://127.0.0.1:1"  # replaced by the image server's address at fixture time
MODERATION_BLOCKS = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {"id": "photo", "name": "Photo", "type": "image", "image": {}},
    {
        "id": "verdict",
        "name": "Verdict",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [
                {"id": "ok", "name": "Fine"},
                {"id": "remove", "name": "Remove"},
                {"id": "escalate", "name": "Escalate"},
            ],
        },
    },
    {"id": "note", "name": "Note", "type": "text", "text": {"placeholder": "Why? (optional)"}},
]


@pytest.fixture  # each picture's own: the work screen's pictures claim tasks the queue list then counts
def snapshot_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    global IMAGE_HOST
    IMAGE_HOST = request.getfixturevalue("image_server")
    server = ServerProcess(tmp_path_factory.mktemp("snapshots") / "qd.db", seed=ROLES_SEED).start()
    admin = server.client("admin")
    worker = server.client("worker")
    org = admin.get("/me").json()["organization_id"]
    queue = admin.get(f"/orgs/{org}/queues").json()[0]["id"]
    base = f"/orgs/{org}/queues/{queue}"
    for text in ("Paper jam on floor 3", "Toner smells odd", "Screen flickers", "Keyboard missing keys"):
        admin.post(f"{base}/tasks/create", json={"data": {"paragraph": text}}).raise_for_status()
    for category in ("red", "blue"):
        claimed = worker.post(f"{base}/tasks/next").json()
        worker.post(
            f"{base}/tasks/{claimed['id']}/complete", json={"data": {"category": category}}
        ).raise_for_status()
    worker.post(f"{base}/tasks/next").raise_for_status()  # one held by Wes
    admin.post(
        f"/orgs/{org}/queues",
        json={
            "name": "Receipts",
            "description": "Check totals",
            "data": [{"id": "total", "name": "Total", "type": "number"}],
        },
    ).raise_for_status()
    moderation = admin.post(
        f"/orgs/{org}/queues",
        json={"name": "Moderation", "description": "Is the picture fine?", "data": MODERATION_BLOCKS},
    ).json()
    for n in range(3):
        admin.post(
            f"/orgs/{org}/queues/{moderation['id']}/tasks/create",
            json={
                "data": {"message": f"Reported by user {n}: offensive?", "photo": f"{IMAGE_HOST}/good.png"}
            },
        ).raise_for_status()
    db = server.db_url
    execute_sql(db, f"UPDATE queues SET created_at = {NOON} + id * 7 * {MINUTE}")
    execute_sql(db, f"UPDATE tasks SET created_at = {NOON} + id * {MINUTE}")
    execute_sql(
        db, f"UPDATE tasks SET completed_at = {NOON} + (60 + id) * {MINUTE} WHERE completed_at IS NOT NULL"
    )
    execute_sql(
        db,
        # The server judges "active" by its own (real) clock, so the lease must outlive any run of the suite.
        f"UPDATE tasks SET assigned_at = {NOON} + 85 * {MINUTE}, lease_expires_at = {FAR_FUTURE} "
        "WHERE status = 'in_progress'",
    )
    for client in (admin, worker):
        client.close()
    yield server
    server.stop()


async def ready_picture(pilot: Pilot[None]) -> None:
    """The app settled, with the server's address and the image host as every picture shows them."""
    app = pilot.app
    await settle(app, pilot)
    await settled_picture(app, pilot)
    session = getattr(app, "session", None)
    if session is not None:
        session.url = SHOWN_URL
    for bar in app.screen.query("ContextBar"):
        bar.render_bar()  # type: ignore[attr-defined]
    stop_blinking(app)
    for caption in app.screen.query(".image-caption"):
        caption.update(str(caption.render()).replace(IMAGE_HOST, SHOWN_IMAGE_HOST))  # type: ignore[attr-defined]
    await pilot.pause()


def steps(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run(pilot: Pilot[None]) -> None:
        await ready_picture(pilot)
        for key in keys:
            await pilot.press(key)
            await ready_picture(pilot)

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_queues(snap_compare, snapshot_server: ServerProcess, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(snapshot_server), terminal_size=size, run_before=steps())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_queue_pending(snap_compare, snapshot_server: ServerProcess, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(snapshot_server), terminal_size=size, run_before=steps("enter"))


def test_queue_completed(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(app_for(snapshot_server), terminal_size=(100, 30), run_before=steps("enter", "2"))


def test_queue_blocks(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(app_for(snapshot_server), terminal_size=(100, 30), run_before=steps("enter", "3"))


def test_task_view(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(
        app_for(snapshot_server), terminal_size=(100, 30), run_before=steps("enter", "2", "enter")
    )


def test_flush_guard(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(app_for(snapshot_server), terminal_size=(100, 30), run_before=steps("F"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_keys(snap_compare, snapshot_server: ServerProcess, size: tuple[int, int]) -> None:
    """Every key of the screen; from 100 columns each with the id that remaps it."""
    assert snap_compare(app_for(snapshot_server), terminal_size=size, run_before=steps("question_mark"))


def test_supervisor_queues(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(app_for(snapshot_server, "supervisor"), terminal_size=(100, 30), run_before=steps())


def test_connect_refused_key(snap_compare, snapshot_server: ServerProcess) -> None:
    app = QueueDeskApp(Target(snapshot_server.url, "not-a-key", None), clock=ManualClock())

    async def run(pilot: Pilot[None]) -> None:
        await ready_picture(pilot)
        pilot.app.screen.query_one("#url").value = SHOWN_URL  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_snapshot_data_is_what_the_pictures_show(snapshot_server: ServerProcess) -> None:
    """The fixture's fixed times took: otherwise every picture would change with the run."""
    with httpx.Client(
        base_url=snapshot_server.url, headers={"Authorization": f"Token {KEYS['admin']}"}
    ) as admin:
        queues = admin.get("/orgs/1/queues").json()
    assert [q["created_at"] for q in queues] == [
        f"2026-11-23T08:{7 * q['id']:02d}:00.000000Z" for q in queues
    ]


# The work screen last: claiming changes who is active in the queue list above.
@pytest.mark.parametrize("size", [*SIZES, (200, 60)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_work_screen(snap_compare, snapshot_server: ServerProcess, size: tuple[int, int]) -> None:
    """Text (read-only message and a note), an image (half cells) and a required single selection;
    at 200x60 too, where a wide terminal must not leave the form lost on the right."""
    assert snap_compare(
        app_for(snapshot_server, "worker"), terminal_size=size, run_before=steps("down", "down", "w")
    )


def test_work_screen_refuses_a_missing_choice(snap_compare, snapshot_server: ServerProcess) -> None:
    assert snap_compare(
        app_for(snapshot_server, "worker"),
        terminal_size=(100, 30),
        run_before=steps("down", "down", "w", "enter"),
    )
