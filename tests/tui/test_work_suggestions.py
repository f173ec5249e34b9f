"""Suggestions (B23) on the work screen against a real `queuedesk serve`: pre-filled and marked,
`enter` on an untouched form accepts them all (also from a multi-line field), a changed value is
marked as changed and `ctrl+r` puts the suggestion back, keys in a burst keep their order, and the
server records the outcome. Helpers from `test_work`."""

from typing import Any

import httpx
from textual.widgets import TextArea

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.suggested import RESTORE_KEY
from tests.conftest import make_queue
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import notes
from tests.tui.test_work import (
    CATEGORY,
    MESSAGE,
    NOTE,
    PAST_GRACE,
    SIZE,
    advance,
    form_of,
    qpath,
    shown_task,
    start_work,
    status,
    task_on_server,
)
from tests.tui.test_work_bursts import burst

MULTI_LINE = "Dear customer,\nthe parcel left today."


def offer(value: Any, agent: str = "triage-model", score: float | None = 0.92) -> dict[str, Any]:
    return {"value": value, "agent": agent, "score": score}


def suggested_tasks(admin: httpx.Client, org: int, queue: dict, items: list[tuple[str, dict]]) -> list[int]:
    ids = []
    for message, suggestions in items:
        body = {"data": {"message": message}, "suggestions": suggestions}
        response = admin.post(f"{qpath(org, queue)}/tasks/create", json=body)
        assert response.status_code == 200, response.text
        ids.append(response.json()["id"])
    return ids


def outcome(admin: httpx.Client, org: int, queue: dict, task_id: int) -> dict[str, str] | None:
    return task_on_server(admin, org, queue, task_id)["suggestion_outcome"]


async def test_enter_accepts_every_suggestion_one_key_a_task_and_the_server_says_accepted(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Suggested")
    both = {"category": offer("blue"), "note": offer(MULTI_LINE, "reply-writer", None)}
    ids = suggested_tasks(admin, org_id, queue, [(f"report {i}", both) for i in range(3)])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == ids[0]
        form = form_of(app)
        category, note = form.editor("category"), form.editor("note")
        assert category is not None and note is not None
        assert form.values() == {"category": "blue", "note": MULTI_LINE}  # pre-filled
        assert category.has_class("-suggested") and not category.has_class("-changed")
        assert "suggested by triage-model · 92%" in str(category.query_one(".editor-suggestion").render())
        assert "suggested by reply-writer" in str(note.query_one(".editor-suggestion").render())
        for task_id in ids[1:]:
            await pilot.press("enter")  # the one key of the task
            assert await shown_task(app, pilot, task_id) == task_id
        # the last one from inside the multi-line note: enter accepts there too while untouched
        await pilot.press("tab")
        assert isinstance(app.focused, TextArea)
        await pilot.press("enter")
        await until(app, pilot, lambda: "done 3" in status(app), "the third task is sent")
        await advance(app, pilot, clock, PAST_GRACE)
    for task_id in ids:
        assert outcome(admin, org_id, queue, task_id) == {"category": "accepted", "note": "accepted"}


async def test_a_changed_value_is_marked_and_ctrl_r_puts_the_suggestion_back(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Suggested")
    (first, second) = suggested_tasks(
        admin,
        org_id,
        queue,
        [("a", {"category": offer("blue"), "note": offer(MULTI_LINE)}), ("b", {"category": offer("red")})],
    )
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        form = form_of(app)
        category = form.editor("category")
        assert category is not None
        await pilot.press("1")  # red, not the suggested blue
        await settle(app, pilot, 1)
        assert category.has_class("-changed") and not category.has_class("-suggested")
        line = str(category.query_one(".editor-suggestion").render())
        assert "changed · suggested “Blue”" in line and f"{RESTORE_KEY} restores" in line
        await pilot.press(RESTORE_KEY)
        await settle(app, pilot, 1)
        assert form.values()["category"] == "blue" and category.has_class("-suggested")
        await pilot.press(RESTORE_KEY)  # nothing to put back: said
        await settle(app, pilot, 1)
        assert any("holds its suggestion already" in n for n in notes(app))
        # the note: typed into, then enter is a new line (the form is no longer untouched)
        await pilot.press("tab", *"PS", "enter")
        await settle(app, pilot, 1)
        assert form.values()["note"] == MULTI_LINE + "PS\n"
        assert "done 0" in status(app)
        await pilot.press(RESTORE_KEY, "enter")  # back as suggested: untouched again, enter sends
        await until(app, pilot, lambda: "done 1" in status(app), "the task is sent")
        assert await shown_task(app, pilot, second) == second
        await pilot.press("2", "enter")  # changed: blue for the suggested red
        await until(app, pilot, lambda: "done 2" in status(app), "the second task is sent")
        await advance(app, pilot, clock, PAST_GRACE)
    assert outcome(admin, org_id, queue, first) == {"category": "accepted", "note": "accepted"}
    assert outcome(admin, org_id, queue, second) == {"category": "changed"}
    assert task_on_server(admin, org_id, queue, second)["data"]["category"] == "blue"


async def test_ctrl_r_without_a_suggestion_is_refused_out_loud(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY, NOTE], label="Suggested")
    first, _second = suggested_tasks(admin, org_id, queue, [("a", {"category": offer("blue")}), ("b", {})])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        await pilot.press("tab", RESTORE_KEY)  # the note had no suggestion
        await settle(app, pilot, 1)
        assert any("Note had no suggestion" in n for n in notes(app)), notes(app)
        await pilot.press("shift+tab", "enter")
        await shown_task(app, pilot)
        assert form_of(app).values() == {"category": None, "note": None}  # no suggestion, nothing pre-filled
        await pilot.press(RESTORE_KEY)
        await settle(app, pilot, 1)
        assert any("This task has no suggestions" in n for n in notes(app)), notes(app)


async def test_keys_in_a_burst_around_enter_in_a_multi_line_suggestion_keep_their_order(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, NOTE], label="Suggested")
    first, second = suggested_tasks(admin, org_id, queue, [("a", {"note": offer(MULTI_LINE)}), ("b", {})])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == first
        assert isinstance(app.focused, TextArea)
        # "x" changes the note before the enter is decided: the enter is the new line it was typed as
        burst(app, "x", "enter", "y", RESTORE_KEY, "z")
        await until(
            app, pilot, lambda: form_of(app).values()["note"] == MULTI_LINE + "z", "the restore in its place"
        )
        assert "done 0" in status(app)
        burst(app, RESTORE_KEY, "enter")  # back as suggested before the enter: untouched, it sends
        await until(app, pilot, lambda: "done 1" in status(app), "the task is sent")
        await shown_task(app, pilot, second)
        await advance(app, pilot, clock, PAST_GRACE)
    done = task_on_server(admin, org_id, queue, first)
    assert done["data"]["note"] == MULTI_LINE
    assert done["suggestion_outcome"] == {"note": "accepted"}
