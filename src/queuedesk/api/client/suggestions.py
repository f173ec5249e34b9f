"""Suggestions (B23): tasks created and imported with values proposed by a model or a rule.

Every call here first checks that the server lists B23 in `GET /me`'s `features`
(`ClientCore._require_feature`): on an older server it raises `FeatureMissing` naming suggestions,
with nothing sent. The suggestions are checked here first, by the rules the server uses
(`api/suggestion_rules.py`), against the queue's blocks: `ValidationError`, with nothing sent. A
task's `suggestions` and `suggestion_outcome` come with every Part B task answer
(`models.AssignedTask`); each agent's acceptance with the stats (`models.QueueStats.by_agent`).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from queuedesk.api import models
from queuedesk.api.blocks import first_problems
from queuedesk.api.client.imports import ImportsMixin
from queuedesk.api.client.queues import QueuesMixin
from queuedesk.api.client.transport import body_of
from queuedesk.api.errors import ValidationError
from queuedesk.api.models import ErrorItem
from queuedesk.api.suggestion_rules import suggestion_problems

Suggestions = Mapping[str, Mapping[str, Any]]  # {block id: {"value", "agent", "score"}}


class SuggestionsMixin(QueuesMixin, ImportsMixin):
    """B23 through A1 and B8."""

    async def supports_suggestions(self) -> bool:
        """True when the server takes suggestions (B23 among `/me`'s `features`)."""
        return await self.supports("B23")

    async def create_suggested_task(
        self, queue_id: int, data: Mapping[str, Any], suggestions: Suggestions
    ) -> models.Task:
        """A1 with `suggestions` (admins). Never retried: a repeated create would make a second task."""
        what = f"Creating a task with suggestions in queue {queue_id}"
        await self._require_feature("B23", what)
        await self._check_suggestions(queue_id, [suggestions], what)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/create"
        body = {"data": dict(data), "suggestions": {k: dict(v) for k, v in suggestions.items()}}
        response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 201))
        return self._parse(models.Task, body_of(response, what), what)

    async def import_suggested_tasks(
        self,
        queue_id: int,
        items: Sequence[Mapping[str, Any]],
        suggestions: Sequence[Suggestions | None],
        source: str = "manual",
    ) -> models.ImportResult:
        """B8 with `suggestions`, one entry per item (None: none for it). All or nothing."""
        if len(suggestions) != len(items):
            raise ValueError(
                f"suggestions has {len(suggestions)} entries for {len(items)} tasks: one per task"
            )
        what = f"Importing {len(items)} tasks with suggestions into queue {queue_id}"
        await self._require_feature("B23", what)
        await self._check_suggestions(queue_id, suggestions, what)
        entries: list[dict[str, Any]] = []
        for item, offered in zip(items, suggestions, strict=True):
            entry: dict[str, Any] = {"data": dict(item)}
            if offered:
                entry["suggestions"] = {k: dict(v) for k, v in offered.items()}
            entries.append(entry)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/import"
        body = {"source": source, "tasks": entries}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.ImportResult, body_of(response, what), what)

    async def _check_suggestions(
        self, queue_id: int, all_offered: Sequence[Suggestions | None], what: str
    ) -> None:
        blocks = (await self.queue(queue_id)).data
        for index, offered in enumerate(all_offered):
            field = "suggestions" if len(all_offered) == 1 else f"tasks[{index}].suggestions"
            found = first_problems(suggestion_problems(blocks, offered, field), keep=5)
            if found:
                said = "; ".join(f"{p.field}: {p.message}" for p in found)
                items = [ErrorItem(code=p.code, field=p.field, message=p.message) for p in found]
                raise ValidationError(f"{what} failed: {said}", errors=items, code=found.first[0].code)
