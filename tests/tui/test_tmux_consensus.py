"""A dispute decided in a real terminal (tmux), the installed command: two workers disagreed on two
tasks of a consensus queue (B21); the supervisor takes the second answer whole with `B` (a capital
arrives in tmux as it is typed, unlike alt or ctrl with a digit), decides with `enter`, edits the
other with a number key and decides it; the server then holds both decisions."""

import uuid
from collections.abc import Callable

import httpx

from tests.api.test_client_consensus import needs_b21
from tests.support import ServerProcess
from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_consensus_supervisor import NOTE, answer
from tests.tui.test_tmux_review import open_app, open_queue_row  # noqa: F401  (open_app: a fixture)
from tests.tui.test_work import CATEGORY, MESSAGE, add_tasks, qpath

pytestmark = needs_tmux


def test_a_supervisor_decides_two_disputes_by_keyboard(
    open_app: Callable[[str], Pane],  # noqa: F811
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    name = f"Tmuxdispute {uuid.uuid4().hex[:6]}"
    consensus = {"answers": 2, "max_answers": 2}
    queue = admin.post(
        f"/orgs/{org_id}/queues",
        json={"name": name, "data": [MESSAGE, CATEGORY, NOTE], "consensus": consensus},
    ).json()
    path = qpath(org_id, queue)
    first, second = add_tasks(admin, org_id, queue, [{"message": "one"}, {"message": "two"}])
    for task_id, (wes, wyn) in ((first, ("red", "blue")), (second, ("red", "blue"))):
        answer(clients["worker"], path, task_id, {"category": wes})
        answer(clients["worker2"], path, task_id, {"category": wyn, "note": f"{wyn}, surely"})

    reviewer = open_app("supervisor")
    open_queue_row(reviewer, name)
    reviewer.keys("v")
    reviewer.wait_for(f"Task {first} · disputed")
    screen = reviewer.wait_for("Take an answer")  # the footer names the keys (after its refresh)
    assert "A or B takes an answer whole" in screen and "Accept" not in screen, screen
    reviewer.keys("B")  # Wyn's answer, whole
    reviewer.wait_for("Answer B taken")
    reviewer.keys("Enter")
    reviewer.wait_for(f"Task {second} · disputed")
    reviewer.keys("e")
    reviewer.wait_for("Editing")
    reviewer.keys("3")  # Green: a number key still chooses an option
    reviewer.keys("Escape")
    reviewer.wait_for("Out of the fields")
    reviewer.keys("Enter")
    screen = reviewer.wait_for("reviewed 2")
    assert "Traceback" not in screen
    reviewer.keys("Escape")  # leaving sends what waits for the undo grace
    reviewer.wait_for("Sort")
    reviewer.keys("C-q")
    assert "QUEUEDESK-EXIT=0" in reviewer.wait_for("QUEUEDESK-EXIT=")

    decided = {t: admin.get(f"{path}/tasks/{t}").json() for t in (first, second)}
    assert [(t["status"], t["completed_by"], t["data"]["category"]) for t in decided.values()] == [
        ("completed", "sue@acme.test", "blue"),
        ("completed", "sue@acme.test", "green"),
    ]
    assert decided[first]["data"]["note"] == "blue, surely"  # the whole answer taken
    assert decided[second]["data"]["note"] is None  # Wes's answer (the earliest) had none
