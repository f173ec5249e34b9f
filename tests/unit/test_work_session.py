"""`WorkSession` without a screen: claims (one in flight at a time, the submitted task excluded),
tasks given back, leases, counts and time. The server is an `httpx.MockTransport` that answers as the
contract says and records every claim; time is the manual clock, moved in milliseconds."""

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.kept import Kept
from queuedesk.tui.work.work_session import IDLE_AFTER_SECONDS, WorkSession

QUEUE = 7
BASE = f"/orgs/1/queues/{QUEUE}/tasks"
ME = {
    "email": "wes@acme.test",
    "name": "Wes",
    "role": "worker",
    "organization_id": 1,
    "organization": "Acme",
    "server": "queuedesk",
    "version": "1",
}


def task_body(task_id: int, clock: ManualClock) -> dict[str, Any]:
    lease = (clock.now() + timedelta(seconds=60)).isoformat()
    return {
        "id": task_id,
        "status": "in_progress",
        "created_at": clock.now().isoformat(),
        "queue": "Work",
        "queue_id": QUEUE,
        "source": "api",
        "data": {"message": f"task {task_id}"},
        "assignment": {
            "assigned_to": ME["email"],
            "assigned_at": clock.now().isoformat(),
            "lease_expires_at": lease,
        },
    }


class Server:
    """Open tasks handed out in order to whoever claims (the caller's live claims first unless
    excluded, as B4 does); a claim can be made to wait (`hold_claims`)."""

    def __init__(self, clock: ManualClock, open_ids: list[int]) -> None:
        self.clock = clock
        self.open = list(open_ids)
        self.held: list[int] = []  # claimed by the worker, oldest first
        self.claims: list[list[int]] = []  # the `exclude` of every claim
        self.in_flight = 0
        self.most_in_flight = 0
        self.gate: asyncio.Event | None = None
        self.released: list[tuple[int, Any]] = []
        self.gone: set[int] = set()  # heartbeats answered 409
        self.deleted: set[int] = set()  # flushed: answered 404
        self.limit: int | None = None  # live claims from which a claim is refused (`claim_limit`)

    def hold_claims(self) -> asyncio.Event:
        self.gate = asyncio.Event()
        return self.gate

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/me":
            return httpx.Response(200, json=ME)
        if path == f"{BASE}/next":
            return await self._claim(json.loads(request.content or b"{}").get("exclude", []))
        task_id = int(path.split("/")[-2])
        if path.endswith("/release"):
            self.released.append((task_id, json.loads(request.content or b"null")))
            if task_id in self.held:
                self.held.remove(task_id)
                self.open.insert(0, task_id)
            return httpx.Response(200, json={**task_body(task_id, self.clock), "status": "open"})
        if path.endswith("/heartbeat"):
            if task_id in self.deleted:
                return httpx.Response(404, json={"error": {"code": "not_found", "message": "no such task"}})
            if task_id in self.gone:
                return httpx.Response(409, json={"error": {"code": "not_assignee", "message": "not yours"}})
            return httpx.Response(200, json=task_body(task_id, self.clock)["assignment"])
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})

    async def _claim(self, exclude: list[int]) -> httpx.Response:
        self.claims.append(exclude)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.limit is not None and len(self.held) >= self.limit:
                error = {"code": "claim_limit", "message": f"you hold {len(self.held)} claims"}
                return httpx.Response(409, json={"error": error})
            mine = [i for i in self.held if i not in exclude]
            if mine:
                return httpx.Response(200, json=task_body(mine[0], self.clock))
            claimable = [i for i in self.open if i not in exclude]
            if not claimable:
                return httpx.Response(204, headers={"X-Tasks-Held": "0"})
            task_id = claimable[0]
            self.open.remove(task_id)
            self.held.append(task_id)
            return httpx.Response(200, json=task_body(task_id, self.clock))
        finally:
            self.in_flight -= 1


class Held:
    """The outbox's part the session uses: submissions held (their tasks still claimed), undone, sent."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.entries: dict[str, Entry] = {}

    def hold(self, entry: Entry) -> None:
        self.entries[entry.id] = entry

    def undo(self, entry_id: str) -> Entry | None:
        return self.entries.pop(entry_id, None)

    async def send_held_now(self, *, keep: str | None = None) -> None:
        for entry_id in [i for i in self.entries if i != keep]:
            entry = self.entries.pop(entry_id)
            self.server.held.remove(entry.task_id)

    def task_ids(self, queue_id: int) -> list[int]:
        return [e.task_id for e in self.entries.values() if e.queue_id == queue_id]


Run = Callable[[Callable[[WorkSession, Server, ManualClock], Awaitable[None]], list[int]], None]


@pytest.fixture
def run() -> Run:
    def run(
        scenario: Callable[[WorkSession, Server, ManualClock], Awaitable[None]], open_ids: list[int]
    ) -> None:
        async def main() -> None:
            clock = ManualClock()
            server = Server(clock, open_ids)
            client = QueueDeskClient("http://queuedesk.test", "key", 1, transport=httpx.MockTransport(server))
            async with client:
                await scenario(WorkSession(client, QUEUE, "Work", Held(server), clock.now()), server, clock)

        asyncio.run(main())

    return run


def test_a_submit_while_the_claim_ahead_is_on_its_way_waits_for_it_and_never_gets_the_task_sent(
    run: Run,
) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        assert first is not None and first.id == 1
        gate = server.hold_claims()  # the claim ahead is slow (a slow link)
        ahead = asyncio.create_task(work.claim_ahead())
        await asyncio.sleep(0)
        while server.in_flight == 0:
            await asyncio.sleep(0.001)
        work.submit(first, {"category": "red"}, clock.now())  # before the claim ahead has come
        assert work.take_ahead() is None
        following = asyncio.create_task(work.next_task())
        await asyncio.sleep(0.01)
        assert server.in_flight == 1, "a second claim went out beside the one in flight"
        gate.set()
        second, _ = await following
        await ahead
        assert second is not None and second.id == 2 and work.current is second
        assert server.most_in_flight == 1
        assert all(1 in exclude for exclude in server.claims[1:]), server.claims  # the task sent, excluded
        third = await work.claim_ahead()
        assert third is not None and third.id == 3 and [t.id for t in work.ahead] == [3]

    run(scenario, [1, 2, 3, 4])


def test_a_claim_right_after_a_submit_first_sends_the_submissions_held_but_the_last(run: Run) -> None:
    """A fast worker (answer, enter, at once) outruns the claim ahead: the claim made right after the
    submit did not send the held submissions first, the server refused it for `claim_limit`, and the
    screen said the queue was empty while tasks waited."""

    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        server.limit = 3
        for expected in range(1, 6):
            task, _ = await work.next_task()  # nothing claimed ahead
            assert task is not None and task.id == expected, (task, server.held)
            work.submit(task, {"category": "red"}, clock.now())
        assert server.held == [4, 5]  # the last two: 4 was the one to undo when 5 was claimed

    run(scenario, [1, 2, 3, 4, 5, 6])


def test_a_task_given_back_is_excluded_and_one_the_server_hands_back_anyway_is_released(run: Run) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        task, _ = await work.next_task()
        assert task is not None
        work.give_back(task)
        assert work.current is None and 1 in work.releasing
        await work.release(task, {"note": "draft"})
        assert server.released == [(1, {"data": {"note": "draft"}})] and not work.releasing
        following, _ = await work.next_task()
        assert following is not None and following.id == 2
        assert server.claims[-1] == [1]  # excluded: given back here
        # Eleven given back: the oldest no longer fits in `exclude`; when the server hands it out
        # again it goes straight back, and is never shown.
        work.given_back = list(range(100, 111))
        server.open.insert(0, 100)
        server.held.remove(2)  # task 2 done with (completed)
        work.current = None
        taken, _ = await work.next_task()
        assert taken is None or taken.id not in work.given_back
        assert (100, None) in server.released

    run(scenario, [1, 2, 3])


def test_undo_brings_the_task_back_and_keeps_what_was_typed_on_the_next_as_its_draft(run: Run) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        assert first is not None
        work.shown(first, clock.now())
        await work.claim_ahead()
        clock.advance(0.750)
        work.time.count(clock.now(), on_task=True)
        work.submit(first, {"category": "red"}, clock.now())
        second = work.take_ahead()
        assert second is not None and work.counts.done == 1
        work.shown(second, clock.now())
        back = work.undo({"category": "blue", "note": "typed"})
        assert back is not None
        task, entry, spent = back
        assert (task, entry.data, spent, work.counts.done) == (first, {"category": "red"}, 0.75, 0)
        assert work.current is first and work.ahead == [second]
        assert work.undo(None) is None  # nothing left to undo
        work.shown(first, clock.now(), spent)
        work.submit(first, {"category": "green"}, clock.now())
        again = work.take_ahead()
        assert again is second
        assert work.shown(second, clock.now()) == {"category": "blue", "note": "typed"}

    run(scenario, [1, 2])


def test_leases_are_renewed_and_a_task_no_longer_ours_is_dropped(run: Run) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        ahead = await work.claim_ahead()
        assert first is not None and ahead is not None
        assert work.heartbeat_delay(clock.now(), 5.0) == pytest.approx(20.0)  # a third of 60 s
        server.gone.add(ahead.id)
        assert await work.renew() == [ahead]
        assert work.ahead == [] and work.current is first
        kept = await work.leave({"note": "half done"})
        assert kept == [Kept(first, draft=True)] and server.released[-1] == (
            first.id,
            {"data": {"note": "half done"}},
        )
        assert await work.claim_ahead() is None  # leaving: nothing claimed any more

    run(scenario, [1, 2])


def test_a_lease_shorter_than_the_heartbeat_floor_is_renewed_before_it_lapses(run: Run) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        assert first is not None and first.assignment.lease_expires_at is not None
        for lease, delay in ((60, 20.0), (12, 5.0), (3, 1.5), (1, 0.5)):
            first.assignment.lease_expires_at = clock.now() + timedelta(seconds=lease)
            assert work.heartbeat_delay(clock.now(), 5.0) == pytest.approx(delay)
        first.assignment.lease_expires_at = clock.now() - timedelta(seconds=1)
        assert work.heartbeat_delay(clock.now(), 5.0) == 5.0  # lapsed: never a loop of beats

    run(scenario, [1])


def test_away_for_half_a_lease_the_claims_ahead_go_back_and_are_claimed_again_on_return(run: Run) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        ahead = await work.claim_ahead()
        assert first is not None and ahead is not None and work.lease_seconds == 60
        clock.advance(29.9)
        assert await work.give_back_ahead_when_away(clock.now()) == 0  # not yet half the 60 s lease
        clock.advance(0.2)
        assert await work.give_back_ahead_when_away(clock.now()) == 1
        assert work.ahead == [] and work.current is first and server.released[-1] == (ahead.id, None)
        assert await work.claim_ahead() is None  # still away: nothing claimed ahead
        work.time.last_key_at = clock.now()
        assert work.back() == 1 and work.back() == 0  # told once
        again = await work.claim_ahead()
        assert again is not None and again.id == ahead.id  # not excluded: it may come to this worker again

    run(scenario, [1, 2])


def test_time_on_a_task_stops_at_idle_and_while_paused_counted_in_milliseconds() -> None:
    clock = ManualClock()
    start = clock.now()
    work = WorkSession.__new__(WorkSession)
    from queuedesk.tui.work.work_session import WorkTime

    work.time = WorkTime(started_at=start, tick_at=start, last_key_at=start)
    clock.advance(0.250)
    work.time.count(clock.now(), on_task=True)
    assert work.time.task_seconds == pytest.approx(0.250)
    work.time.paused = True
    clock.advance(0.500)
    work.time.count(clock.now(), on_task=True)
    assert work.time.task_seconds == pytest.approx(0.250)
    work.time.paused = False
    clock.advance(IDLE_AFTER_SECONDS + 10)
    work.time.count(clock.now(), on_task=True)
    assert work.time.task_seconds == pytest.approx(IDLE_AFTER_SECONDS - 0.500)  # up to going idle
    assert work.time.idle(clock.now())


def test_a_refused_submission_is_uncounted_once_and_a_task_gone_from_the_server_is_told_apart(
    run: Run,
) -> None:
    async def scenario(work: WorkSession, server: Server, clock: ManualClock) -> None:
        first, _ = await work.next_task()
        assert first is not None
        clock.advance(4)
        entry = work.submit(first, {"category": "red"}, clock.now())
        assert (work.counts.done, work.time.seconds_done) == (1, 4.0)
        assert work.uncount(entry) == 4.0
        assert work.uncount(entry) == 0.0  # told twice (two screens of the queue): once is enough
        assert (work.counts.done, work.time.seconds_done) == (0, 0.0)
        second, _ = await work.next_task()
        assert second is not None
        server.deleted.add(second.id)  # flushed: the heartbeat's answer is a 404
        lost = await work.renew()
        assert [t.id for t in lost] == [second.id] and work.removed == {second.id}

    run(scenario, [1, 2])
