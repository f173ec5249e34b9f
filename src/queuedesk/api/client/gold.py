"""Gold tasks (B22): a queue's gold share, the gold tasks, their expected values and retiring
(B24's PATCH), and the scored answers.

Every call here first checks that the server lists B22 in `GET /me`'s `features`
(`ClientCore._require_feature`): on an older server it raises `NoGold`, with nothing sent. Creating
and importing gold tasks are `create_task(..., gold=)` and `import_tasks(..., gold=)`; the pending
list of gold tasks is `pending_tasks(..., gold=True)`.
"""

from collections.abc import AsyncIterator, Mapping
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.results import check_page
from queuedesk.api.client.tasks import TasksMixin
from queuedesk.api.client.transport import body_of
from queuedesk.api.errors import Forbidden


class GoldMixin(TasksMixin):
    """B22 through B13, B2, B24's PATCH and `…/gold/answers`."""

    async def supports_gold(self) -> bool:
        """True when the server has gold tasks (B22 among `/me`'s `features`)."""
        return await self.supports("B22")

    async def set_gold_percent(self, queue_id: int, percent: int) -> models.QueueDetail:
        """B13 with `gold_percent` (0-50): the share of each worker's claims served from the gold
        tasks they have not answered. (admins; `NoGold` on a server without B22)"""
        what = f"Setting the gold share of queue {queue_id}"
        await self._require_feature("B22", what)
        path = await self._ext_queue_path(queue_id, what)
        response = await self._request("PATCH", path, what, json={"gold_percent": percent}, idempotent=True)
        return self._parse(models.QueueDetail, body_of(response, what), what)

    async def queue_with_gold(self, queue_id: int) -> models.QueueDetail:
        """A4 for the queue's `gold_percent`; `NoGold` on a server without B22, where 0 says nothing."""
        await self._require_feature("B22", f"Reading the gold share of queue {queue_id}")
        return await self.queue(queue_id)

    async def update_gold_task(
        self,
        queue_id: int,
        task_id: int,
        *,
        gold: Mapping[str, Any] | None = None,
        retired: bool | None = None,
    ) -> models.AssignedTask:
        """B24's PATCH of a gold task: new expected values (`gold`; earlier answers keep their score)
        and/or `retired=True` (never served again). (admins; `NoGold` on a server without B22)"""
        if gold is None and retired is None:
            raise ValueError("give new expected values (gold) or retired=True")
        doing = "Retiring" if retired and gold is None else "Changing the expected values of"
        what = f"{doing} gold task {task_id}"
        await self._require_feature("B22", what)
        body: dict[str, Any] = {}
        if gold is not None:
            body["gold"] = dict(gold)
        if retired is not None:
            body["retired"] = retired
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}"
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.AssignedTask, body_of(response, what), what)

    async def gold_answers(
        self,
        queue_id: int,
        *,
        completed_by: str | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> models.GoldAnswerPage:
        """`GET …/gold/answers`: the scored answers to the queue's gold tasks, newest first. A worker
        reads their own only and must pass `completed_by="me"`: without it, `Forbidden` with nothing
        sent. (`NoGold` on a server without B22)"""
        check_page(offset, limit)
        what = f"Listing the gold answers of queue {queue_id}"
        await self._require_feature("B22", what)
        if completed_by is None and (await self._me_as(what)).role == "worker":
            raise Forbidden(
                f"{what} failed: a worker reads their own gold answers only (completed_by='me'); "
                "nothing was sent.",
                hint="",
            )
        path = f"{await self._ext_queue_path(queue_id, what)}/gold/answers"
        params = {"completed_by": completed_by, "offset": offset, "limit": limit}
        return self._parse(models.GoldAnswerPage, await self._get(path, what, params), what)

    async def iter_gold_answers(
        self, queue_id: int, *, completed_by: str | None = None, page_size: int = 1000
    ) -> AsyncIterator[models.GoldAnswer]:
        """Every scored answer (as `gold_answers`), page by page, newest first."""
        offset = 0
        while True:
            page = await self.gold_answers(
                queue_id, completed_by=completed_by, offset=offset, limit=page_size
            )
            for answer in page.answers:
                yield answer
            offset += len(page.answers)
            if not page.answers or page.next is None:
                return

    async def gold_tasks(self, queue_id: int, *, page_size: int = 1000) -> list[models.AssignedTask]:
        """Every gold task of the queue (B2 with `gold=true`, admins and supervisors), oldest first."""
        found: list[models.AssignedTask] = []
        offset = 0
        while True:
            page = await self.pending_tasks(queue_id, gold=True, offset=offset, limit=page_size)
            found += page.tasks
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return found
