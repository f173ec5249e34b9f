"""Where a moment falls in the completed history as the Completed tab lists it (newest or oldest
first, with its filters): one counting request, so `g` reaches a day or a task of a history of
millions at once rather than a page per key press."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from queuedesk.api.client import QueueDeskClient

TICK = timedelta(microseconds=1)  # the contract's timestamps are to the microsecond


@dataclass(frozen=True)
class HistoryJump:
    client: QueueDeskClient
    queue_id: int
    filters: dict[str, Any]  # completed_by, start_date, end_date as the tab lists with them
    oldest_first: bool

    async def rows_before(self, at: datetime) -> int:
        """How many rows the list shows before a task completed at `at` (newest first: those completed
        later; oldest first: those completed earlier). Tasks completed in the same microsecond are
        not told apart."""
        start, end = self.filters.get("start_date"), self.filters.get("end_date")
        if self.oldest_first:
            end = at - TICK if end is None else min(end, at - TICK)
        else:
            start = at + TICK if start is None else max(start, at + TICK)
        if start is not None and end is not None and start > end:
            return 0
        others = {k: v for k, v in self.filters.items() if k not in ("start_date", "end_date")}
        page = await self.client.completed_tasks(
            self.queue_id, limit=1, start_date=start, end_date=end, **others
        )
        return page.count

    def holds(self, completed_at: datetime | None, completed_by: str | None) -> bool:
        """Whether a completed task is in the list these filters make."""
        if completed_at is None:
            return False
        start, end = self.filters.get("start_date"), self.filters.get("end_date")
        by = self.filters.get("completed_by")
        if by and by != "me" and (completed_by or "").casefold() != by.casefold():
            return False
        return (start is None or completed_at >= start) and (end is None or completed_at <= end)
