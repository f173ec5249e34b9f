"""A miss read in a real terminal (tmux), the installed command: a worker answers a queue with a gold
share (B22), its one task gold, misses it on purpose (Blue where Red is known) with nothing on the
screen telling it apart before, then reads the miss in the Feedback tab: the known value beside theirs."""

import uuid
from collections.abc import Callable

import httpx

from tests.api.test_client_gold import needs_b22
from tests.support import ServerProcess
from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_tmux_review import open_app, open_queue_row  # noqa: F401  (open_app: a fixture)
from tests.tui.test_work import CATEGORY, MESSAGE, qpath

pytestmark = needs_tmux


def test_a_worker_misses_a_gold_task_and_reads_the_miss(
    open_app: Callable[[str], Pane],  # noqa: F811
    server: ServerProcess,
    admin: httpx.Client,
    org_id: int,
) -> None:
    needs_b22(server)
    name = f"Tmuxmiss {uuid.uuid4().hex[:6]}"  # a name without "gold": the screen is searched for it
    queue = admin.post(
        f"/orgs/{org_id}/queues", json={"name": name, "data": [MESSAGE, CATEGORY], "review_percent": 10}
    ).json()
    path = qpath(org_id, queue)
    admin.patch(path, json={"gold_percent": 10}).raise_for_status()
    made = admin.post(
        f"{path}/tasks/create", json={"data": {"message": "A ripe tomato"}, "gold": {"category": "red"}}
    )
    assert made.status_code == 200, made.text

    worker = open_app("worker")
    open_queue_row(worker, name)
    worker.keys("Enter")
    worker.wait_for("Feedback")
    worker.keys("w")
    screen = worker.wait_for("A ripe tomato")  # only gold is left: it is served, like any task
    assert "gold" not in screen.lower() and "known answer" not in screen.lower(), screen
    worker.keys("2")  # Blue
    worker.keys("Enter")
    worker.keys("Escape")  # leaving sends what waits for the undo grace
    worker.wait_for("Feedback")
    worker.keys("6")
    worker.wait_for("1 of your answers missed a known answer")
    screen = worker.wait_for("Category: Red  (yours: Blue)")
    assert "Traceback" not in screen
    worker.keys("C-q")
    assert "QUEUEDESK-EXIT=0" in worker.wait_for("QUEUEDESK-EXIT=")
    answers = admin.get(f"{path}/gold/answers").json()["answers"]
    assert [(a["correct"], a["wrong"]) for a in answers] == [(False, ["category"])]
