"""`QueueDeskClient`: an async client for every endpoint of the QueueDesk HTTP contract.

    async with QueueDeskClient("http://127.0.0.1:8000", token="...", organization_id=1) as qd:
        for queue in await qd.queues():
            print(queue.name, queue.n_tasks)

Arguments default to the environment: `QUEUEDESK_URL`, `QUEUEDESK_TOKEN`, `QUEUEDESK_ORG`. Against
a server that speaks only the documented Task Queue Service interface (Part A), the Part A methods
work and every extension raises `NotSupported` with a clear message.
"""

import asyncio
import os
import random
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypeVar

import httpx
import pydantic

from queuedesk import __version__
from queuedesk.api import models
from queuedesk.api.errors import (
    ConnectionFailed,
    NotFound,
    NotSupported,
    QueueDeskError,
    Timeout,
    UnexpectedResponse,
    error_for,
)
from queuedesk.api.timestamps import format_timestamp

ENV_URL = "QUEUEDESK_URL"
ENV_TOKEN = "QUEUEDESK_TOKEN"
ENV_ORG = "QUEUEDESK_ORG"
RETRY_STATUSES = frozenset({429, 502, 503, 504})
M = TypeVar("M", bound=pydantic.BaseModel)


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of idempotent requests only: exponential backoff with full jitter."""

    attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        if retry_after is not None and retry_after.isdigit():
            return min(float(retry_after), self.max_delay)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


NO_RETRY = RetryPolicy(attempts=1)


@dataclass(frozen=True)
class Claim:
    """The answer of `claim_next`: a task, or none with the number held by other workers."""

    task: models.AssignedTask | None
    held_by_others: int = 0


def _stamp(value: datetime | date | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return format_timestamp(value)
    return value.isoformat()


class QueueDeskClient:
    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        organization_id: int | None = None,
        *,
        timeout: float | httpx.Timeout = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        url = base_url or os.environ.get(ENV_URL)
        if not url:
            raise ValueError(f"No server URL: pass base_url or set {ENV_URL}.")
        self.base_url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get(ENV_TOKEN)
        org = organization_id if organization_id is not None else os.environ.get(ENV_ORG)
        if org is not None and not str(org).isdigit():
            raise ValueError(f"The organization id must be a whole number, not {org!r} ({ENV_ORG}).")
        self.organization_id = int(org) if org is not None else None
        self.retry = retry
        headers = {"User-Agent": f"QueueDesk-client/{__version__}", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout, connect=10.0),
            transport=transport,
            follow_redirects=False,
        )
        self._me: models.Me | None = None
        self._extensions: bool | None = None

    async def __aenter__(self) -> "QueueDeskClient":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- transport ------------------------------------------------------------------------------

    async def _request(
        self,
        method: str,
        path: str,
        what: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotent: bool,
        ok: tuple[int, ...] = (200,),
    ) -> httpx.Response:
        policy = self.retry if idempotent else NO_RETRY
        query = {k: v for k, v in (params or {}).items() if v is not None}
        for attempt in range(policy.attempts):
            last = attempt + 1 == policy.attempts
            try:
                response = await self._http.request(method, path, json=json, params=query or None)
            except httpx.TimeoutException as exc:
                failure: QueueDeskError = Timeout(
                    f"{what} failed: no answer from {self.base_url} ({type(exc).__name__})."
                )
            except httpx.TransportError as exc:
                failure = ConnectionFailed(
                    f"{what} failed: cannot reach {self.base_url} ({exc or type(exc).__name__})."
                )
            else:
                if response.status_code in ok:
                    return response
                if response.status_code in RETRY_STATUSES and not last and idempotent:
                    await asyncio.sleep(policy.delay(attempt, response.headers.get("Retry-After")))
                    continue
                raise error_for(response.status_code, _maybe_json(response), response.text, what)
            if last:
                raise failure
            await asyncio.sleep(policy.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _get(self, path: str, what: str, params: Mapping[str, Any] | None = None) -> Any:
        response = await self._request("GET", path, what, params=params, idempotent=True)
        return _body(response, what)

    @staticmethod
    def _parse(model: type[M], data: Any, what: str) -> M:
        try:
            return model.model_validate(data)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            raise UnexpectedResponse(
                f"{what}: the server's answer is not a {model.__name__} ({where}: {first['msg']})."
            ) from None

    def _parse_list(self, model: type[M], data: Any, what: str) -> list[M]:
        if not isinstance(data, list):
            raise UnexpectedResponse(f"{what}: the server's answer is not a list.")
        return [self._parse(model, item, what) for item in data]

    # --- who and where ----------------------------------------------------------------------------

    async def me(self) -> models.Me:
        """B1. Who the key belongs to (QueueDesk servers only)."""
        return await self._me_as("Reading /me")

    async def _me_as(self, what: str) -> models.Me:
        if self._me is not None:
            return self._me
        if self._extensions is False:
            raise NotSupported(f"{what} failed: the server has no /me.")
        try:
            data = await self._get("/me", what)
        except NotFound:
            self._extensions = False
            raise NotSupported(f"{what} failed: the server has no /me.") from None
        self._me = self._parse(models.Me, data, what)
        self._extensions = self._me.server == "queuedesk"
        return self._me

    async def supports_extensions(self) -> bool:
        """True when the server speaks QueueDesk's Part B; False for a documented-interface-only server."""
        if self._extensions is None:
            try:
                await self._me_as(f"Connecting to {self.base_url}")
            except NotSupported:
                return False
        return bool(self._extensions)

    async def org(self) -> int:
        if self.organization_id is None:
            try:
                self.organization_id = (await self.me()).organization_id
            except NotSupported:
                raise QueueDeskError(
                    f"This server does not tell the organization id: pass organization_id or set {ENV_ORG}."
                ) from None
        return self.organization_id

    async def _require_extensions(self, what: str) -> None:
        if not await self.supports_extensions():
            raise NotSupported(f"{what} is a QueueDesk extension.")

    async def _queues_path(self) -> str:
        # The original service answers 500 on several `/queues/...` routes; its `/workflows/...`
        # spelling works everywhere, so that is what a Part-A-only server gets.
        kind = "queues" if await self.supports_extensions() else "workflows"
        return f"/orgs/{await self.org()}/{kind}"

    async def _queue_path(self, queue_id: int) -> str:
        return f"{await self._queues_path()}/{queue_id}"

    async def _ext_queue_path(self, queue_id: int, what: str) -> str:
        await self._require_extensions(what)
        return f"/orgs/{await self.org()}/queues/{queue_id}"

    async def health(self) -> models.Health:
        """B14. Answers once the server's database answers; no key needed."""
        return self._parse(models.Health, await self._get("/healthz", "Checking health"), "Checking health")

    # --- Part A -------------------------------------------------------------------------------------

    async def queues(self) -> list[models.Queue]:
        """A3. The organization's queues, with pending counts and who is active."""
        what = "Listing queues"
        return self._parse_list(models.Queue, await self._get(await self._queues_path(), what), what)

    async def queue(self, queue_id: int) -> models.QueueDetail:
        """A4. One queue with its description and blocks."""
        what = f"Reading queue {queue_id}"
        return self._parse(models.QueueDetail, await self._get(await self._queue_path(queue_id), what), what)

    async def create_task(self, queue_id: int, data: Mapping[str, Any]) -> models.Task:
        """A1. Never retried: a repeated create would make a second task."""
        what = f"Creating a task in queue {queue_id}"
        path = f"{await self._queue_path(queue_id)}/tasks/create"
        response = await self._request(
            "POST", path, what, json={"data": dict(data)}, idempotent=False, ok=(200, 201)
        )
        return self._parse(models.Task, _body(response, what), what)

    async def completed_tasks(
        self,
        queue_id: int,
        *,
        offset: int = 0,
        limit: int = 100,
        completed_by: str | None = None,
        start_date: datetime | date | str | None = None,
        end_date: datetime | date | str | None = None,
    ) -> models.TaskPage:
        """A2. One page of completed tasks, newest first."""
        what = f"Listing completed tasks of queue {queue_id}"
        params = {
            "offset": offset,
            "limit": limit,
            "completed_by": completed_by,
            "start_date": _stamp(start_date),
            "end_date": _stamp(end_date),
        }
        path = f"{await self._queue_path(queue_id)}/tasks/completed"
        return self._parse(models.TaskPage, await self._get(path, what, params), what)

    async def completed_pages(
        self,
        queue_id: int,
        *,
        page_size: int = 1000,
        completed_by: str | None = None,
        start_date: datetime | date | str | None = None,
        end_date: datetime | date | str | None = None,
    ) -> AsyncIterator[models.TaskPage]:
        """Every page of completed tasks. Tasks completed while paging are left out (on a QueueDesk
        server the pages after the first are bounded by the first page's newest completion), so no
        task is skipped or repeated as new completions arrive."""
        offset = 0
        bound = end_date
        while True:
            page = await self.completed_tasks(
                queue_id,
                offset=offset,
                limit=page_size,
                completed_by=completed_by,
                start_date=start_date,
                end_date=bound,
            )
            yield page
            if offset == 0 and page.tasks and await self.supports_extensions():
                # The first page was already within `end_date`, so its newest completion is a bound
                # no later than that: what completes from now on stays out of the following pages.
                bound = page.tasks[0].completed_at
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    async def iter_completed(self, queue_id: int, **filters: Any) -> AsyncIterator[models.Task]:
        """Every completed task of the queue, newest first, fetched page by page."""
        async for page in self.completed_pages(queue_id, **filters):
            for task in page.tasks:
                yield task

    async def flush(self, queue_id: int) -> None:
        """A5. Deletes every task of the queue that is not completed."""
        path = f"{await self._queue_path(queue_id)}/flush"
        await self._request("PUT", path, f"Flushing queue {queue_id}", idempotent=True, ok=(200, 204))

    async def webhook(self, queue_id: int) -> models.Webhook:
        """A6. `target` is "" when the queue has no webhook."""
        what = f"Reading the webhook of queue {queue_id}"
        return self._parse(
            models.Webhook, await self._get(f"{await self._queue_path(queue_id)}/webhook", what), what
        )

    async def set_webhook(self, queue_id: int, target: str | None) -> None:
        """A7. `""` or None removes the webhook."""
        path = f"{await self._queue_path(queue_id)}/webhook"
        what = f"Setting the webhook of queue {queue_id}"
        await self._request(
            "PUT", path, what, json={"target": target or ""}, idempotent=True, ok=(200, 201, 204)
        )

    # --- Part B -------------------------------------------------------------------------------------

    async def pending_tasks(
        self, queue_id: int, *, status: list[str] | None = None, offset: int = 0, limit: int = 100
    ) -> models.PendingPage:
        """B2. Tasks not completed, oldest first, with their assignment."""
        what = f"Listing pending tasks of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks"
        params = {"offset": offset, "limit": limit, "status": ",".join(status) if status else None}
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

    async def claim_next(self, queue_id: int) -> Claim:
        """B4. The caller's live claim again, or the next claimable task, or none (with how many are held)."""
        what = f"Claiming work in queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/next"
        response = await self._request("POST", path, what, idempotent=False, ok=(200, 204))
        if response.status_code == 204:
            held = response.headers.get("X-Tasks-Held", "0")
            return Claim(None, int(held) if held.isdigit() else 0)
        return Claim(self._parse(models.AssignedTask, _body(response, what), what))

    async def heartbeat(self, queue_id: int, task_id: int) -> models.Assignment:
        """B5. Extends the caller's lease (safe to retry)."""
        what = f"Extending the lease on task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/heartbeat"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.Assignment, _body(response, what), what)

    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> models.AssignedTask:
        """B6. Gives the task back (status `open`), optionally keeping a draft of its data."""
        what = f"Releasing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/release"
        body = None if draft is None else {"data": dict(draft)}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.AssignedTask, _body(response, what), what)

    async def complete(self, queue_id: int, task_id: int, data: Mapping[str, Any]) -> models.Task:
        """B7. Never retried blindly: a second completion is a 409 `already_completed`."""
        what = f"Completing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/complete"
        response = await self._request("POST", path, what, json={"data": dict(data)}, idempotent=False)
        return self._parse(models.Task, _body(response, what), what)

    async def import_tasks(
        self, queue_id: int, items: list[Mapping[str, Any]], source: str = "manual"
    ) -> models.ImportResult:
        """B8. All or nothing, at most 10,000 tasks and 1 MiB per call."""
        what = f"Importing {len(items)} task(s) into queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/import"
        body = {"source": source, "tasks": [{"data": dict(item)} for item in items]}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.ImportResult, _body(response, what), what)

    async def remove_webhook(self, queue_id: int) -> None:
        """B9 (falls back to A7 with "" on a documented-interface-only server)."""
        if not await self.supports_extensions():
            await self.set_webhook(queue_id, "")
            return
        what = f"Removing the webhook of queue {queue_id}"
        await self._request("DELETE", f"{await self._queue_path(queue_id)}/webhook", what, idempotent=True)

    async def webhook_secret(self, queue_id: int) -> str:
        what = f"Reading the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret"
        return self._parse(models.WebhookSecret, await self._get(path, what), what).secret

    async def rotate_webhook_secret(self, queue_id: int) -> str:
        what = f"Rotating the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret/rotate"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.WebhookSecret, _body(response, what), what).secret

    async def deliveries(self, queue_id: int, *, offset: int = 0, limit: int = 100) -> models.DeliveryPage:
        """B10. The webhook delivery log, newest first."""
        what = f"Listing webhook deliveries of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries"
        return self._parse(
            models.DeliveryPage, await self._get(path, what, {"offset": offset, "limit": limit}), what
        )

    async def delivery(self, queue_id: int, delivery_id: int) -> models.DeliveryDetail:
        what = f"Reading webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}"
        return self._parse(models.DeliveryDetail, await self._get(path, what), what)

    async def redeliver(self, queue_id: int, delivery_id: int) -> models.Delivery:
        """B11. Makes the delivery pending and due now."""
        what = f"Redelivering webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}/redeliver"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.Delivery, _body(response, what), what)

    async def create_queue(
        self, name: str, blocks: list[Mapping[str, Any]], description: str = ""
    ) -> models.QueueDetail:
        """B12."""
        what = f"Creating queue {name!r}"
        await self._require_extensions(what)
        body = {"name": name, "description": description, "data": [dict(b) for b in blocks]}
        response = await self._request(
            "POST", f"/orgs/{await self.org()}/queues", what, json=body, idempotent=False
        )
        return self._parse(models.QueueDetail, _body(response, what), what)

    async def update_queue(
        self,
        queue_id: int,
        *,
        name: str | None = None,
        description: str | None = None,
        blocks: list[Mapping[str, Any]] | None = None,
    ) -> models.QueueDetail:
        """B13. Changes only what is given."""
        what = f"Changing queue {queue_id}"
        path = await self._ext_queue_path(queue_id, what)
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if description is not None:
            body["description"] = description
        if blocks is not None:
            body["data"] = [dict(b) for b in blocks]
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.QueueDetail, _body(response, what), what)


def _maybe_json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _body(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        snippet = " ".join(response.text.split())[:120]
        raise UnexpectedResponse(
            f"{what}: the server's answer is not JSON ({snippet!r}).", status=response.status_code
        ) from None
