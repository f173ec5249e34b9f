"""Completed tasks: one page, or every page once, with the filters a server lacks applied here."""

from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import Any, Literal

import httpx

from queuedesk.api import models
from queuedesk.api.client.completed_filters import Unseen, Wanted
from queuedesk.api.client.queues import QueuesMixin
from queuedesk.api.client.results import CompletedSort, Moment, check_page
from queuedesk.api.errors import (
    NotSupported,
)


class CompletedMixin(QueuesMixin):
    """A2 and the walks over its pages."""

    async def completed_tasks(
        self,
        queue_id: int,
        *,
        offset: int = 0,
        limit: int = 100,
        completed_by: str | None = None,
        start_date: Moment | None = None,
        end_date: Moment | None = None,
        q: str | None = None,
        order: Literal["asc", "desc"] | None = None,
        sort: CompletedSort | None = None,
    ) -> models.TaskPage:
        """A2. One page of completed tasks, newest first (`order="asc"`: oldest first; `sort` by
        another column). Dates are inclusive; a plain date is a UTC day. `q` finds text in any
        block's value, in any case.

        A server without QueueDesk's extensions takes only plain dates and no `completed_by`: there
        the client walks every page the dates allow and cuts this page from what matches, so `count`
        is exact and `next`/`previous` repeat this query (follow them through this client). `q` and
        `order` and `sort` need a QueueDesk server (`NotSupported` otherwise)."""
        check_page(offset, limit)
        what = f"Listing completed tasks of queue {queue_id}"
        wanted = Wanted.of(completed_by, start_date, end_date)
        path = f"{await self._queue_path(queue_id, what)}/tasks/completed"
        if q is not None or order is not None or sort is not None:
            await self._require_extensions(what)
            extra = {"q": q, "order": order, "sort": sort}
            return await self._completed_page(
                path, offset, limit, {**wanted.params(True, None), **extra}, what
            )
        if not wanted.any or await self._filters_on_server(wanted, what):
            return await self._completed_page(path, offset, limit, wanted.params(True, None), what)
        matching: list[models.Task] = []
        async for page in self.completed_pages(
            queue_id, completed_by=completed_by, start_date=start_date, end_date=end_date
        ):
            matching += page.tasks
        query = wanted.params(True, None)
        following = offset + limit < len(matching)
        return models.TaskPage(
            next=self._link(path, query, offset + limit, limit) if following else None,
            previous=self._link(path, query, max(0, offset - limit), limit) if offset > 0 else None,
            count=len(matching),
            tasks=matching[offset : offset + limit],
        )

    async def _filters_on_server(self, wanted: Wanted, what: str) -> bool:
        """True when the server filters by itself; False when the client must (Part A only)."""
        if await self.supports_extensions():
            return True
        if wanted.completed_by == "me":
            raise NotSupported(
                f"{what} failed: completed_by='me' needs a QueueDesk server, this one cannot tell whose "
                "key this is; give the email address instead."
            )
        return False

    async def _completed_page(
        self, path: str, offset: int, limit: int, filters: Mapping[str, str | None], what: str
    ) -> models.TaskPage:
        params = {"offset": offset, "limit": limit, **filters}
        return self._parse(models.TaskPage, await self._get(path, what, params), what)

    def _link(self, path: str, query: Mapping[str, str | None], offset: int, limit: int) -> str:
        params = {k: v for k, v in {**query, "limit": limit, "offset": offset}.items() if v is not None}
        return str(httpx.URL(self.base_url + path, params=params))

    async def completed_pages(
        self,
        queue_id: int,
        *,
        page_size: int = 1000,
        completed_by: str | None = None,
        start_date: Moment | None = None,
        end_date: Moment | None = None,
        q: str | None = None,
    ) -> AsyncIterator[models.TaskPage]:
        """Every page of completed tasks, newest first, each task exactly once.

        The walk is bounded by the first page's newest completion, so tasks completed while paging
        stay out, and repeats that offset paging brings (when completions push the list down) are
        dropped, on every server. Where the server lacks a filter the pages carry only the matching
        tasks, and `count` is the server's (what it could filter). `q` (text in any block's value,
        as `completed_tasks`) needs a QueueDesk server (`NotSupported` otherwise)."""
        if not 1 <= page_size <= 1000:
            raise ValueError(f"page_size must be 1-1000, not {page_size}")
        what = f"Listing completed tasks of queue {queue_id}"
        wanted = Wanted.of(completed_by, start_date, end_date)
        path = f"{await self._queue_path(queue_id, what)}/tasks/completed"
        if q is not None:
            await self._require_extensions(what)
        on_server = await self._filters_on_server(wanted, what)
        unseen = Unseen()
        bound: datetime | None = None
        offset = 0
        while True:
            params = {**wanted.params(on_server, bound), "q": q}
            page = await self._completed_page(path, offset, page_size, params, what)
            stamps = [t.completed_at for t in page.tasks if t.completed_at is not None]
            if bound is None and stamps:
                bound = max(stamps)
            kept = [
                task
                for task in page.tasks
                if unseen.first_time(task)
                and (task.completed_at is None or bound is None or task.completed_at <= bound)
                and (on_server or wanted.matches(task))
            ]
            yield page.model_copy(update={"tasks": kept})
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    async def iter_completed(self, queue_id: int, **filters: Any) -> AsyncIterator[models.Task]:
        """Every completed task of the queue, newest first, fetched page by page."""
        async for page in self.completed_pages(queue_id, **filters):
            for task in page.tasks:
                yield task
