"""The demo's parts on their own: its data, its move to now, its lock, its side server, the web
session's environment and journal."""

import asyncio
import io
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from PIL import Image

from queuedesk.demo import data
from queuedesk.demo.content import IMAGE_BASE_PLACEHOLDER
from queuedesk.demo.images import PICTURES, number_of, picture
from queuedesk.demo.side_server import FAIL_EVERY, SideServer
from queuedesk.demo.state import DemoFiles, DemoLock, running_demo
from queuedesk.server.store.database import run_once
from queuedesk.tui.work.journal import Entry, Journal
from queuedesk.web import session_environment

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)
HOUR_MICROS = 3_600 * 1_000_000


def build(path: Path, now: datetime = NOW) -> data.Built:
    return asyncio.run(run_once(f"sqlite:///{path}", data.build, now))


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_the_data_is_the_same_for_the_same_moment_and_its_counters_are_right(tmp_path: Path) -> None:
    built = build(tmp_path / "a.db")
    build(tmp_path / "b.db")
    assert (built.pending, built.completed) == (sum(data.PENDING.values()), sum(data.COMPLETED.values()))
    assert built.deliveries > 20
    every_task = (
        "SELECT id, queue_id, status, data, created_at, completed_at, completed_by FROM tasks ORDER BY id"
    )
    assert rows(tmp_path / "a.db", every_task) == rows(tmp_path / "b.db", every_task)
    counters = rows(
        tmp_path / "a.db",
        "SELECT q.n_tasks, (SELECT count(*) FROM tasks t WHERE t.queue_id = q.id AND t.status = 'new'), "
        "q.completed_count, (SELECT count(*) FROM tasks t WHERE t.queue_id = q.id AND t.status = 'completed') "
        "FROM queues q",
    )
    assert len(counters) == 3 and all(row[0] == row[1] and row[2] == row[3] for row in counters)
    # The history covers the last day, ends just before now, and is done by several people.
    first, last = rows(tmp_path / "a.db", "SELECT min(completed_at), max(completed_at) FROM tasks")[0]
    now = int(NOW.timestamp() * 1_000_000)
    assert now - 24 * HOUR_MICROS <= first and now - HOUR_MICROS < last < now
    assert (
        len(rows(tmp_path / "a.db", "SELECT DISTINCT completed_by FROM tasks WHERE completed_by IS NOT NULL"))
        >= 5
    )
    roles = {role for (role,) in rows(tmp_path / "a.db", "SELECT DISTINCT role FROM users")}
    assert roles == {"admin", "supervisor", "worker"}


def test_bringing_to_now_shifts_every_time_points_links_at_the_side_server_and_frees_colleagues(
    tmp_path: Path,
) -> None:
    path = tmp_path / "demo.db"
    build(path)
    db_url = f"sqlite:///{path}"
    asyncio.run(
        run_once(db_url, data.bring_to_now, timedelta(0), IMAGE_BASE_PLACEHOLDER, "http://127.0.0.1:4001")
    )
    priya = rows(path, "SELECT id FROM users WHERE email = 'priya@demo.test'")[0][0]
    noor = rows(path, "SELECT id FROM users WHERE email = 'noor@demo.test'")[0][0]
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE tasks SET status = 'in_progress', assigned_to = ?, assigned_at = 1, lease_expires_at = 2 "
            "WHERE id = (SELECT min(id) FROM tasks WHERE status = 'new')",
            (priya,),
        )
        db.execute(  # the simulated reviewer held a review when the demo was killed
            "INSERT INTO reviews (task_id, queue_id, state, reviewer_id, claimed_at, lease_expires_at) "
            "SELECT id, queue_id, 'in_review', ?, 1, 2 FROM tasks WHERE status = 'completed' "
            "AND id NOT IN (SELECT task_id FROM reviews) LIMIT 1",
            (noor,),
        )
    before = rows(path, "SELECT max(completed_at), min(created_at) FROM tasks")[0]
    asyncio.run(
        run_once(
            db_url, data.bring_to_now, timedelta(hours=5), "http://127.0.0.1:4001", "http://127.0.0.1:5002"
        )
    )
    after = rows(path, "SELECT max(completed_at), min(created_at) FROM tasks")[0]
    assert [a - b for a, b in zip(after, before, strict=True)] == [5 * HOUR_MICROS] * 2
    assert rows(path, "SELECT count(*) FROM tasks WHERE data LIKE '%127.0.0.1:4001%'") == [(0,)]
    assert (
        rows(path, "SELECT count(*) FROM tasks WHERE data LIKE '%http://127.0.0.1:5002/images/%'")[0][0] > 100
    )
    assert rows(path, "SELECT DISTINCT webhook_target FROM queues WHERE webhook_target IS NOT NULL") == [
        ("http://127.0.0.1:5002/webhook",)
    ]
    assert rows(path, "SELECT count(*) FROM tasks WHERE status = 'in_progress'") == [(0,)]
    assert rows(path, "SELECT count(*) FROM reviews WHERE state = 'in_review'") == [(0,)]
    assert rows(path, "SELECT count(*) FROM reviews WHERE state = 'pending' AND reviewer_id IS NOT NULL") == [
        (0,)
    ]


def test_the_lock_tells_a_running_demo_and_lets_go_when_released(tmp_path: Path) -> None:
    files = DemoFiles(tmp_path)
    assert running_demo(files) is None
    lock = DemoLock(files)
    assert lock.take()
    lock.announce("http://127.0.0.1:4321")
    found = running_demo(files)
    assert found is not None and found.url == "http://127.0.0.1:4321"
    assert not DemoLock(files).take()  # a second demo cannot take it (nor wipe the database)
    lock.release()
    assert running_demo(files) is None
    assert DemoLock(files).take()


def test_pictures_are_pngs_and_the_side_server_serves_them_and_answers_webhooks() -> None:
    assert number_of("photo-3.png") == 3 and number_of(f"photo-{PICTURES}.png") is None
    assert number_of("../photo-3.png") is None
    assert picture(3) == picture(3) != picture(4)

    async def run() -> None:
        side = SideServer(slow_seconds=0)
        await side.start()
        try:
            async with httpx.AsyncClient(base_url=side.base_url) as client:
                image = await client.get("/images/photo-5.png")
                assert image.status_code == 200 and image.headers["content-type"] == "image/png"
                assert (await client.get("/images/photo-99.png")).status_code == 404
                assert (await client.get("/etc/passwd")).status_code == 404
                codes = [
                    (await client.post("/webhook", json={"n": n})).status_code for n in range(FAIL_EVERY)
                ]
                assert codes == [200] * (FAIL_EVERY - 1) + [503]
        finally:
            await side.stop()
        return image.content

    content = asyncio.run(run())
    with Image.open(io.BytesIO(content)) as opened:
        assert opened.size == (160, 112)


def test_a_web_session_gets_none_of_the_hosts_connection() -> None:
    host = {
        "QUEUEDESK_TOKEN": "secret",
        "QUEUEDESK_URL": "https://x",
        "QUEUEDESK_PROFILE": "work",
        "PATH": "/bin",
    }
    environment = session_environment(host, "http://127.0.0.1:9")
    assert "QUEUEDESK_TOKEN" not in environment and "QUEUEDESK_URL" not in environment
    assert "QUEUEDESK_PROFILE" not in environment and environment["PATH"] == "/bin"
    assert (
        environment["QUEUEDESK_WEB_SESSION"] == "1" and environment["QUEUEDESK_IMAGE_RENDERER"] == "halfcell"
    )
    assert environment["QUEUEDESK_WEB_SERVER_URL"] == "http://127.0.0.1:9"


def test_a_web_session_journal_stays_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUEUEDESK_WEB_SESSION", "1")
    journal = Journal(tmp_path / "journal" / "x.json")
    journal.put(Entry(id="1", queue_id=1, queue_name="Q", task_id=7, data={"a": 1}))
    assert journal.in_state("held") and not (tmp_path / "journal").exists()
    monkeypatch.delenv("QUEUEDESK_WEB_SESSION")
    Journal(tmp_path / "journal" / "x.json").put(
        Entry(id="1", queue_id=1, queue_name="Q", task_id=7, data={})
    )
    assert (tmp_path / "journal" / "x.json").exists()


def test_the_history_has_reviews_of_a_fifth_of_it(tmp_path: Path) -> None:
    """The drawn fifth of the history: checked by the simulated reviewer (slips corrected), the last
    minutes' still pending; so the stats show accept rates from the demo's first start."""
    path = tmp_path / "demo.db"
    build(path)
    noor = rows(path, "SELECT id FROM users WHERE email = 'noor@demo.test'")[0][0]
    drawn = rows(
        path,
        "SELECT r.task_id, r.state, r.reviewer_id, r.original, t.data FROM reviews r JOIN tasks t ON t.id = r.task_id",
    )
    completed = rows(path, "SELECT id FROM tasks WHERE status = 'completed'")
    assert {task_id for task_id, *_ in drawn} == {
        task_id for (task_id,) in completed if task_id * 2654435761 % 2**32 % 100 < 20
    }
    states = [state for _, state, *_ in drawn]
    assert states.count("accepted") > 10 * states.count("corrected") > 0 and "pending" in states
    for _, state, reviewer, original, values in drawn:
        assert reviewer == (None if state == "pending" else noor)
        assert (original is not None) == (state == "corrected")
        if original is not None:
            assert json.loads(original) != json.loads(values)
