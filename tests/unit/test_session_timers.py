"""The sessions' timers and ticks without a screen (`WorkSession.timers`, `tick`, `beat_later`,
`poll_later`; the review's count of what is left), and the review's verdict rules that need a session.
Time is a list of timers the test fires by hand. No server, no Textual."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from queuedesk.api.models import AssignedTask, Assignment, Block
from queuedesk.tui.review import review_session
from queuedesk.tui.review.review_rules import details, verdict_values
from queuedesk.tui.review.review_session import ReviewSession
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.work_session import (
    EMPTY_POLL_SECONDS,
    MIN_HEARTBEAT_SECONDS,
    QUEUE_CHECK_SECONDS,
    WorkSession,
)

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


@dataclass
class Timer:
    delay: float
    callback: Callable[[], object]
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class Schedule:
    made: list[Timer] = field(default_factory=list)

    def __call__(self, delay: float, callback: Callable[[], object]) -> Timer:
        self.made.append(Timer(delay, callback))
        return self.made[-1]

    def live(self) -> list[Timer]:
        return [t for t in self.made if not t.stopped]


class Outbox:
    def hold(self, entry: Entry) -> None: ...
    def undo(self, entry_id: str) -> Entry | None: ...
    async def send_held_now(self, *, keep: str | None = None) -> None: ...
    def task_ids(self, queue_id: int) -> list[int]:
        return []


class Client:
    async def claim_next(self, queue_id: int, exclude: Any = ()) -> Any: ...
    async def heartbeat(self, queue_id: int, task_id: int) -> Any: ...
    async def release(self, queue_id: int, task_id: int, draft: Any = None) -> Any: ...


def task(task_id: int, lease_left: float | None = 60) -> AssignedTask:
    lease = None if lease_left is None else NOW + timedelta(seconds=lease_left)
    return AssignedTask.model_validate(
        {
            "id": task_id,
            "status": "in_progress",
            "created_at": NOW.isoformat(),
            "queue": "Q",
            "queue_id": 1,
            "source": "api",
            "data": {"category": "red"},
            "assignment": Assignment(
                assigned_to="w@x.test", assigned_at=NOW, lease_expires_at=lease
            ).model_dump(),
        }
    )


def session() -> tuple[WorkSession, Schedule]:
    work = WorkSession(Client(), 1, "Q", Outbox(), NOW)
    schedule = Schedule()
    work.timers.schedule = schedule
    return work, schedule


def test_one_timer_of_a_name_at_a_time_and_leaving_stops_the_poll() -> None:
    work, schedule = session()
    fired: list[str] = []
    work.poll_later(lambda: fired.append("first"))
    work.poll_later(lambda: fired.append("second"))
    assert [t.delay for t in schedule.live()] == [EMPTY_POLL_SECONDS]  # the first one was stopped
    schedule.live()[0].callback()
    assert fired == ["second"] and not work.timers.running("poll")
    work.poll_later(lambda: None)
    work.timers.start("tick", 1.0, lambda: None)
    work.timers.stop_all()
    assert all(t.stopped for t in schedule.made[2:]) and not work.timers.running("tick")


def test_no_timer_starts_before_the_session_has_a_clock() -> None:
    work = WorkSession(Client(), 1, "Q", Outbox(), NOW)
    work.poll_later(lambda: None)
    assert not work.timers.running("poll")


@pytest.mark.parametrize(
    ("lease_left", "delay"),
    [(60, 20.0), (12, MIN_HEARTBEAT_SECONDS), (9, 4.5), (4, 2.0), (-1, MIN_HEARTBEAT_SECONDS), (None, None)],
)
def test_the_heartbeat_is_timed_from_the_lease_of_the_task_on_screen(
    lease_left: float | None, delay: float | None
) -> None:
    work, schedule = session()
    work.current = task(1, lease_left)
    work.beat_later(NOW, lambda: None)
    assert [t.delay for t in schedule.live()] == ([] if delay is None else [delay])


def test_the_queue_is_read_again_every_so_many_ticks_while_a_task_is_on_screen() -> None:
    work, _ = session()
    checks = [work.tick() for _ in range(QUEUE_CHECK_SECONDS * 2)]
    assert not any(checks)  # no task on screen
    work.current = task(1)
    checks = [work.tick() for _ in range(QUEUE_CHECK_SECONDS * 2)]
    assert checks.count(True) == 2 and checks[-1]


def test_the_reviews_left_are_counted_at_the_start_every_15_ticks_and_after_a_verdict() -> None:
    review = ReviewSession(Client(), 1, "Q", Outbox(), NOW)  # type: ignore[arg-type]
    due = []
    for _ in range(31):
        review.tick()
        due.append(review.count_due)
        review.count_due = False  # counted
    assert [n for n, d in enumerate(due) if d] == [0, 15, 30]
    review.give(task(5), "accept", {"category": "red"}, NOW)
    assert review.count_due and review.last_verdict == (5, "accept")


def test_a_count_that_fails_waits_for_the_next_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    class Stats:
        reviews_pending = 7

    class Counting:
        calls = 0

        async def stats(self, queue_id: int) -> Stats:
            Counting.calls += 1
            if Counting.calls == 1:
                raise OSError("down")
            return Stats()

    review = ReviewSession(Client(), 1, "Q", Outbox(), NOW)  # type: ignore[arg-type]
    review.claims.client = Counting()  # type: ignore[assignment]
    asyncio.run(review.recount())
    assert review.left is None and not review.count_due
    asyncio.run(review.recount())  # not due: not asked
    assert Counting.calls == 1
    review.count_due = True
    asyncio.run(review.recount())
    assert review.left == 7
    assert review_session.COUNT_EVERY_TICKS == 15


def test_a_note_is_kept_emptied_or_left_as_it_was() -> None:
    review = ReviewSession(Client(), 1, "Q", Outbox(), NOW)  # type: ignore[arg-type]
    review.write_note(3, "blue, not red")
    review.write_note(3, None)  # the dialog closed: kept
    assert review.notes == {3: "blue, not red"}
    review.write_note(3, "")
    assert review.notes == {}


@pytest.mark.parametrize(
    ("verdict", "values", "kept"),
    [
        ("accept", {"category": "red"}, {"category": "red"}),
        ("accept", {"category": "blue"}, None),  # an accept would drop the change
        ("redo", {"category": "blue"}, {"category": "red"}),  # the worker's values
        ("correct", {"category": "blue"}, {"category": "blue"}),
    ],
)
def test_what_is_kept_with_a_verdict(
    verdict: Any, values: dict[str, Any], kept: dict[str, Any] | None
) -> None:
    assert verdict_values(verdict, values, {"category": "red"}) == kept


def test_the_details_name_each_change_beside_the_workers_answer_and_show_outside_text_as_text() -> None:
    block = Block.model_validate(
        {
            "id": "category",
            "name": "Category",
            "type": "single_selection",
            "single_selection": {"options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}]},
        }
    )
    text = details(
        "Task 4 · done by Wes",
        editing=True,
        in_a_field=False,
        note="see\x1b[31m the photo",
        blocks=[block],
        values={"category": "blue"},
        original={"category": "red"},
    )
    lines = text.split("\n")
    assert lines[0] == "Task 4 · done by Wes" and lines[1].startswith("Out of the fields")
    assert lines[2].startswith("Note: see") and "\x1b" not in text
    assert lines[3] == "Changed Category: Blue (was Red)"
