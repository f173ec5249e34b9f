"""The demo's consensus queue on its first run (B21): its settings set, and a few photos already
disputed (three colleagues, three verdicts) and a few with one colleague's answer, so the review
loop has disputes to decide and the worker meets tasks others answered, from the first minute.

Over HTTP like any client, before the colleagues start; on a server without B21 it does nothing.
"""

import random

from queuedesk.api import errors
from queuedesk.api.client import QueueDeskClient
from queuedesk.demo.content import CONSENSUS, CONSENSUS_QUEUE, answer, seen_differently

ADMIN_KEY = "demo-admin-key-0000000000000001"
DISPUTED_AT_START = 6
ONE_ANSWER_AT_START = 4


async def _answer(client: QueueDeskClient, queue_id: int, turn: int) -> bool:
    """One claim and one answer, seen the `turn`-th way; False when nothing was claimed."""
    claim = await client.claim_next(queue_id)
    if claim.task is None:
        return False
    # What the task's photo means is the same for every colleague (its own random source); each
    # sees it `turn` options further, so three colleagues give three different verdicts.
    meant = answer(CONSENSUS_QUEUE, dict(claim.task.data), random.Random(claim.task.id))
    values = seen_differently(CONSENSUS_QUEUE, meant, turn)
    await client.complete(queue_id, claim.task.id, values)
    return True


async def _set_up(url: str) -> int | None:
    """The consensus queue's id once its settings are in force; None on a server without B21."""
    async with QueueDeskClient(url, ADMIN_KEY, 1, timeout=10.0) as admin:
        if not await admin.supports_consensus():
            return None
        queue_id = next((q.id for q in await admin.queues() if q.name == CONSENSUS_QUEUE), None)
        if queue_id is not None and (await admin.queue(queue_id)).consensus is None:
            await admin.set_consensus(queue_id, CONSENSUS["answers"], max_answers=CONSENSUS["max_answers"])
        return queue_id


async def start_consensus(url: str, colleague_keys: list[str]) -> int:
    """Set the queue's consensus and make the first disputes; how many tasks were answered. What
    fails is left undone: the demo runs on without it."""
    try:
        queue_id = await _set_up(url)
    except errors.QueueDeskError:
        return 0
    if queue_id is None:
        return 0
    answered = 0
    clients = [QueueDeskClient(url, key, 1, timeout=10.0) for key in colleague_keys[:3]]
    try:
        # Tasks with answers are claimed first: each colleague in turn gets the same task until
        # three different verdicts make it disputed, then the next task.
        for _ in range(DISPUTED_AT_START):
            for turn, client in enumerate(clients):
                answered += await _answer(client, queue_id, turn)
        for _ in range(ONE_ANSWER_AT_START):
            answered += await _answer(clients[0], queue_id, 0)
    except errors.QueueDeskError:
        pass  # the demo runs on without them
    finally:
        for client in clients:
            await client.aclose()
    return answered
