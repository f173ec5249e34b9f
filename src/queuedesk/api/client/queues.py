"""Queues: the list, one queue, its changes, flushing and its stats."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.transport import body_of
from queuedesk.api.errors import (
    NotFound,
)
from queuedesk.api.timestamps import format_timestamp


def _mark_number_ids(detail: models.QueueDetail, raw: Any) -> None:
    """Remember which blocks the server named by a JSON number: the original stores no value for them."""
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        return
    for block, given in zip(detail.data, raw["data"], strict=False):
        if isinstance(given, dict) and isinstance(given.get("id"), int):
            block._number_id = True


def _blocks_with_string_ids(data: Any) -> Any:
    """The original service keeps integer block ids (`{"id": 7}`); task data names them "7". Its
    queue's description is `task_description`."""
    if isinstance(data, dict) and "description" not in data and isinstance(data.get("task_description"), str):
        data = {k: v for k, v in data.items() if k != "task_description"} | {
            "description": data["task_description"]
        }
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        blocks = [
            {**b, "id": str(b["id"])} if isinstance(b, dict) and isinstance(b.get("id"), int) else b
            for b in data["data"]
        ]
        return {**data, "data": blocks}
    return data


class QueuesMixin(ClientCore):
    """A3, A4, A5, B12, B13, B15 and the check that a queue is the organization's."""

    async def queues(self) -> list[models.Queue]:
        """A3. The organization's queues, with pending counts and who is active."""
        return await self._own_queues("Listing queues")

    async def queue(self, queue_id: int) -> models.QueueDetail:
        """A4. One queue with its description and blocks."""
        what = f"Reading queue {queue_id}"
        data = await self._get(await self._queue_path(queue_id, what), what)
        detail = self._parse(models.QueueDetail, _blocks_with_string_ids(data), what)
        _mark_number_ids(detail, data)
        return detail

    async def _own_queue(self, queue_id: int, what: str) -> models.Queue:
        """The queue as the organization's list has it; NotFound when it is not the organization's."""
        await self._queue_path(queue_id, what)  # NotFound when it is not the organization's
        for queue in await self._own_queues(what):
            if queue.id == queue_id:
                return queue
        raise NotFound(f"{what} failed: queue {queue_id} is no longer among the organization's queues.")

    async def flush(self, queue_id: int) -> None:
        """A5. Deletes every task of the queue that is not completed."""
        what = f"Flushing queue {queue_id}"
        path = f"{await self._queue_path(queue_id, what)}/flush"
        await self._request("PUT", path, what, idempotent=True, ok=(200, 204))

    async def stats(
        self, queue_id: int, *, since: datetime | None = None, bucket_minutes: int | None = None
    ) -> models.QueueStats:
        """B15. Completions per bucket since `since` (default: the server's, 8 hours in 15 minutes)."""
        what = f"Reading the stats of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/stats"
        params: dict[str, Any] = {}
        if since is not None:
            params["since"] = format_timestamp(since)
        if bucket_minutes is not None:
            params["bucket_minutes"] = bucket_minutes
        return self._parse(models.QueueStats, await self._get(path, what, params), what)

    async def create_queue(
        self,
        name: str,
        blocks: list[Mapping[str, Any]],
        description: str = "",
        review_percent: int | None = None,
        consensus: Mapping[str, Any] | None = None,
        gold_percent: int | None = None,
    ) -> models.QueueDetail:
        """B12; `review_percent` (B19), `consensus` (B21, as `consensus_body` makes it) and
        `gold_percent` (B22) only when given (`NoConsensus` or `NoGold`, with nothing sent, on a
        server without the part)."""
        what = f"Creating queue {name!r}"
        if consensus is not None:
            await self._require_feature("B21", what)
        if gold_percent is not None:
            await self._require_feature("B22", what)
        await self._require_extensions(what)
        body: dict[str, Any] = {"name": name, "description": description, "data": [dict(b) for b in blocks]}
        if review_percent is not None:
            body["review_percent"] = review_percent
        if consensus is not None:
            body["consensus"] = dict(consensus)
        if gold_percent is not None:
            body["gold_percent"] = gold_percent
        response = await self._request(
            "POST", f"/orgs/{await self.org()}/queues", what, json=body, idempotent=False
        )
        return self._parse(models.QueueDetail, body_of(response, what), what)

    async def update_queue(
        self,
        queue_id: int,
        *,
        name: str | None = None,
        description: str | None = None,
        blocks: list[Mapping[str, Any]] | None = None,
        review_percent: int | None = None,
        gold_percent: int | None = None,
    ) -> models.QueueDetail:
        """B13. Changes only what is given (`gold_percent`: `NoGold`, with nothing sent, on a server
        without B22)."""
        what = f"Changing queue {queue_id}"
        if gold_percent is not None:
            await self._require_feature("B22", what)
        path = await self._ext_queue_path(queue_id, what)
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if description is not None:
            body["description"] = description
        if blocks is not None:
            body["data"] = [dict(b) for b in blocks]
        if review_percent is not None:
            body["review_percent"] = review_percent
        if gold_percent is not None:
            body["gold_percent"] = gold_percent
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.QueueDetail, body_of(response, what), what)
