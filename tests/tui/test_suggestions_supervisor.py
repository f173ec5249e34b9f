"""Suggestions (B23) for supervisors against a real server: the Stats tab's acceptance per agent, and
the history's task view with what was suggested beside what was recorded."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from textual.widgets import Static

from queuedesk.api.models import Task
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.task import TaskScreen
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import claim, open_queue, plain, qpath
from tests.tui.test_stats_tab import open_stats


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30))


def offer(value: object, agent: str, score: float | None = 0.9) -> dict:
    return {"value": value, "agent": agent, "score": score}


def suggested_and_done(admin: httpx.Client, worker: httpx.Client, org: int, queue: dict) -> list[dict]:
    """Three tasks with suggestions, completed: model-a right twice of three, rule-1 right once."""
    done = []
    for category, suggestions in (
        ("red", {"category": offer("red", "model-a"), "paragraph": offer("kept", "rule-1", None)}),
        ("blue", {"category": offer("blue", "model-a")}),
        ("green", {"category": offer("red", "model-a", 0.4)}),
    ):
        body = {"data": {}, "suggestions": suggestions}
        body["data"] = {"paragraph": "kept"} if "paragraph" in suggestions else {"paragraph": "x"}
        made = admin.post(f"{qpath(org, queue)}/tasks/create", json=body)
        assert made.status_code == 200, made.text
        task = claim(worker, org, queue)
        assert task["id"] == made.json()["id"]
        finished = worker.post(
            f"{qpath(org, queue)}/tasks/{task['id']}/complete", json={"data": {"category": category}}
        )
        assert finished.status_code == 200, finished.text
        done.append(finished.json())
    return done


async def test_the_stats_tab_shows_each_agents_acceptance(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Suggested")
    suggested_and_done(admin, worker, org_id, queue)
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        view = await open_stats(app, pilot, queue["id"])
        agents = view.query_one("#stats-agents", Static)
        assert agents.display
        lines = plain(agents).splitlines()
        assert lines[0].startswith("✦ rule-1 ") and "100% accepted · 1 of 1 suggested" in lines[0], lines
        assert lines[1].startswith("✦ model-a") and "67% accepted · 2 of 3 suggested" in lines[1], lines


async def test_the_task_view_shows_what_was_suggested_beside_what_was_recorded(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    queue = fresh("Suggested")
    last = suggested_and_done(admin, worker, org_id, queue)[-1]
    app = make_app("supervisor")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        assert screen.detail is not None
        app.push_screen(
            TaskScreen(screen.detail, Task.model_validate({k: last[k] for k in Task.model_fields}))
        )
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, TaskScreen) and bool(app.screen.query("#task-values")),
            "the task view opens",
        )
        values = app.screen.query_one("#task-values", Static)
        await until(app, pilot, lambda: "Suggested" in plain(values), "the suggestions are read")
        await settle(app, pilot)
        shown = plain(values)
        assert "Green" in shown and "Red" in shown  # recorded beside suggested
        assert "✦ model-a · 40%" in shown and "changed" in shown
