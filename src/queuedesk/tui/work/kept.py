"""Where the typing on a task that left the session unsubmitted went, in the worker's words (the
rule: `docs/work-endings.md`)."""

import contextlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from queuedesk.api import errors
from queuedesk.api.models import AssignedTask
from queuedesk.tui.work.journal import Entry

KEPT_PREFIX = "not submitted, kept here: "
REFUSED_WHERE = "R on the queue list shows it, to copy the values."
GONE_UNLEFT = (
    "the work screen closed before the task could be given back (the key refused, or the session ended)"
)


@dataclass
class Kept:
    """Where a task's typing went: as its draft on the server (B6 release with `data`), in the local
    journal (`journal`: why it is there), or both (the server kept the draft but for the fields it
    refused)."""

    task: AssignedTask
    draft: bool
    journal: str | None = None
    problem: Exception | None = None


REMOVED = "the task was removed from the queue (flushed)"
TAKEN = "the task was no longer yours (its claim ran out and someone else took it)"


def lost_words(exc: Exception) -> str:
    """Why typing could not reach the server, in a worker's words."""
    if isinstance(exc, errors.AuthenticationError):
        return "the server no longer accepted your key (revoked, or the account disabled)"
    if isinstance(exc, errors.NotFound):
        return REMOVED
    if isinstance(exc, errors.Conflict):
        return TAKEN
    return f"the server could not be reached ({str(exc).rstrip('.')})"


def lost_task_words(task_id: int, *, removed: bool, kept: bool) -> str:
    """The task on screen was lost while held (flushed, or taken after its lease ran out)."""
    said = (
        f"Task {task_id}: this task was removed from the queue (flushed)."
        if removed
        else f"Task {task_id} is no longer yours (its lease ran out and someone else took it)."
    )
    return said + (f" What you entered on it is kept on this computer: {REFUSED_WHERE}" if kept else "")


def kept_words(kept: Kept) -> tuple[str, str]:
    """What the worker is told of `kept`: the notification's text and title."""
    task_id = kept.task.id
    if kept.journal is None:
        return (
            f"Task {task_id} given back with what you entered kept as a draft: "
            "it is filled in again when the task is next opened.",
            "Draft kept",
        )
    if kept.draft:
        return (
            f"Task {task_id} given back with what you entered kept as a draft, but for what the "
            f"server refused ({kept.journal}). All you entered is kept on this computer: {REFUSED_WHERE}",
            "Draft kept",
        )
    return (
        f"What you entered on task {task_id} was not sent ({kept.journal.removeprefix(KEPT_PREFIX)}). "
        f"It is kept on this computer: {REFUSED_WHERE}",
        "Your typing is kept",
    )


class Releases(Protocol):
    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> object: ...


class Keeps(Protocol):
    def keep(self, entry: Entry, why: str) -> None: ...


class Keeper:
    """Gives a task back with what was typed on it kept: the server's draft where it can be, else
    the journal (through the outbox's `keep`)."""

    def __init__(self, client: Releases, outbox: Keeps, queue_id: int, queue_name: str) -> None:
        self.client = client
        self.outbox = outbox
        self.queue_id = queue_id
        self.queue_name = queue_name

    async def release_keeping(self, task: AssignedTask, typed: dict[str, Any] | None) -> Kept | None:
        """Give `task` back with `typed` as its draft (B6). What the server will not keep as the draft
        goes to the journal: the fields it refused (a blocks change removed a chosen option: the
        rest is still the draft, and the task is given back without them), or all of it when the
        task could not be given back (the key refused, the claim lost, the task flushed, the
        network; its lease then runs out on its own). None when nothing was typed."""
        if not typed:
            with contextlib.suppress(errors.QueueDeskError):  # else its lease runs out on its own
                await self.client.release(self.queue_id, task.id)
            return None
        try:
            await self.client.release(self.queue_id, task.id, typed)
        except errors.ValidationError as exc:
            refused = {(i.field or "").removeprefix("data.").removeprefix("data") for i in exc.errors}
            rest = {k: v for k, v in typed.items() if k not in refused}
            why = (
                "not kept as the task's draft: the queue's fields changed ("
                + "; ".join(i.message for i in exc.errors)
                + ")"
            )
            self.keep_here(task, typed, why)
            try:
                await self.client.release(self.queue_id, task.id, rest or None)
            except errors.QueueDeskError as again:
                return Kept(task, draft=False, journal=why, problem=again)
            return Kept(task, draft=bool(rest), journal=why)
        except errors.QueueDeskError as exc:
            why = KEPT_PREFIX + lost_words(exc)
            self.keep_here(task, typed, why)
            return Kept(task, draft=False, journal=why, problem=exc)
        return Kept(task, draft=True)

    def keep_here(self, task: AssignedTask, typed: dict[str, Any], why: str) -> None:
        """`typed` on `task` kept in the local journal (never sent), with `why`."""
        self.outbox.keep(Entry(str(uuid.uuid4()), self.queue_id, self.queue_name, task.id, typed), why)
