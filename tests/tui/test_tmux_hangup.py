"""Closing the terminal (SIGHUP) ends the app as `ctrl+q` does, in a real terminal (tmux, the
installed command) against a real `queuedesk serve` (issue 42, finding 5): what was typed on the
task on screen is kept as its draft and both claims (the task and the one ahead) are given back at
once, not held for the whole lease. Before, SIGHUP killed the app in place."""

import time
import uuid
from collections.abc import Callable

import httpx
import pytest

from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_tmux_review import open_app, open_queue_row, still  # noqa: F401  (fixture)
from tests.tui.test_work import MESSAGE, NOTE

pytestmark = [needs_tmux, pytest.mark.tmux]


def claimed(admin: httpx.Client, qpath: str, task_ids: list[int]) -> list[int]:
    """Which of `task_ids` someone holds now."""
    return [
        task_id
        for task_id in task_ids
        if (admin.get(f"{qpath}/tasks/{task_id}").json().get("assignment") or {}).get("assigned_to")
    ]


def test_closing_the_terminal_keeps_the_typing_as_a_draft_and_gives_the_claims_back(
    open_app: Callable[[str], Pane],  # noqa: F811
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
) -> None:
    name = f"Hangup {uuid.uuid4().hex[:6]}"
    queue = admin.post(f"/orgs/{org_id}/queues", json={"name": name, "data": [MESSAGE, NOTE]}).json()
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    ids = [admin.post(f"{qpath}/tasks/create", json={"data": {"message": m}}).json()["id"] for m in "abc"]

    pane = open_app("worker")
    open_queue_row(pane, name)
    pane.keys("w")
    pane.wait_for("ctrl+n new line")  # the note has the focus
    deadline = time.monotonic() + 15
    while len(claimed(admin, qpath, ids)) < 2 and time.monotonic() < deadline:  # the one ahead too
        time.sleep(0.1)
    on_screen = next(task_id for task_id in ids if f"task {task_id}" in pane.text())
    pane.keys("-l", "half typed")
    still(pane)
    pane.ask("kill-session", "-t", pane.name)  # the terminal closes: SIGHUP to the app
    closed = time.monotonic()

    deadline = closed + 5  # (2 s asked; 5 for a loaded machine)
    while claimed(admin, qpath, ids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert claimed(admin, qpath, ids) == []
    print(f"claims given back {time.monotonic() - closed:.2f} s after the terminal closed")
    draft = worker.get(f"{qpath}/tasks/{on_screen}").json()["draft"]
    assert draft == {"note": "half typed"}
