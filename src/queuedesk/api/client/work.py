"""Work: claiming a task, keeping its lease, giving it back, completing it."""

from collections.abc import Mapping, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.results import Claim
from queuedesk.api.client.transport import body_of
from queuedesk.api.numbers import plain_int


class WorkMixin(ClientCore):
    """B4-B7."""

    async def claim_next(self, queue_id: int, exclude: Sequence[int] = ()) -> Claim:
        """B4. The caller's live claim again, or the next claimable task, or none (with how many are held).

        With `exclude` (claiming ahead, at most 10 ids): the caller's oldest live claim not listed,
        else a new claim; `Conflict` with code `claim_limit` when the caller already holds 3.
        With none, `answered` counts the open tasks the caller answered in a consensus queue (B21):
        they wait for others, and are never given to the caller again."""
        what = f"Claiming work in queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/next"
        body = {"exclude": list(exclude)} if exclude else None
        response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 204))
        if response.status_code == 204:
            held = plain_int(response.headers.get("X-Tasks-Held", "0")) or 0
            answered = plain_int(response.headers.get("X-Tasks-Answered", "0")) or 0
            return Claim(None, held, answered)
        return Claim(self._parse(models.AssignedTask, body_of(response, what), what))

    async def heartbeat(self, queue_id: int, task_id: int) -> models.Assignment:
        """B5. Extends the caller's lease (safe to retry)."""
        what = f"Extending the lease on task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/heartbeat"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.Assignment, body_of(response, what), what)

    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> models.AssignedTask:
        """B6. Gives the task back (status `open`), optionally keeping a draft of its data."""
        what = f"Releasing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/release"
        body = None if draft is None else {"data": dict(draft)}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.AssignedTask, body_of(response, what), what)

    async def complete(self, queue_id: int, task_id: int, data: Mapping[str, Any]) -> models.Task:
        """B7. Never retried blindly: a second completion is a 409 `already_completed`.

        In a consensus queue (B21) this records the caller's answer: the task answered is `open`
        until enough answers agree (`completed` when this answer settled it); a second answer is a
        409 `already_answered`."""
        what = f"Completing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/complete"
        response = await self._request("POST", path, what, json={"data": dict(data)}, idempotent=False)
        return self._parse(models.Task, body_of(response, what), what)
