"""Bulk imports: in one request, or as a session of chunks committed at once."""

from collections.abc import Mapping, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.transport import body_of
from queuedesk.api.wording import counted


def task_entries(
    items: Sequence[Mapping[str, Any]], gold: Sequence[Mapping[str, Any] | None] | None
) -> list[dict[str, Any]]:
    """B8's `tasks`: each item's `data`, and `gold` (B22) beside it where `gold` gives one for it
    (`gold` is parallel to `items`; None for an ordinary task)."""
    if gold is not None and len(gold) != len(items):
        raise ValueError(f"gold has {len(gold)} entries for {len(items)} tasks: give one (or None) per task")
    entries: list[dict[str, Any]] = [{"data": dict(item)} for item in items]
    for entry, expected in zip(entries, gold or (), strict=False):
        if expected is not None:
            entry["gold"] = dict(expected)
    return entries


class ImportsMixin(ClientCore):
    """B8 and import sessions."""

    async def import_tasks(
        self,
        queue_id: int,
        items: list[Mapping[str, Any]],
        source: str = "manual",
        *,
        gold: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> models.ImportResult:
        """B8. All or nothing, at most 10,000 tasks and 1 MiB per call. `gold` (B22), one entry per
        item: the expected values of the items that are gold tasks, None for the others (`NoGold`,
        with nothing sent, on a server without B22, when any is given)."""
        what = f"Importing {counted(len(items), 'task')} into queue {queue_id}"
        entries = task_entries(items, gold)
        if any("gold" in entry for entry in entries):
            await self._require_feature("B22", what)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/import"
        body = {"source": source, "tasks": entries}
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
        self,
        queue_id: int,
        session_id: int,
        offset: int,
        items: Sequence[Mapping[str, Any]],
        *,
        gold: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> models.ImportSession:
        """Stage rows `offset`.. of the import; rows already staged there are left as they are.
        `gold` as `import_tasks` takes it."""
        what = f"Staging rows {offset}-{offset + len(items) - 1} of import {session_id}"
        entries = task_entries(items, gold)
        if any("gold" in entry for entry in entries):
            await self._require_feature("B22", what)
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/chunks"
        body = {"offset": offset, "tasks": entries}
        response = await self._request("POST", path, what, json=body, idempotent=True)
        return self._parse(models.ImportSession, body_of(response, what), what)

    async def commit_import(self, queue_id: int, session_id: int) -> models.ImportResult:
        """Every staged row becomes a task at once; committing again answers the same ids."""
        what = f"Committing import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/commit"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.ImportResult, body_of(response, what), what)
