"""`ReviewSession` without a screen: review claims made through the worker's loop (claimed ahead,
excluded, renewed, given back), verdicts held with their notes, undo, and the counts the status
line shows. The server is an `httpx.MockTransport` that answers B19 as the contract says; time is
the manual clock."""

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.review.review_session import ReviewSession
from queuedesk.tui.work.journal import REVIEW
from tests.unit.test_work_session import Held  # the outbox's part a session uses

QUEUE = 7
BASE = f"/orgs/1/queues/{QUEUE}"
ME = {
    "email": "sue@acme.test",
    "name": "Sue",
    "role": "supervisor",
    "organization_id": 1,
    "organization": "Acme",
    "server": "queuedesk",
    "version": "1",
}
QUEUE_BODY = {
    "id": QUEUE,
    "name": "Review",
    "created_at": "2026-01-01T00:00:00Z",
    "n_tasks": 0,
    "active_users": [],
    "review_percent": 20,
    "description": "",
    "data": [],
}


class Server:
    """Completed tasks waiting for review, handed out oldest first to whoever claims (the caller's
    live review claims first unless excluded); records claims, renewals and releases."""

    def __init__(self, clock: ManualClock, pending: list[int]) -> None:
        self.clock = clock
        self.pending = list(pending)
        self.held: list[int] = []
        self.claims: list[list[int]] = []
        self.released: list[int] = []
        self.renewed: list[int] = []

    def body(self, task_id: int) -> dict[str, Any]:
        lease = (self.clock.now() + timedelta(seconds=60)).isoformat()
        return {
            "id": task_id,
            "status": "completed",
            "created_at": "2026-01-01T00:00:00Z",
            "completed_at": "2026-01-01T00:01:30Z",
            "completed_by": "wes@acme.test",
            "queue": "Review",
            "queue_id": QUEUE,
            "source": "api",
            "data": {"category": "red"},
            "assignment": {
                "assigned_to": "wes@acme.test",
                "assigned_to_name": "Wes",
                "assigned_at": "2026-01-01T00:01:00Z",
                "lease_expires_at": None,
            },
            "review": {"state": "in_review", "reviewer": ME["email"], "lease_expires_at": lease},
        }

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/me":
            return httpx.Response(200, json=ME)
        if path == BASE:
            return httpx.Response(200, json=QUEUE_BODY)
        if path == f"{BASE}/reviews/next":
            exclude = json.loads(request.content or b"{}").get("exclude", [])
            self.claims.append(exclude)
            mine = [i for i in self.held if i not in exclude]
            if mine:
                return httpx.Response(200, json=self.body(mine[0]))
            free = [i for i in self.pending if i not in exclude]
            if not free:
                return httpx.Response(204, headers={"X-Reviews-Held": "0"})
            self.pending.remove(free[0])
            self.held.append(free[0])
            return httpx.Response(200, json=self.body(free[0]))
        task_id = int(path.split("/")[-3])
        if path.endswith("/review/release"):
            self.released.append(task_id)
            self.held.remove(task_id)
            self.pending.insert(0, task_id)
            return httpx.Response(200, json={**self.body(task_id), "review": {"state": "pending"}})
        if path.endswith("/review/heartbeat"):
            self.renewed.append(task_id)
            return httpx.Response(200, json=self.body(task_id)["review"])
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})


Scenario = Callable[[ReviewSession, Server, Held, ManualClock], Awaitable[None]]


@pytest.fixture
def run() -> Callable[[Scenario, list[int]], None]:
    def run(scenario: Scenario, pending: list[int]) -> None:
        async def main() -> None:
            clock = ManualClock()
            server = Server(clock, pending)
            held = Held(server)
            client = QueueDeskClient("http://queuedesk.test", "key", 1, transport=httpx.MockTransport(server))
            async with client:
                await scenario(ReviewSession(client, QUEUE, "Review", held, clock.now()), server, held, clock)

        asyncio.run(main())

    return run


def test_reviews_are_claimed_ahead_through_the_review_claims_and_the_one_judged_is_excluded(run: Any) -> None:
    async def scenario(review: ReviewSession, server: Server, held: Held, clock: ManualClock) -> None:
        first, _ = await review.next_task()
        assert first is not None and first.id == 11
        assert first.assignment.assigned_to == ME["email"]  # in this session: the review claim
        assert review.work_done(first).by == "Wes (wes@acme.test)"
        assert review.work_done(first).seconds == 30.0  # completed 00:01:30, claimed 00:01:00
        ahead = await review.claim_ahead()
        assert ahead is not None and ahead.id == 12
        review.notes[11] = "check the colour"
        entry = review.give(first, "accept", dict(first.data), clock.now())
        assert entry.extra[REVIEW] == {"verdict": "accept", "note": "check the colour"}
        assert review.take_ahead() is ahead
        third = await review.claim_ahead()
        assert third is not None and third.id == 13
        assert server.claims[-1][:2] == [12, 11], server.claims  # on screen, then the verdict held
        assert review.reviewed == 1 and review.accept_rate == 1.0

    run(scenario, [11, 12, 13])


def test_undo_takes_the_verdict_back_with_its_note_and_the_counts(run: Any) -> None:
    async def scenario(review: ReviewSession, server: Server, held: Held, clock: ManualClock) -> None:
        first, _ = await review.next_task()
        assert first is not None
        review.counted(5, given_before=0)
        review.notes[first.id] = "wrong colour"
        review.give(first, "correct", {"category": "blue"}, clock.now())
        assert review.verdicts["correct"] == 1 and review.left == 4 and review.accept_rate == 0.0
        back = review.undo(None)
        assert back is not None
        task, entry, _spent = back
        assert task.id == first.id and entry.data == {"category": "blue"}
        assert review.reviewed == 0 and review.accept_rate is None and review.left == 5
        assert review.notes[first.id] == "wrong colour"  # written again on the next verdict

    run(scenario, [21, 22])


def test_a_count_asked_for_after_verdicts_given_here_does_not_take_them_off_twice(run: Any) -> None:
    async def scenario(review: ReviewSession, server: Server, held: Held, clock: ManualClock) -> None:
        for _ in range(2):
            task, _ = await review.next_task()
            assert task is not None
            review.give(task, "accept", dict(task.data), clock.now())
        assert review.left is None  # not counted yet
        review.counted(8, given_before=2)  # the server's count already leaves both out
        assert review.left == 8
        task, _ = await review.next_task()
        assert task is not None
        review.give(task, "redo", dict(task.data), clock.now())
        assert review.left == 7

    run(scenario, [31, 32, 33, 34])


def test_leases_are_the_reviews_and_leaving_gives_every_review_back(run: Any) -> None:
    async def scenario(review: ReviewSession, server: Server, held: Held, clock: ManualClock) -> None:
        first, _ = await review.next_task()
        await review.claim_ahead()
        assert first is not None
        delay = review.heartbeat_delay(clock.now(), 5.0)
        assert delay == pytest.approx(20.0)  # a third of the review's 60 s lease
        clock.advance(30)
        assert await review.renew() == []
        assert server.renewed == [41, 42]
        assert first.assignment.lease_expires_at == clock.now() + timedelta(seconds=60)
        await review.leave(None)
        assert server.released == [41, 42] and server.pending[:2] == [42, 41]

    run(scenario, [41, 42, 43])
