"""Consensus (B21): a queue's settings, and a task's answers as admins and supervisors read them.

Every call here first checks that the server lists B21 in `GET /me`'s `features`
(`ClientCore._require_feature`): on an older server it raises `NoConsensus`, with nothing sent.
"""

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.tasks import TasksMixin
from queuedesk.api.client.transport import body_of


def consensus_body(
    answers: int | None,
    *,
    max_answers: int | None = None,
    agreement: float | None = None,
    blocks: Sequence[str] | None = None,
) -> dict[str, Any] | None:
    """B21's `consensus` as sent: None (off) when `answers` is None; what is not given is left to
    the server's defaults (maximum = answers, agreement 0.5, the compared-type blocks)."""
    if answers is None:
        if max_answers is not None or agreement is not None or blocks is not None:
            raise ValueError("consensus off takes no other setting (maximum, agreement, blocks)")
        return None
    body: dict[str, Any] = {"answers": answers}
    if max_answers is not None:
        body["max_answers"] = max_answers
    if agreement is not None:
        body["agreement"] = agreement
    if blocks is not None:
        body["blocks"] = list(blocks)
    return body


class ConsensusMixin(TasksMixin):
    """B21 through B13 and B3."""

    async def supports_consensus(self) -> bool:
        """True when the server has consensus (B21 among `/me`'s `features`)."""
        return await self.supports("B21")

    async def set_consensus(
        self,
        queue_id: int,
        answers: int | None,
        *,
        max_answers: int | None = None,
        agreement: float | None = None,
        blocks: Sequence[str] | None = None,
    ) -> models.QueueDetail:
        """B13 with `consensus`: each task answered by `answers` workers (2-10), up to `max_answers`
        (answers-10) while they disagree, settled at a share >= `agreement` (0.5-1.0) on each of
        `blocks`. `answers=None` turns consensus off: the next answer to a task completes it.
        (admins; `NoConsensus` on a server without B21)"""
        what = f"Setting the consensus of queue {queue_id}"
        body = {
            "consensus": consensus_body(answers, max_answers=max_answers, agreement=agreement, blocks=blocks)
        }
        await self._require_feature("B21", what)
        path = await self._ext_queue_path(queue_id, what)
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.QueueDetail, body_of(response, what), what)

    async def queue_with_consensus(self, queue_id: int) -> models.QueueDetail:
        """A4 for the queue's consensus settings (`consensus`: None when one answer completes a
        task). `NoConsensus` on a server without B21, where `consensus` would say nothing."""
        await self._require_feature("B21", f"Reading the consensus of queue {queue_id}")
        return await self.queue(queue_id)

    async def consensus_of(self, queue_id: int, task_id: int) -> models.AssignedTask:
        """B3 for a task's answers (`task.consensus`: None in a queue without consensus, and to a
        worker, who never sees another's answer). `NoConsensus` on a server without B21."""
        what = f"Reading the answers of task {task_id}"
        await self._require_feature("B21", what)
        return await self.task(queue_id, task_id)

    async def with_answers(
        self, queue_id: int, pages: AsyncIterator[models.TaskPage], *, at_once: int = 8
    ) -> AsyncIterator[models.TaskPage]:
        """`pages` of completed tasks, each task with its `consensus` (B3: the answers, their
        agreement and how the task ended; null for a task completed without consensus), read
        `at_once` tasks at a time. `NoConsensus` on a server without B21."""
        await self._require_feature("B21", f"Reading the answers of the tasks of queue {queue_id}")
        gate = asyncio.Semaphore(at_once)

        async def answered(task: models.Task) -> models.Task:
            async with gate:
                full = await self.task(queue_id, task.id)
            consensus = None if full.consensus is None else full.consensus.model_dump(mode="json")
            return models.Task.model_validate({**task.model_dump(mode="json"), "consensus": consensus})

        async for page in pages:
            tasks = await asyncio.gather(*(answered(task) for task in page.tasks))
            yield page.model_copy(update={"tasks": list(tasks)})
