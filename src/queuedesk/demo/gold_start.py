"""The demo's gold tasks on its first run (B22): `Support triage` gets a gold share and a few
messages whose team is known, and the colleagues answer some of them at once (most right, a few
wrong), so each worker's gold accuracy shows in the stats, and the Gold tab has answers, from the
first minute.

The colleagues cannot tell a gold task from other work (nor can anyone working): for a quick
start the share is raised while they make their first claims, then set to the demo's lasting
share. Over HTTP like any client, before the colleagues start; on a server without B22 it does
nothing.
"""

import random
from datetime import date

from queuedesk.api import errors
from queuedesk.api.client import QueueDeskClient
from queuedesk.demo.content import TRIAGE, answer, expected, new_task, slip

ADMIN_KEY = "demo-admin-key-0000000000000001"
GOLD_QUEUE = TRIAGE  # a message's team is settled by its words: a known answer
GOLD_PERCENT = 10  # the lasting share of each worker's claims
WARM_UP_PERCENT = 50  # while the colleagues make their first claims
GOLD_TASKS = 8
CLAIMS_AT_START = 6  # per colleague
MISSED_EVERY = 3  # every third gold answer at the start misses (a colleague's slip)


async def _set_up(url: str) -> tuple[int, set[int]] | None:
    """The queue's id and its new gold tasks, the warm-up share in force; None without B22."""
    async with QueueDeskClient(url, ADMIN_KEY, 1, timeout=10.0) as admin:
        if not await admin.supports_gold():
            return None
        queue_id = next((q.id for q in await admin.queues() if q.name == GOLD_QUEUE), None)
        if queue_id is None:
            return None
        rng = random.Random(22)
        made: set[int] = set()
        for _ in range(GOLD_TASKS):
            data = new_task(GOLD_QUEUE, rng, date.today(), "")
            task = await admin.create_task(queue_id, data, gold=expected(GOLD_QUEUE, data))
            made.add(task.id)
        await admin.set_gold_percent(queue_id, WARM_UP_PERCENT)
        return queue_id, made


async def _claims(client: QueueDeskClient, queue_id: int, gold: set[int], turn: int) -> int:
    """A colleague's first claims, each answered; how many were gold tasks."""
    answered = 0
    rng = random.Random(turn)
    for _ in range(CLAIMS_AT_START):
        claim = await client.claim_next(queue_id)
        if claim.task is None:
            break
        values = answer(GOLD_QUEUE, dict(claim.task.data), rng)
        if claim.task.id in gold:
            answered += 1
            if (turn + answered) % MISSED_EVERY == 0:
                values = slip(GOLD_QUEUE, values, rng)
        await client.complete(queue_id, claim.task.id, values)
    return answered


async def start_gold(url: str, colleague_keys: list[str]) -> int:
    """Make the gold tasks and the colleagues' first answers to them; how many gold tasks were
    answered. What fails is left undone: the demo runs on without it."""
    try:
        found = await _set_up(url)
    except errors.QueueDeskError:
        return 0
    if found is None:
        return 0
    queue_id, gold = found
    answered = 0
    try:
        for turn, key in enumerate(colleague_keys):
            async with QueueDeskClient(url, key, 1, timeout=10.0) as client:
                answered += await _claims(client, queue_id, gold, turn)
    except errors.QueueDeskError:
        pass  # the demo runs on without them
    finally:
        try:
            async with QueueDeskClient(url, ADMIN_KEY, 1, timeout=10.0) as admin:
                await admin.set_gold_percent(queue_id, GOLD_PERCENT)
        except errors.QueueDeskError:
            pass
    return answered
