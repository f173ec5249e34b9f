"""Consensus (B21) for supervisors and admins, against a real `queuedesk serve`: the queue editor sets
it and says what it means; the Pending tab says each task's answers and filters the disputed ones;
the task view shows every answer; the Stats tab each worker's agreement; and the review loop serves
a dispute first, its form filled with the most common answers, a capital letter taking one answer
whole and `enter` deciding it (a reviewer who answered it is told why it was refused)."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.keys import KeysScreen
from queuedesk.tui.modals.task import TaskScreen
from queuedesk.tui.panes.pending_view import PendingView
from tests.api.test_client_consensus import needs_b21
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import app_for, screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, notes, plain, shows
from tests.tui.test_queue_editor import open_editor, set_field
from tests.tui.test_review import meta, open_review, review_screen, shown_review
from tests.tui.test_work import CATEGORY, MESSAGE, PAST_GRACE, add_tasks, advance, qpath

SIZE = (120, 40)
NOTE = {"id": "note", "name": "Note", "type": "text"}


def answer(client: httpx.Client, path: str, task_id: int, data: dict[str, Any]) -> None:
    """`client`'s worker claims `task_id` (the next it is given) and answers it."""
    claimed = client.post(f"{path}/tasks/next")
    assert claimed.status_code == 200 and claimed.json()["id"] == task_id, claimed.text
    done = client.post(f"{path}/tasks/{task_id}/complete", json={"data": data})
    assert done.status_code == 200, done.text


def consensus_queue(admin: httpx.Client, org_id: int, label: str, **consensus: Any) -> dict:
    return make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label=label, consensus=consensus)


async def test_the_editor_sets_consensus_says_what_it_means_and_turns_it_off(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs_b21(server)
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Agreeing")
    path = qpath(org_id, queue)
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        assert shows(app, "No consensus: one answer completes a task.")
        screen.query_one("#consensus-on").toggle()  # type: ignore[attr-defined]
        await settle(app, pilot)
        await set_field(app, pilot, "#consensus-answers", "1")
        problem = screen.query_one("#consensus-problem-answers")
        assert problem.display and "from 2 to 10" in plain(problem)  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.focused is screen.query_one("#consensus-answers")  # nothing sent: its field
        await set_field(app, pilot, "#consensus-answers", "2")
        await set_field(app, pilot, "#consensus-max_answers", "3")
        said = plain(screen.query_one("#consensus-meaning"))  # type: ignore[arg-type]
        assert said.startswith(
            "Each task is answered by 2 workers, a third when they disagree; a task the third"
        )
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved")
        held = admin.get(path).json()["consensus"]
        assert held == {"answers": 2, "max_answers": 3, "agreement": 0.5, "blocks": ["category"]}

        screen = await open_editor(app, pilot, "E", queue["id"])
        assert screen.edit.consensus.on and screen.edit.consensus.max_answers == "3"
        screen.query_one("#consensus-on").toggle()  # type: ignore[attr-defined]
        await settle(app, pilot)
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved again")
    assert admin.get(path).json()["consensus"] is None


async def test_pending_says_each_tasks_answers_filters_disputes_and_the_task_view_shows_them(
    make_app: MakeApp,
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    queue = consensus_queue(admin, org_id, "Pending answers", answers=2, max_answers=2)
    path = qpath(org_id, queue)
    disputed, collecting = add_tasks(admin, org_id, queue, [{"message": "one"}, {"message": "two"}])
    answer(clients["worker"], path, disputed, {"category": "red"})
    answer(clients["worker2"], path, disputed, {"category": "blue"})  # two of two disagree: disputed
    answer(clients["worker"], path, collecting, {"category": "green", "note": "looks green"})
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("enter")
        await until(app, pilot, lambda: app.screen.query(PendingView), "the queue screen")
        pending = app.screen.query_one(PendingView)
        await until(app, pilot, lambda: len(pending.table.items) == 2, "both tasks listed")
        text = screen_text(app)
        assert "disputed" in text and "1/2 answers" in text, text
        await pilot.press("c")  # collecting only
        await until(app, pilot, lambda: [t.id for t in pending.table.items] == [collecting], "collecting")
        await pilot.press("c")  # disputed only
        await until(app, pilot, lambda: [t.id for t in pending.table.items] == [disputed], "disputed")
        assert shows(app, "Only disputed tasks")
        pending.table.focus()
        await pilot.press("enter")  # the task view: both answers, who gave them, the agreement
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the task view")
        await until(app, pilot, lambda: app.screen.query_one("#task-answers").display, "its answers")
        answers = plain(app.screen.query_one("#task-answers"))  # type: ignore[arg-type]
        assert "Answers (2): disputed" in answers and "Category (50%)" in answers, answers
        assert "Wes" in answers and "Wyn" in answers and "Red" in answers and "Blue" in answers, answers


async def test_review_serves_a_dispute_first_filled_with_the_earliest_answer_and_decides_it(
    make_app: MakeApp,
    clock: ManualClock,
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    queue = consensus_queue(admin, org_id, "Decided", answers=2, max_answers=2)
    path = qpath(org_id, queue)
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "which colour?"}])
    answer(clients["worker"], path, task_id, {"category": "red", "note": "reddish"})
    answer(clients["worker2"], path, task_id, {"category": "blue", "note": "blue to me"})
    app = make_app("supervisor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_review(app, pilot, queue)
        assert await shown_review(app, pilot, task_id) == task_id
        form = review_screen(app).form
        assert form is not None
        # One answer each: the tie goes to the earliest, Wes's.
        assert form.values()["category"] == "red" and form.values()["note"] == "reddish"
        said = meta(app)
        assert "disputed: its 2 answers did not agree" in said, said
        assert "A or B takes an answer whole" in said and "Category (50%)" in said, said
        await pilot.press("f1")  # the keys screen names the answer keys
        await until(app, pilot, lambda: isinstance(app.screen, KeysScreen), "the keys screen")
        listed = plain(app.screen.query_one("#keys-table"))  # type: ignore[arg-type]
        assert "Take answer A" in listed and "Take answer B" in listed and "Take answer C" not in listed
        assert "Accept" not in listed, listed
        await pilot.press("escape")
        await until(app, pilot, lambda: review_screen(app).ready, "back on the review")
        await pilot.press("a")  # accept is no verdict for a dispute: nothing happens
        assert review_screen(app).current is not None and review_screen(app).current.id == task_id  # type: ignore[union-attr]
        await pilot.press("B")  # Wyn's answer, whole
        assert form.values()["category"] == "blue" and form.values()["note"] == "blue to me"
        await pilot.press("enter")
        await until(app, pilot, lambda: "decided: sent in 5 s" in plain(review_screen(app).status), "held")
        await advance(app, pilot, clock, PAST_GRACE)
        decided = lambda: admin.get(f"{path}/tasks/{task_id}").json()["status"] == "completed"  # noqa: E731
        await until(app, pilot, decided, "the decision reached the server")
    task = admin.get(f"{path}/tasks/{task_id}").json()
    assert (task["status"], task["completed_by"], task["data"]["category"], task["data"]["note"]) == (
        "completed",
        "sue@acme.test",
        "blue",
        "blue to me",
    )
    assert task["review"]["state"] == "decided" and task["consensus"]["state"] == "decided"


async def test_deciding_a_dispute_you_answered_is_refused_in_words(
    make_app: MakeApp,
    clock: ManualClock,
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    queue = consensus_queue(admin, org_id, "Own answer", answers=2, max_answers=2)
    path = qpath(org_id, queue)
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "which colour?"}])
    answer(admin, path, task_id, {"category": "red"})  # the admin answered it as a worker
    answer(clients["worker"], path, task_id, {"category": "blue"})
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_review(app, pilot, queue)
        await shown_review(app, pilot, task_id)
        await pilot.press("enter")
        await advance(app, pilot, clock, PAST_GRACE)
        await until(app, pilot, lambda: any(f"Task {task_id}" in n for n in notes(app)), "the refusal")
        said = " ".join(n for n in notes(app) if f"Task {task_id}" in n)
        assert "was not accepted" in said and "answered" in said, said
    assert admin.get(f"{path}/tasks/{task_id}").json()["consensus"]["state"] == "disputed"


async def test_stats_show_each_workers_agreement_and_the_disputed_count(
    make_app: MakeApp,
    server: ServerProcess,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
) -> None:
    needs_b21(server)
    queue = consensus_queue(admin, org_id, "Agreement", answers=2, max_answers=2)
    path = qpath(org_id, queue)
    settled, disputed = add_tasks(admin, org_id, queue, [{"message": "one"}, {"message": "two"}])
    answer(clients["worker"], path, settled, {"category": "red"})
    answer(clients["worker2"], path, settled, {"category": "red"})
    answer(clients["worker"], path, disputed, {"category": "red"})
    answer(clients["worker2"], path, disputed, {"category": "green"})
    if "disputed" not in admin.get(f"{path}/stats").json():
        pytest.skip("the server's stats do not count consensus (B21) yet")
    # The server counts its period up to its own, real now: the app's clock stands there too.
    now = ManualClock(datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30))
    app: QueueDeskApp = app_for(server, "supervisor", clock=now)
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("enter", "4")
        await until(app, pilot, lambda: "disputed" in plain(app.screen.query_one("#stats-summary")), "stats")  # type: ignore[arg-type]
        assert "1 disputed" in plain(app.screen.query_one("#stats-summary"))  # type: ignore[arg-type]
        table = app.screen.query_one("#stats-workers")
        rows = {
            str(key.value): [str(c) for c in table.get_row(key)]  # type: ignore[attr-defined]
            for key in table.rows  # type: ignore[attr-defined]
        }
        keys = [str(c.value) for c in table.columns]  # type: ignore[attr-defined]
        wes = dict(zip(keys, rows["wes@acme.test"], strict=True))
        assert (wes["answers"], wes["agreement"]) == ("2", "50%"), wes
        await pilot.press("2")  # the history: the settled task's view reads its answers (B3)
        history = app.screen.history  # type: ignore[attr-defined]
        await until(app, pilot, lambda: history.row_count > 0 and not history.busy, "the history")
        history.focus()
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, TaskScreen), "the task view")
        await until(app, pilot, lambda: app.screen.query_one("#task-answers").display, "its answers")
        answers = plain(app.screen.query_one("#task-answers"))  # type: ignore[arg-type]
        assert "Answers (2): settled" in answers and "Category (100%)" in answers, answers
