"""Simulated colleagues: workers who claim and complete tasks at a human pace (now and then with a
slip), a reviewer who checks the work drawn for review, and an integration that keeps adding tasks,
all over HTTP like any client, so counts, active users, stats and accept rates move.

In the consensus queue (B21, `content.CONSENSUS_QUEUE`) a colleague's completion is an answer, and
they see a photo differently now and then; on the demo's first run (`first_run`) some photos are
disputed before they start (`consensus_start.py`). The simulated reviewer leaves that queue's
reviews, disputes first, to the person trying the demo. On the first run `Support triage` also gets
a gold share and gold tasks, some answered at once, right or wrong (`gold_start.py`, B22).

`pace` scales every pause (1.0: seconds per task, as people work; the tests use less). Stopping
cancels them; a worker gives back the task it holds before it stops, so nothing is left claimed.
"""

import asyncio
import contextlib
import random
from dataclasses import dataclass, field
from datetime import date

from queuedesk.api import errors
from queuedesk.api.client import Claim, QueueDeskClient
from queuedesk.api.models import AssignedTask
from queuedesk.demo.consensus_start import start_consensus
from queuedesk.demo.content import CONSENSUS_QUEUE, QUEUES, SLIP_CHANCE, answer, expected, new_task, slip
from queuedesk.demo.gold_start import start_gold

COLLEAGUE_KEYS = {
    "priya@demo.test": "demo-colleague-key-priya-000004",
    "tomas@demo.test": "demo-colleague-key-tomas-000005",
    "lena@demo.test": "demo-colleague-key-lena-0000006",
    "kofi@demo.test": "demo-colleague-key-kofi-0000007",
}
INTEGRATION_KEY = "demo-integration-key-0000000008"
REVIEWER_KEY = "demo-reviewer-key-noor-00000009"
REDO_SHARE = 0.25  # of the slips the reviewer finds: sent back to be redone rather than corrected
TARGET_PENDING = 120  # per queue: the integration adds faster while a queue has fewer
SKIP_CHANCE = 0.06


@dataclass
class Colleagues:
    url: str
    image_base: str
    pace: float = 1.0
    first_run: bool = False  # a new demo database: the consensus queue is set up first
    completed: int = 0
    answered_at_start: int = 0
    gold_answered_at_start: int = 0
    created: int = 0
    reviewed: int = 0
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _clients: list[QueueDeskClient] = field(default_factory=list)

    def start(self) -> None:
        if self.first_run:
            self._tasks.append(asyncio.create_task(self._set_up_then_start(), name="consensus-start"))
        else:
            self._start_all()

    async def _set_up_then_start(self) -> None:
        self.answered_at_start = await start_consensus(self.url, list(COLLEAGUE_KEYS.values()))
        self.gold_answered_at_start = await start_gold(self.url, list(COLLEAGUE_KEYS.values()))
        self._start_all()

    def _start_all(self) -> None:
        for number, key in enumerate(COLLEAGUE_KEYS.values()):
            self._tasks.append(
                asyncio.create_task(self._work(key, random.Random(number)), name=f"colleague-{number}")
            )
        self._tasks.append(asyncio.create_task(self._integrate(random.Random(99)), name="integration"))
        self._tasks.append(asyncio.create_task(self._review(random.Random(77)), name="reviewer"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        for client in self._clients:
            await client.aclose()
        self._clients.clear()

    def _client(self, key: str) -> QueueDeskClient:
        client = QueueDeskClient(self.url, key, 1, timeout=10.0)
        self._clients.append(client)
        return client

    async def _pause(self, rng: random.Random, low: float, high: float) -> None:
        await asyncio.sleep(rng.uniform(low, high) * self.pace)

    async def _queue_ids(self, client: QueueDeskClient, *, reviewing: bool = False) -> dict[str, int]:
        """The demo's queues; to review, not the consensus queue (its disputes are for the person
        trying the demo) where the server has consensus."""
        left_out = CONSENSUS_QUEUE if reviewing and await client.supports_consensus() else None
        return {q.name: q.id for q in await client.queues() if q.name in QUEUES and q.name != left_out}

    async def _work(self, key: str, rng: random.Random) -> None:
        client = self._client(key)
        await self._pause(rng, 0.5, 4)  # people do not all start at the same second
        queue_ids: dict[str, int] = {}
        while True:
            try:
                queue_ids = queue_ids or await self._queue_ids(client)
                if not queue_ids:
                    await self._pause(rng, 5, 10)
                    continue
                name = rng.choice(sorted(queue_ids))
                await self._one_task(client, queue_ids[name], name, rng)
            except errors.QueueDeskError:
                queue_ids = {}  # a queue flushed, renamed or gone: look again after a pause
                await self._pause(rng, 2, 5)

    async def _one_task(self, client: QueueDeskClient, queue_id: int, name: str, rng: random.Random) -> None:
        claim = await claim_or_give_back(client, queue_id)
        if claim.task is None:
            await self._pause(rng, 2, 6)
            return
        task = claim.task
        given_back = False
        try:
            await self._pause(rng, 4, 16)  # reading and deciding
            if rng.random() < SKIP_CHANCE:
                await client.release(queue_id, task.id)
            else:
                values = answer(name, dict(task.data), rng)
                if rng.random() < SLIP_CHANCE:
                    values = slip(name, values, rng)
                await client.complete(queue_id, task.id, values)
                self.completed += 1
            given_back = True
        finally:
            if not given_back:  # stopped (or failed) while holding it: give it back
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._give_back(client, queue_id, task.id))
        await self._pause(rng, 1, 4)

    @staticmethod
    async def _give_back(client: QueueDeskClient, queue_id: int, task_id: int) -> None:
        await give_back(client, queue_id, task_id)

    async def _review(self, rng: random.Random) -> None:
        client = self._client(REVIEWER_KEY)
        await self._pause(rng, 2, 6)
        queue_ids: dict[str, int] = {}
        while True:
            try:
                queue_ids = queue_ids or await self._queue_ids(client, reviewing=True)
                if not queue_ids:
                    await self._pause(rng, 5, 10)
                    continue
                name = rng.choice(sorted(queue_ids))
                await self._one_review(client, queue_ids[name], name, rng)
            except errors.QueueDeskError:
                queue_ids = {}
                await self._pause(rng, 2, 5)

    async def _one_review(
        self, client: QueueDeskClient, queue_id: int, name: str, rng: random.Random
    ) -> None:
        claim = await client.claim_review(queue_id)
        if claim.task is None:
            await self._pause(rng, 3, 8)
            return
        task = claim.task
        judged = False
        try:
            await self._pause(rng, 5, 14)  # reading the task and the answers
            await self._judge(client, queue_id, name, task, rng)
            self.reviewed += 1
            judged = True
        finally:
            if not judged:  # stopped (or failed) while holding the review: give it back
                with contextlib.suppress(Exception):
                    await asyncio.shield(
                        asyncio.wait_for(client.release_review(queue_id, task.id), timeout=3)
                    )
        await self._pause(rng, 1, 3)

    @staticmethod
    async def _judge(
        client: QueueDeskClient, queue_id: int, name: str, task: AssignedTask, rng: random.Random
    ) -> None:
        """Accept, or correct (now and then redo) what differs from what the inputs settle."""
        wrong = {k: v for k, v in expected(name, task.data).items() if task.data.get(k) != v}
        if not wrong:
            await client.give_verdict(queue_id, task.id, "accept")
            return
        field, value = next(iter(wrong.items()))
        if rng.random() < REDO_SHARE:
            note = f"{field} is not {task.data.get(field)!r}: please look at this one again"
            await client.give_verdict(queue_id, task.id, "redo", note=note)
        else:
            note = f"{field} should be {value!r}, not {task.data.get(field)!r}"
            await client.give_verdict(queue_id, task.id, "correct", data=wrong, note=note)

    async def _integrate(self, rng: random.Random) -> None:
        client = self._client(INTEGRATION_KEY)
        while True:
            try:
                for queue in await client.queues():
                    if queue.name not in QUEUES:
                        continue
                    wanted = 3 if queue.n_tasks < TARGET_PENDING else 1 if rng.random() < 0.4 else 0
                    for _ in range(wanted):
                        await client.create_task(
                            queue.id, new_task(queue.name, rng, date.today(), self.image_base)
                        )
                        self.created += 1
            except errors.QueueDeskError:
                pass
            await self._pause(rng, 6, 14)


async def give_back(client: QueueDeskClient, queue_id: int, task_id: int) -> None:
    with contextlib.suppress(errors.QueueDeskError, TimeoutError):
        await asyncio.wait_for(client.release(queue_id, task_id), timeout=3)


async def claim_or_give_back(client: QueueDeskClient, queue_id: int) -> Claim:
    """Claim the next task; stopped while the claim is on its way, wait for the answer (3 s at most)
    and give back what it claimed: the server claimed it whether or not anyone reads the answer."""
    claiming = asyncio.ensure_future(client.claim_next(queue_id))
    try:
        return await asyncio.shield(claiming)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            late = await asyncio.wait_for(claiming, timeout=3)
            if late.task is not None:
                await give_back(client, queue_id, late.task.id)
        raise
