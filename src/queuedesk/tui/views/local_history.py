"""The filtered completed history of a server without QueueDesk's extensions (the original Task Queue
Service): it filters only by whole days and not by worker, so the client walks the pages its dates
allow and keeps what matches. That walk is done once per filter here and paged locally; asking the
client for each page the table wants would walk everything again for every page."""

import asyncio
from typing import Any

from queuedesk.api.client import QueueDeskClient
from queuedesk.api.models import Task
from queuedesk.tui.widgets.paged_table import Page


class LocalHistory:
    def __init__(self, client: QueueDeskClient, queue_id: int, filters: dict[str, Any]) -> None:
        self.client = client
        self.queue_id = queue_id
        self.filters = dict(filters)
        self.walks = 0  # how often the server's pages were walked (once, unless it failed)
        self._tasks: list[Task] | None = None
        self._lock = asyncio.Lock()  # two pages asked at once still walk once

    async def page(self, offset: int, limit: int) -> Page:
        async with self._lock:
            if self._tasks is None:
                self.walks += 1
                tasks: list[Task] = []
                async for page in self.client.completed_pages(self.queue_id, **self.filters):
                    tasks += page.tasks
                self._tasks = tasks
            tasks = self._tasks
        return Page(len(tasks), tasks[offset : offset + limit])
