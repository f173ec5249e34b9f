"""Tasks: creating one (with the pre-checks for the original service), pending ones, one task."""

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from queuedesk.api import errors, models, original_rules
from queuedesk.api.client.queues import QueuesMixin
from queuedesk.api.client.results import ConsensusState, PendingSort, check_page
from queuedesk.api.client.transport import body_of
from queuedesk.api.errors import (
    QueueDeskError,
)
from queuedesk.api.wording import counted

BLOCKS_KEPT_SECONDS = 30.0  # how long the pre-check of creates on the original trusts a queue's blocks


class TasksMixin(QueuesMixin):
    """A1, B2, B3."""

    async def create_task(
        self, queue_id: int, data: Mapping[str, Any], *, gold: Mapping[str, Any] | None = None
    ) -> models.Task:
        """A1. Never retried: a repeated create would make a second task. `gold` (B22, admins): the
        expected values that make it a gold task (`NoGold`, with nothing sent, on a server without B22).

        On a server without QueueDesk's extensions (the original service) the queue must be one of
        the organization's (that server looks it up by id alone), the data must pass the checks that
        server lacks or fails on (`original_rules.task_problems`: keys that are no block, values
        that do not fit, what it stores but cannot serve; `ValidationError` with nothing sent), an
        entity's `label` is sent as the original's `category`, and a
        failed answer says whether the task was probably saved all the same (`probably_saved`, from
        the queue's `n_tasks` before and after)."""
        what = f"Creating a task in queue {queue_id}"
        body: dict[str, Any] = {"data": dict(data)}
        if gold is not None:
            what = f"Creating a gold task in queue {queue_id}"
            await self._require_feature("B22", what)
            body["gold"] = dict(gold)
        if await self.supports_extensions():
            path = f"{await self._queue_path(queue_id, what)}/tasks/create"
            response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 201))
            return self._parse(models.Task, body_of(response, what), what)
        before = await self._own_queue(queue_id, what)
        blocks = await self._precheck(queue_id, data, what)
        body = {"data": original_rules.in_original_form(blocks, data)}
        path = f"{await self._queue_path(queue_id, what)}/tasks/create"
        try:
            response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 201))
        except (errors.ServerError, errors.ConnectionFailed, errors.UnexpectedResponse) as exc:
            raise await self._after_failed_create(exc, queue_id, before.n_tasks) from None
        return self._parse(models.Task, body_of(response, what), what)

    async def _precheck(self, queue_id: int, data: Mapping[str, Any], what: str) -> list[models.Block]:
        """The queue's blocks, once the data passed the checks the original lacks or fails on."""
        # The blocks are read again after a while: the original's own app may change them meanwhile.
        known = self._blocks_for_checks.get(queue_id)
        if known is None or time.monotonic() - known[0] > BLOCKS_KEPT_SECONDS:
            known = (time.monotonic(), (await self.queue(queue_id)).data)
            self._blocks_for_checks[queue_id] = known
        found = original_rules.task_problems(known[1], data)
        if found:
            said = "; ".join(f"{(p.field or 'data').removeprefix('data.')}: {p.message}" for p in found)
            raise errors.ValidationError(
                f"{what}: nothing was sent: {said}",
                errors=[models.ErrorItem(field=p.field, message=p.message) for p in found],
                hint="",
            )
        return known[1]

    async def _after_failed_create(self, exc: QueueDeskError, queue_id: int, n_before: int) -> QueueDeskError:
        """The create's failure, saying from the queue's count whether the task was probably saved."""
        try:
            after = await self._own_queue(queue_id, f"Counting the tasks of queue {queue_id}")
        except QueueDeskError:
            exc.probably_saved = None
            exc.hint = (
                "The task may have been saved anyway (the queue's count could not be read): look at the "
                "queue before sending it again."
            )
            return exc
        exc.probably_saved = after.n_tasks > n_before
        if exc.probably_saved:
            exc.hint = (
                f"The task was probably saved anyway: the queue holds {counted(after.n_tasks, 'task')}, "
                f"{n_before} before. Do not send it again."
            )
        else:
            exc.hint = (
                f"The task was probably not saved: the queue still holds {counted(after.n_tasks, 'task')}. "
                "It is safe to send it again once the server works."
            )
        return exc

    async def pending_tasks(
        self,
        queue_id: int,
        *,
        status: list[str] | None = None,
        offset: int = 0,
        limit: int = 100,
        q: str | None = None,
        order: Literal["asc", "desc"] | None = None,
        sort: PendingSort | None = None,
        consensus: ConsensusState | None = None,
        gold: bool = False,
    ) -> models.PendingPage:
        """B2. Tasks not completed, oldest first (`order="desc"`: newest first; `sort` by another
        column), with their assignment; `q` finds text in any block's value, in any case;
        `consensus` (B21) only the tasks still collecting answers, or only the disputed ones; `gold`
        (B22, admins and supervisors) the gold tasks instead, each with its expected values."""
        check_page(offset, limit)
        what = f"Listing {'gold' if gold else 'pending'} tasks of queue {queue_id}"
        if consensus is not None:
            await self._require_feature("B21", what)
        if gold:
            await self._require_feature("B22", what)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks"
        params = {
            "offset": offset,
            "limit": limit,
            "status": ",".join(status) if status else None,
            "q": q,
            "order": order,
            "sort": sort,
            "consensus": consensus,
            "gold": "true" if gold else None,
        }
        return self._parse(models.PendingPage, await self._get(path, what, params), what)

    async def iter_pending(
        self, queue_id: int, *, status: list[str] | None = None, page_size: int = 1000
    ) -> AsyncIterator[models.AssignedTask]:
        offset = 0
        while True:
            page = await self.pending_tasks(queue_id, status=status, offset=offset, limit=page_size)
            for task in page.tasks:
                yield task
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    async def task(self, queue_id: int, task_id: int) -> models.AssignedTask:
        """B3. One task in any status, with its assignment."""
        what = f"Reading task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}"
        return self._parse(models.AssignedTask, await self._get(path, what), what)
