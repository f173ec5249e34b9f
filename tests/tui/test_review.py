"""The review screen against a real `queuedesk serve`: a supervisor's verdicts by keyboard reach the
server (after the undo grace) exactly as given; undo takes one back; the screen opens read-only;
a server without review (B19) hides it and says why. Time moves only with `clock.advance`."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.review import ReviewScreen
from queuedesk.tui.work.outbox import UNDO_SECONDS
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import footer_line, home, notes, plain
from tests.tui.test_original_app import basic_app
from tests.tui.test_work import LABELLING, add_tasks, qpath, shown_task

SIZE = (100, 30)
PAST_GRACE = UNDO_SECONDS + 0.5


def completed_for_review(
    admin: httpx.Client, worker: httpx.Client, org: int, queue: dict, categories: list[str]
) -> list[int]:
    """Tasks created, claimed and completed by the worker over HTTP, each with its category; all are
    drawn for review (the queue reviews 100%)."""
    ids = add_tasks(admin, org, queue, [{"message": f"report {i}"} for i in range(len(categories))])
    for category in categories:
        claim = worker.post(f"{qpath(org, queue)}/tasks/next")
        assert claim.status_code == 200, claim.text
        done = worker.post(
            f"{qpath(org, queue)}/tasks/{claim.json()['id']}/complete", json={"data": {"category": category}}
        )
        assert done.status_code == 200, done.text
    return ids


def reviewed_queue(admin: httpx.Client, org: int, label: str) -> dict[str, Any]:
    """A queue of the labelling blocks whose every completion is drawn for review."""
    from tests.conftest import make_queue

    return make_queue(admin, org, LABELLING, label=label, review_percent=100)


ForReview = Callable[[str, list[str]], tuple[dict[str, Any], list[int]]]


@pytest.fixture
def for_review(admin: httpx.Client, worker: httpx.Client, org_id: int) -> ForReview:
    """`for_review(label, categories)`: a reviewed queue and its tasks, done by Wes with these."""

    def make(label: str, categories: list[str]) -> tuple[dict[str, Any], list[int]]:
        queue = reviewed_queue(admin, org_id, label)
        return queue, completed_for_review(admin, worker, org_id, queue, categories)

    return make


def reviews_on_server(client: httpx.Client, org: int, queue: dict) -> dict[int, dict[str, Any]]:
    page = client.get(f"{qpath(org, queue)}/reviews", params={"limit": 1000})
    assert page.status_code == 200, page.text
    return {t["id"]: t for t in page.json()["tasks"]}


def review_screen(app: QueueDeskApp) -> ReviewScreen:
    assert isinstance(app.screen, ReviewScreen), type(app.screen)
    return app.screen


async def shown_review(app: QueueDeskApp, pilot: Pilot, task_id: int | None = None) -> int:
    """The review of `task_id` (any) on screen, its keys live (the work screen's own test of it)."""
    found = await shown_task(app, pilot, task_id)
    review_screen(app)
    return found


async def open_review(app: QueueDeskApp, pilot: Pilot, queue: dict) -> None:
    """From home, `v` on the queue's row."""
    screen = await home(app, pilot)
    await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed")
    if screen.view.filter:
        await pilot.press("escape")
    screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
    await pilot.press("v")


def status(app: QueueDeskApp) -> str:
    return plain(review_screen(app).query_one("#work-status"))


def meta(app: QueueDeskApp) -> str:
    return plain(review_screen(app).query_one("#review-meta"))


async def test_accept_correct_and_redo_by_keyboard_reach_the_server_as_given(
    make_app: MakeApp, for_review: ForReview, admin: httpx.Client, org_id: int, clock: ManualClock
) -> None:
    queue, ids = for_review("Reviewed", ["red", "red", "green"])
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot, queue)
        first = await shown_review(app, pilot, ids[0])
        assert app.focused is None  # read-only: nothing takes the keys but the verdicts
        assert "done by Wes (wes@acme.test)" in meta(app) and "Read-only" in meta(app)
        await pilot.press("a")
        second = await shown_review(app, pilot, ids[1])
        assert "accepted" in status(app) and "reviewed 1" in status(app) and "accepted 100%" in status(app)
        await pilot.press("e", "2")  # the worker's keys: 2 picks Blue
        await until(
            app, pilot, lambda: "Changed Category: Blue (was Red)" in meta(app), "the change is shown"
        )
        await pilot.press("escape", "n", *"blue, not red", "enter")
        await until(app, pilot, lambda: "Note: blue, not red" in meta(app), "the note is shown")
        await pilot.press("enter")
        third = await shown_review(app, pilot, ids[2])
        assert "corrected" in status(app) and "accepted 50%" in status(app)
        await pilot.press("x")
        await until(app, pilot, lambda: app.screen.__class__.__name__ == "ReviewNoteScreen", "the note asked")
        await pilot.press(*"look again", "enter")
        await until(app, pilot, lambda: "sent back to be redone" in status(app), "the redo is held")
        clock.advance(PAST_GRACE)
        await settle(app, pilot)
        await until(app, pilot, lambda: len(reviews_on_server(admin, org_id, queue)) == 3, "three verdicts")
    reviews = reviews_on_server(admin, org_id, queue)
    assert reviews[first]["review"]["state"] == "accepted"
    assert reviews[second]["review"]["state"] == "corrected"
    assert reviews[second]["data"]["category"] == "blue"
    assert reviews[second]["review"]["original"]["category"] == "red"
    assert reviews[second]["review"]["note"] == "blue, not red"
    assert reviews[third]["review"]["state"] == "redone"
    assert reviews[third]["review"]["note"] == "look again"
    assert reviews[third]["review"]["redo_task_id"] is not None
    assert notes(app) == [] or all("refused" not in n for n in notes(app))


async def test_undo_takes_the_last_verdict_back_before_it_is_sent(
    make_app: MakeApp, for_review: ForReview, admin: httpx.Client, org_id: int, clock: ManualClock
) -> None:
    queue, ids = for_review("Undone", ["red", "blue"])
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot, queue)
        await shown_review(app, pilot, ids[0])
        await pilot.press("a")
        await shown_review(app, pilot, ids[1])
        await pilot.press("u")
        await shown_review(app, pilot, ids[0])
        assert "reviewed 0" in status(app)
        clock.advance(PAST_GRACE)
        await settle(app, pilot)
        assert reviews_on_server(admin, org_id, queue) == {}
        await pilot.press("escape")
        await until(app, pilot, lambda: not isinstance(app.screen, ReviewScreen), "left the review")
        await settle(app, pilot)
    held = admin.get(f"{qpath(org_id, queue)}/stats").json()
    assert held["reviews_pending"] == 2  # both given back on leaving, none judged


async def test_the_worker_sees_their_corrected_and_redone_tasks_with_the_note_and_both_values(
    make_app: MakeApp,
    for_review: ForReview,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
    clock: ManualClock,
) -> None:
    queue, ids = for_review("Learn", ["red", "red", "blue"])
    supervisor = clients["supervisor"]
    base = qpath(org_id, queue)
    verdicts = [
        {"verdict": "accept"},
        {"verdict": "correct", "data": {"category": "green"}, "note": "green: it is a plant"},
        {"verdict": "redo", "note": "read the report again"},
    ]
    for task_id, body in zip(ids, verdicts, strict=True):
        response = supervisor.post(f"{base}/tasks/{task_id}/review", json=body)
        assert response.status_code == 200, response.text
    app = make_app("worker")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await home(app, pilot)
        await until(
            app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed"
        )
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("v")  # a worker: review is not theirs, and they are told where feedback is
        await until(app, pilot, lambda: any("Feedback tab" in n for n in notes(app)), "told why")
        await pilot.press("enter")
        await until(app, pilot, lambda: bool(app.screen.query("#tab-feedback")), "the queue screen")
        await pilot.press("6")
        detail = app.screen.query_one("#feedback-detail")
        listing = app.screen.query_one("#feedback-note")
        await until(app, pilot, lambda: "2 of your tasks" in plain(listing), "the feedback is listed")
        rows = app.screen.query_one("#feedback-list")
        assert rows.row_count == 2  # type: ignore[attr-defined]  # the accepted one is not feedback
        await until(
            app, pilot, lambda: f"Task {ids[2]}: sent back to be redone" in plain(detail), "the newest first"
        )
        assert "Note: read the report again" in plain(detail) and "to be done again as task" in plain(detail)
        await pilot.press("down")
        await until(app, pilot, lambda: "Category: Green  (yours: Red)" in plain(detail), "both values")
        assert "Note: green: it is a plant" in plain(detail)

        def first_task() -> str:
            return str(rows.get_row_at(0)[0])  # type: ignore[attr-defined]

        assert first_task() == str(ids[2])  # newest verdict first
        await pilot.press("s")  # by task: the lower id first, the column marked
        await until(app, pilot, lambda: first_task() == str(ids[1]), "sorted by task")
        assert "Task ▲" in screen_text(app), screen_text(app)
        await pilot.press("s", "s", "s")  # by verdict, by reviewer, then newest verdict first again
        await until(app, pilot, lambda: first_task() == str(ids[2]), "newest first again")
        assert "When ▼" in screen_text(app)


async def test_against_the_original_service_review_is_hidden_and_v_says_why(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    app = basic_app(original, clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: str(BASIC_QUEUE) in screen.table.rows, "listed")
        assert "Review" not in footer_line(app)  # nor anywhere else: v says why
        await pilot.press("v")
        await until(app, pilot, lambda: any("it has no review" in n for n in notes(app)), "told why")
        await pilot.press("enter")
        await until(
            app, pilot, lambda: app.screen is not screen and app.screen.query("#queue-tabs"), "the queue"
        )
        await settle(app, pilot)
        assert not app.screen.query("#tab-feedback") and "Review" not in footer_line(app)
        assert not isinstance(app.screen, ReviewScreen)


async def test_the_stats_tab_shows_each_workers_verdicts_accept_rate_and_the_reviews_pending(
    make_app: MakeApp,
    for_review: ForReview,
    admin: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
    clock: ManualClock,
) -> None:
    # The server counts buckets up to its own (real) now: the app's clock a little ahead of it, so
    # the period ends after these completions whatever day the suite runs (tests/tui/test_stats_tab.py).
    clock.current = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30)
    queue, ids = for_review("Rates", ["red", "red", "red", "blue"])
    base = qpath(org_id, queue)
    for task_id, body in zip(
        ids[:3],
        [{"verdict": "accept"}, {"verdict": "correct", "data": {"category": "green"}}, {"verdict": "accept"}],
        strict=True,
    ):
        assert clients["supervisor"].post(f"{base}/tasks/{task_id}/review", json=body).status_code == 200
    app = make_app("supervisor")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await home(app, pilot)
        await until(
            app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "the queue is listed"
        )
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("enter")
        await until(app, pilot, lambda: bool(app.screen.query("#tab-stats")), "the queue screen")
        await pilot.press("4")
        summary = app.screen.query_one("#stats-summary")
        await until(app, pilot, lambda: "1 to review" in plain(summary), "the reviews pending")
        assert "67% of 3 reviewed accepted" in plain(summary)
        table = app.screen.query_one("#stats-workers")
        keys = [key.value for key in table.columns]  # type: ignore[attr-defined]
        row = dict(zip(keys, [str(cell) for cell in table.get_row("wes@acme.test")], strict=True))  # type: ignore[attr-defined]
        assert (row["reviewed"], row["verdicts"], row["rate"]) == ("3", "2 · 1 · 0", "67%"), row


async def test_the_queue_editor_sets_the_share_reviewed_refusing_more_than_100(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    from tests.conftest import make_queue
    from tests.tui.test_app import shows
    from tests.tui.test_queue_editor import open_editor, set_field

    queue = make_queue(admin, org_id, label="Sampled")
    app = make_app("admin")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        field = screen.query_one("#queue-review")
        assert field.display and field.value == "0"  # type: ignore[attr-defined]
        field.focus()
        await set_field(app, pilot, "#queue-review", "")
        await pilot.press(*"150")
        await until(app, pilot, lambda: shows(app, "whole number from 0 to 100"), "the problem is said")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["review_percent"] == 0
        await set_field(app, pilot, "#queue-review", "")
        await pilot.press(*"25")
        await until(app, pilot, lambda: shows(app, "25% of completions reviewed"), "the summary says it")
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved")
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["review_percent"] == 25


async def test_a_long_queue_name_gives_way_on_the_status_line_at_80_columns(
    make_app: MakeApp, for_review: ForReview
) -> None:
    queue, ids = for_review("Moderation of the photos sent in by the customers of the north", ["red"] * 2)
    app = make_app("supervisor")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(app, pilot, queue)
        await shown_review(app, pilot, ids[0])
        await until(app, pilot, lambda: "left 2" in status(app), "the reviews left are counted")
        first_line = status(app).splitlines()[0]
        assert len(first_line) <= 80 - 2, first_line  # the status line's padding
        assert first_line.startswith("Moderation of") and "… / review · task" in first_line, first_line
        assert first_line.endswith("left 2"), first_line


async def test_quitting_sends_the_verdict_held_and_gives_the_review_on_screen_back(
    make_app: MakeApp, for_review: ForReview, admin: httpx.Client, org_id: int
) -> None:
    """The app leaves a review screen as it leaves a work screen when it quits (`_leave_work`): the
    verdict waiting out its grace is sent, and the review held is given back for others."""
    queue, ids = for_review("Quit while reviewing", ["red", "red"])
    app = make_app("supervisor")
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot, queue)
        await shown_review(app, pilot, ids[0])
        await pilot.press("a")
        await shown_review(app, pilot, ids[1])
        await pilot.press("ctrl+q")
        await until(app, pilot, lambda: not app.is_running, "the app quits")
    assert reviews_on_server(admin, org_id, queue)[ids[0]]["review"]["state"] == "accepted"
    claimed = admin.post(f"{qpath(org_id, queue)}/reviews/next")
    assert claimed.status_code == 200 and claimed.json()["id"] == ids[1], claimed.text
