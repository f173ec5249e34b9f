"""The worker's loop in a consensus queue (B21), against a real `queuedesk serve`: nothing shows
another's answer, an answer that leaves its task collecting is "recorded", not "done", and with
nothing to claim the screen says the worker's answers wait for others, not that the queue is empty."""

import httpx

from queuedesk.tui.clock import ManualClock
from tests.api.test_client_consensus import needs_b21
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_work import (
    CATEGORY,
    MESSAGE,
    PAST_GRACE,
    SIZE,
    add_tasks,
    advance,
    form_of,
    qpath,
    shown_task,
    start_work,
    status,
    waiting_text,
)


async def test_answers_are_blind_recorded_and_waiting_for_others_is_said(
    make_app: MakeApp,
    clock: ManualClock,
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    queue = make_queue(
        admin, org_id, [MESSAGE, CATEGORY], label="Blind", consensus={"answers": 2, "max_answers": 3}
    )
    first, second = add_tasks(admin, org_id, queue, [{"message": "one"}, {"message": "two"}])
    wyn, path = clients["worker2"], qpath(org_id, queue)
    for task_id in (first, second):  # another worker answered both first: red
        assert wyn.post(f"{path}/tasks/next").json()["id"] == task_id
        done = wyn.post(f"{path}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
        assert done.status_code == 200 and done.json()["status"] == "open", done.text
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        assert form_of(app).values()["category"] is None  # the other's answer is not shown
        assert "answers recorded 0 · done 0 · skipped 0" in status(app)
        await pilot.press("2", "enter")  # blue: they disagree, the task waits for a third answer
        assert await shown_task(app, pilot, second) == second
        assert form_of(app).values()["category"] is None
        assert "answers recorded 1 · done 0" in status(app) and "done 1" not in status(app)
        await advance(app, pilot, clock, PAST_GRACE)
        await until(app, pilot, lambda: "answer recorded" in status(app), "the answer is said to be recorded")
        assert f"Task {first}: answer recorded. It is done once enough workers agree." in status(app)
        await pilot.press("1", "enter")  # red: two of two agree, the task is done
        await until(app, pilot, lambda: waiting_text(app), "the screen says why there is no task")
        said = waiting_text(app)
        assert "1 of your answers waits for other workers" in said and "empty" not in said, said
        await advance(app, pilot, clock, PAST_GRACE)
        await until(app, pilot, lambda: f"Task {second} sent." in status(app), "the last answer is sent")
        assert "answers recorded 1 · done 1 · skipped 0" in status(app)
        await settle(app, pilot)
    task = admin.get(f"{path}/tasks/{second}").json()
    assert (task["status"], task["completed_by"], task["data"]["category"]) == (
        "completed",
        "wyn@acme.test",
        "red",
    )
    assert admin.get(f"{path}/tasks/{first}").json()["consensus"]["state"] == "collecting"
