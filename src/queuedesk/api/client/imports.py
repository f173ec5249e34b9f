"""Bulk imports: in one request, or as a session of chunks committed at once."""

from collections.abc import Mapping, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.transport import body_of
from queuedesk.api.wording import counted


class ImportsMixin(ClientCore):
    """B8 and import sessions."""

    async def import_tasks(
        self, queue_id: int, items: list[Mapping[str, Any]], source: str = "manual"
    ) -> models.ImportResult:
        """B8. All or nothing, at most 10,000 tasks and 1 MiB per call."""
        what = f"Importing {counted(len(items), 'task')} into queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/import"
        body = {"source": source, "tasks": [{"data": dict(item)} for item in items]}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.ImportResult, body_of(response, what), what)

    # Import sessions: all or nothing over several requests. Each call may be repeated safely (the
    # session is found by its key, a chunk by its offset, a commit answers the same ids), so all retry.

    async def open_import(self, queue_id: int, key: str, source: str, total: int) -> models.ImportSession:
        """Open the queue's import session with this key, or find the one already open (or committed)."""
        what = f"Opening an import of {counted(total, 'row')} into queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports"
        body = {"key": key, "source": source, "total": total}
        response = await self._request("POST", path, what, json=body, idempotent=True)
        return self._parse(models.ImportSession, body_of(response, what), what)

    async def import_session(self, queue_id: int, session_id: int) -> models.ImportSession:
        what = f"Reading import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}"
        return self._parse(models.ImportSession, await self._get(path, what), what)

    async def stage_import_chunk(
        self, queue_id: int, session_id: int, offset: int, items: Sequence[Mapping[str, Any]]
    ) -> models.ImportSession:
        """Stage rows `offset`.. of the import; rows already staged there are left as they are."""
        what = f"Staging rows {offset}-{offset + len(items) - 1} of import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/chunks"
        body = {"offset": offset, "tasks": [{"data": dict(item)} for item in items]}
        response = await self._request("POST", path, what, json=body, idempotent=True)
        return self._parse(models.ImportSession, body_of(response, what), what)

    async def commit_import(self, queue_id: int, session_id: int) -> models.ImportResult:
        """Every staged row becomes a task at once; committing again answers the same ids."""
        what = f"Committing import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/commit"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.ImportResult, body_of(response, what), what)
