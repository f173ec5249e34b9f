"""Bulk imports: in one request, or as a session of chunks committed at once."""

from collections.abc import Mapping, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.transport import body_of
from queuedesk.api.priority_rules import features_for
from queuedesk.api.wording import counted


def task_entries(
    items: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any] | None] | None,
    placed: Sequence[Mapping[str, Any] | None] | None = None,
) -> list[dict[str, Any]]:
    """B8's `tasks`: each item's `data`, and `gold` (B22) beside it where `gold` gives one for it
    (`gold` is parallel to `items`; None for an ordinary task); `placed` (parallel too) the keys
    `priority`, `due_at` (B24) and `reserved_for` (B25) of each item, as `priority_rules.placement`
    makes them."""
    for name, given in (("gold", gold), ("placed", placed)):
        if given is not None and len(given) != len(items):
            raise ValueError(
                f"{name} has {len(given)} entries for {len(items)} tasks: give one (or None) per task"
            )
    entries: list[dict[str, Any]] = [{"data": dict(item)} for item in items]
    for entry, expected in zip(entries, gold or (), strict=False):
        if expected is not None:
            entry["gold"] = dict(expected)
    for entry, keys in zip(entries, placed or (), strict=False):
        if keys:
            entry.update(keys)
    return entries


def needed_features(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """The Part B sections B8's `tasks` need, in order."""
    return sorted({feature for entry in entries for feature in features_for(entry)})


class ImportsMixin(ClientCore):
    """B8 and import sessions."""

    async def import_tasks(
        self,
        queue_id: int,
        items: list[Mapping[str, Any]],
        source: str = "manual",
        *,
        gold: Sequence[Mapping[str, Any] | None] | None = None,
        placed: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> models.ImportResult:
        """B8. All or nothing, at most 10,000 tasks and 1 MiB per call. `gold` (B22), one entry per
        item: the expected values of the items that are gold tasks, None for the others (`NoGold`,
        with nothing sent, on a server without B22, when any is given). `placed`, one entry per
        item: its `priority`, `due_at` (B24) and `reserved_for` (B25) as `priority_rules.placement`
        makes them (`NoPriority` / `NoAssignment`, with nothing sent, on a server without them)."""
        what = f"Importing {counted(len(items), 'task')} into queue {queue_id}"
        entries = task_entries(items, gold, placed)
        for feature in needed_features(entries):
            await self._require_feature(feature, what)
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
        placed: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> models.ImportSession:
        """Stage rows `offset`.. of the import; rows already staged there are left as they are.
        `gold` and `placed` as `import_tasks` takes them."""
        what = f"Staging rows {offset}-{offset + len(items) - 1} of import {session_id}"
        entries = task_entries(items, gold, placed)
        for feature in needed_features(entries):
            await self._require_feature(feature, what)
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
