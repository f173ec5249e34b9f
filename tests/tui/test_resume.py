"""Work left unsent when the app closed goes out as soon as the app starts again, with the server
up; the unsent count shows in the header of every screen, the queue list too; the worker is told
when such work reached the server or was refused. Against a real `queuedesk serve`; time moves only
with `clock.advance`, and the start's sending needs no time to pass at all.
"""

import uuid

import httpx
from textual.pilot import Pilot

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.queues import QueuesScreen
from queuedesk.tui.work.journal import Entry, Journal, journal_path
from queuedesk.tui.work.outbox import BACKOFF_SECONDS
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.tui.test_app import header, home, notes
from tests.tui.test_work import (  # noqa: F401  (start_server is a fixture)
    CATEGORY,
    MESSAGE,
    PAST_GRACE,
    SIZE,
    StartServer,
    add_tasks,
    advance,
    completed,
    journal_entries,
    org_of,
    qpath,
    restarted_app,
    settle,
    shown_task,
    start_server,
    start_work,
    status,
    task_on_server,
    until,
)

WES = "wes@acme.test"


def left_unsent(url: str, queue: dict, task_id: int, data: dict, *, attempts: int = 2) -> Entry:
    """The journal as an app closed with the server down leaves it: the entry unsent, tried twice."""
    entry = Entry(
        str(uuid.uuid4()),
        queue["id"],
        queue["name"],
        task_id,
        data,
        state="unsent",
        attempts=attempts,
        error="The server at http://127.0.0.1:1 did not answer (connection refused).",
    )
    Journal(journal_path(url, WES), persist=True).put(entry)
    return entry


async def test_work_left_unsent_by_a_closed_app_is_sent_at_the_next_start_without_waiting_or_quitting(
    clock: ManualClock, server: ServerProcess, clients: dict[str, httpx.Client], org_id: int
) -> None:
    admin, worker = clients["admin"], clients["worker"]
    queue, other = (make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work") for _ in range(2))
    ((first,), (second,)) = (
        add_tasks(admin, org_id, q, [{"message": m}]) for q, m in ((queue, "a"), (other, "b"))
    )
    # Both claimed by Wes in the run that closed; both answers still on his disk.
    for q, task_id in ((queue, first), (other, second)):
        assert worker.post(f"{qpath(org_id, q)}/tasks/next").json()["id"] == task_id
    left_unsent(server.url, queue, first, {"category": "blue"})
    left_unsent(server.url, other, second, {"category": "red"}, attempts=5)

    app = restarted_app("worker", server.url, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        # No time passes (the clock is never advanced): sending what waits needs no timer.
        await until(
            app,
            pilot,
            lambda: first in completed(admin, org_id, queue) and second in completed(admin, org_id, other),
            "both tasks are completed",
        )
        done = completed(admin, org_id, queue) | completed(admin, org_id, other)
        assert done[first]["data"] == {"message": "a", "category": "blue"}
        assert done[second]["data"] == {"message": "b", "category": "red"}
        assert {done[t]["completed_by"] for t in (first, second)} == {WES}
        assert journal_entries() == []
        await until(app, pilot, lambda: "unsent" not in header(app), "the header's unsent count is gone")
        (said,) = [n for n in notes(app) if n.startswith("Unsent work sent")]
        assert all(f"task {t} ({q['name']})" in said for t, q in ((first, queue), (second, other))), said
        assert app.is_running and isinstance(app.screen, QueuesScreen)  # nobody had to quit


async def test_work_left_unsent_that_the_server_now_refuses_is_reported_with_its_values_at_start(
    clock: ManualClock, server: ServerProcess, clients: dict[str, httpx.Client], org_id: int
) -> None:
    admin = clients["admin"]
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Work")
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "a"}])
    # The claim is gone (it ran out; here: never made): the task is held by nobody.
    left_unsent(server.url, queue, task_id, {"category": "green"})

    app = restarted_app("worker", server.url, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        await until(app, pilot, lambda: journal_entries()[0]["state"] == "failed", "the refusal is recorded")
        (said,) = [n for n in notes(app) if n.startswith("Submission refused")]
        assert f"Task {task_id} in {queue['name']} was not accepted" in said and "category='green'" in said, (
            said
        )
        assert "no longer yours" in said and "POST" not in said, said  # a worker's words, not the API's
        assert "unsent" not in header(app)
        assert app.is_running
    assert task_on_server(admin, org_id, queue, task_id)["status"] == "new"  # never claimed since
    assert completed(admin, org_id, queue) == {}


def own_server_with_two_tasks(
    start_server: StartServer,  # noqa: F811
) -> tuple[ServerProcess, httpx.Client, int, dict, int]:
    """A server of the test's own (it is stopped and started again), a queue with two tasks; the first's id."""
    own = start_server()
    admin = own.client("admin")
    org = org_of(admin)
    queue = make_queue(admin, org, [MESSAGE, CATEGORY], label="Work")
    first, _second = add_tasks(admin, org, queue, [{"message": "a"}, {"message": "b"}])
    return own, admin, org, queue, first


async def answer_with_the_server_down(
    app: QueueDeskApp, pilot: Pilot, clock: ManualClock, own: ServerProcess, queue: dict, first: int, key: str
) -> None:
    """Claim the first task, stop the server, choose `key` and submit; past the undo grace."""
    assert await start_work(app, pilot, queue) == first
    await shown_task(app, pilot)
    own.stop()
    await pilot.press(key, "enter")
    await advance(app, pilot, clock, PAST_GRACE)


async def test_the_queue_list_header_counts_unsent_work_until_a_retry_delivers_it(
    clock: ManualClock,
    start_server: StartServer,  # noqa: F811
) -> None:
    own, admin, org, queue, first = own_server_with_two_tasks(start_server)
    app: QueueDeskApp = restarted_app("worker", own.url, clock)
    clock = app.clock  # type: ignore[assignment]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await answer_with_the_server_down(app, pilot, clock, own, queue, first, "2")
        assert "1 unsent" in status(app) and "1 unsent" in header(app)

        await pilot.press("escape")  # back to the queue list, the server still down
        screen = await until_home(app, pilot)
        assert "1 unsent" in header(app), header(app)
        attempts = journal_entries()[0]["attempts"]

        own = start_server(like=own)
        await advance(app, pilot, clock, BACKOFF_SECONDS[min(attempts - 1, len(BACKOFF_SECONDS) - 1)])
        await until(app, pilot, lambda: not journal_entries(), "the retry delivers it")
        assert completed(admin, org, queue)[first]["data"] == {"message": "a", "category": "blue"}
        assert "unsent" not in header(app), header(app)
        (said,) = [n for n in notes(app) if n.startswith("Unsent work sent")]
        assert f"task {first}" in said, said
        assert app.screen is screen


async def until_home(app: QueueDeskApp, pilot: Pilot) -> QueuesScreen:
    await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen), "the queue list is back")
    await settle(app, pilot)
    assert isinstance(app.screen, QueuesScreen)
    return app.screen


async def test_a_new_session_takes_over_the_journal_and_the_old_one_retries_nothing(
    clock: ManualClock,
    start_server: StartServer,  # noqa: F811
) -> None:
    own, admin, org, queue, first = own_server_with_two_tasks(start_server)
    app: QueueDeskApp = restarted_app("worker", own.url, clock)
    clock = app.clock  # type: ignore[assignment]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await answer_with_the_server_down(app, pilot, clock, own, queue, first, "1")
        assert [(e["task_id"], e["state"]) for e in journal_entries()] == [(first, "unsent")]
        old = app.outbox
        assert old is not None

        # The server back, the app connects again (as after a refused key): the new session's
        # outbox reads the journal and sends it at once.
        own = start_server(like=own)
        assert app.target is not None
        await app.start_session(await app.connect(app.target))
        await until(app, pilot, lambda: not journal_entries(), "the new session sends the journal")
        assert app.outbox is not old
        attempts: list[int] = []
        real_complete = old.client.complete

        async def complete(queue_id: int, task_id: int, data: dict) -> object:
            attempts.append(task_id)
            return await real_complete(queue_id, task_id, data)

        old.client.complete = complete  # type: ignore[method-assign]  (a spy: counts, changes nothing)
        await advance(app, pilot, clock, 120)  # past every retry the old outbox had planned
        assert attempts == [] and journal_entries() == []
        assert "unsent" not in header(app)
    assert completed(admin, org, queue)[first]["data"] == {"message": "a", "category": "red"}
