"""Submissions on their way to the server: held for the undo grace period, then sent, retried with
backoff while the network fails, and reported (never retried) when the server refuses them.

Everything goes through the journal first, so a crash at any point loses nothing: what is still
in the journal is sent on the next start.
"""

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from queuedesk.api import errors
from queuedesk.api.client import QueueDeskClient
from queuedesk.tui.clock import Cancellable, Clock
from queuedesk.tui.work.journal import REVIEW, Entry, Journal

if TYPE_CHECKING:
    from textual.app import App

UNDO_SECONDS = 5.0
SENDING_POLL_SECONDS = 0.005
BACKOFF_SECONDS = (2.0, 5.0, 15.0, 30.0, 60.0)
TRANSIENT = (errors.ConnectionFailed, errors.ServerError, errors.RateLimited)


# The server's words for a refused completion are for API users (they name endpoints): a worker reads these.
WORKERS_WORDS = {
    "not_assignee": "the task was no longer yours (given back, taken by someone else, or its claim ran out "
    "before the work was sent)",
    "already_completed": "the task was already completed",
    "already_reviewed": "the task was already reviewed (by someone else, or a verdict sent before)",
    "already_answered": "you had already answered this task (each worker answers a task once)",
}
# A 404 on a task this worker held: nothing but a flush deletes tasks.
TASK_REMOVED = "this task was removed from the queue (flushed)"
DONE_ALREADY = ("already_completed", "already_reviewed", "already_answered")
OUTCOMES_KEPT = 1000  # the latest submissions whose outcome (`outcome`) is kept


class Outbox:
    def __init__(
        self,
        app: "App[None]",
        client: QueueDeskClient,
        journal: Journal,
        clock: Clock,
        on_refused: Callable[[Entry], None],
        on_sent_late: Callable[[list[Entry], bool], None] | None = None,
        on_key_refused: Callable[[errors.AuthenticationError], None] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self.client = client
        self.journal = journal
        self.clock = clock
        self.on_refused = on_refused
        # Told of submissions that reached the server late: left unsent by an earlier run (True)
        # or sent by a retry after the network failed (False).
        self.on_sent_late = on_sent_late
        # Told when the server stops accepting the key: what waits is kept for the next session.
        self.on_key_refused = on_key_refused
        # Told when what waits changed (the count "2 unsent"); the app publishes it to the widgets.
        self.on_change = on_change
        self._timers: dict[str, Cancellable] = {}
        self._sending: set[str] = set()
        self.closed = False
        # What the server made of each submission sent from here: the task's status after it
        # ("completed"; "open" for an answer recorded in a consensus queue, B21, the task waiting
        # for other workers' answers). The latest `OUTCOMES_KEPT`.
        self._outcomes: dict[str, str] = {}

    # --- what the work screen calls ----------------------------------------------------------------

    def hold(self, entry: Entry) -> None:
        """Keep `entry` for the undo grace period (on disk first), then send it."""
        entry.state = "held"
        for earlier in self.journal.in_state("failed"):
            if earlier.queue_id == entry.queue_id and earlier.task_id == entry.task_id:
                self.journal.entries.pop(earlier.id)  # submitted again: the refused attempt is done with
        self.journal.put(entry)
        self._later(entry.id, UNDO_SECONDS)
        self._changed()

    def undo(self, entry_id: str) -> Entry | None:
        """Take a held submission back; None when it is already on its way."""
        entry = self.journal.entries.get(entry_id)
        if entry is None or entry.state != "held" or entry_id in self._sending:
            return None
        self._stop(entry_id)
        self.journal.remove(entry_id)
        self._changed()
        return entry

    async def send_held_now(self, *, keep: str | None = None) -> None:
        """What waits for the undo grace goes now (leaving, quitting), except `keep`.

        The work screen sends all but the last submission before claiming ahead: only the last can
        be undone, and each held one still counts as a claim against the server's limit of three.
        """
        for entry in self.journal.in_state("held", "unsent"):
            if entry.id != keep:
                self._stop(entry.id)
                await self._send(entry.id)
        # One already on its way (its grace ran out just now) still holds its claim until it lands:
        # a claim made meanwhile was refused for the claim limit, and the loop had nothing ahead.
        while any(entry_id != keep for entry_id in self._sending) and not self.closed:
            await asyncio.sleep(SENDING_POLL_SECONDS)

    def keep(self, entry: Entry, why: str) -> None:
        """Typing that could not be kept as the task's draft on the server (the key refused, the
        claim lost, the task flushed): kept in the journal among the refused (never sent), with
        `why`, until the worker dismisses it or submits the task again."""
        entry.state = "failed"
        entry.error = why
        entry.extra["kept"] = True
        self.journal.put(entry)
        self._changed()

    def discard(self, entry_id: str) -> None:
        """The worker dropped this submission (quitting): never sent."""
        self._stop(entry_id)
        self.journal.remove(entry_id)
        self._changed()

    def resume(self) -> None:
        """On start: whatever the journal still holds (a crash, a closed laptop) is sent now.

        Now, not on a timer: a Textual timer of 0 s never fires (its `Timer._run` divides by the
        interval and the timer's task dies), which left such work in the journal until the next quit.
        What fails again for the network goes on with the usual backoff.
        """
        waiting = [entry.id for entry in self.journal.in_state("held", "unsent")]
        if waiting:
            self.app.run_worker(
                self._send_all(waiting, left_before=True), group="outbox", exit_on_error=False
            )

    def close(self) -> None:
        """Another session takes over (a new key, a reconnect): no more attempts from this one.

        Its journal file is read again by the next outbox; a retry here would write this one's
        stale copy over it and send with a client that is closed.
        """
        self.closed = True
        for entry_id in list(self._timers):
            self._stop(entry_id)

    def outcome(self, entry_id: str) -> str | None:
        """The task's status once the server had the submission: "completed", or "open" for an
        answer recorded that waits for other workers (B21); None before, or for a verdict."""
        return self._outcomes.get(entry_id)

    def state_of(self, entry_id: str) -> str | None:
        """ "held", "unsent" or "failed"; None once the server has it (or it was undone)."""
        entry = self.journal.entries.get(entry_id)
        return entry.state if entry is not None else None

    @property
    def unsent(self) -> int:
        return len(self.journal.in_state("unsent"))

    def task_ids(self, queue_id: int) -> list[int]:
        """Tasks of the queue whose completion is still on its way (still claimed by us)."""
        return [e.task_id for e in self.journal.in_state("held", "unsent") if e.queue_id == queue_id]

    # --- sending -----------------------------------------------------------------------------------

    def _later(self, entry_id: str, delay: float) -> None:
        self._stop(entry_id)
        if self.closed:
            return
        if delay <= 0:  # no timer of 0 s: see `resume`
            self._send_soon(entry_id)
            return
        self._timers[entry_id] = self.clock.call_later(self.app, delay, lambda: self._send_soon(entry_id))  # type: ignore[arg-type]

    def _stop(self, entry_id: str) -> None:
        timer = self._timers.pop(entry_id, None)
        if timer is not None:
            timer.stop()

    def _send_soon(self, entry_id: str) -> None:
        self._timers.pop(entry_id, None)
        self.app.run_worker(
            self._send_all([entry_id], left_before=False), group="outbox", exit_on_error=False
        )

    async def _send_all(self, entry_ids: list[str], *, left_before: bool) -> None:
        """Send these in turn; tell `on_sent_late` of the ones that had waited (one call for all)."""
        late: list[Entry] = []
        for entry_id in entry_ids:
            entry = self.journal.entries.get(entry_id)
            waited = entry is not None and (left_before or entry.state == "unsent")
            if await self._send(entry_id) and waited and entry is not None:
                late.append(entry)
        if late and self.on_sent_late is not None:
            self.on_sent_late(late, left_before)

    async def _send(self, entry_id: str) -> bool:
        """One attempt; True when the server has the submission now."""
        entry = self.journal.entries.get(entry_id)
        if self.closed or entry is None or entry.state == "failed" or entry_id in self._sending:
            return False
        sent = False
        self._sending.add(entry_id)
        try:
            await self._deliver(entry)
        except TRANSIENT as exc:
            entry.state = "unsent"
            entry.attempts += 1
            entry.error = str(exc)
            self.journal.put(entry)
            delay = BACKOFF_SECONDS[min(entry.attempts - 1, len(BACKOFF_SECONDS) - 1)]
            self._later(entry.id, delay)
        except errors.AuthenticationError as exc:
            self._kept_for_next_key(entry, exc)
        except errors.Conflict as exc:
            if exc.code in DONE_ALREADY and entry.attempts > 0:
                # An earlier attempt reached the server but its answer was lost: it is done.
                self.journal.remove(entry.id)
                sent = True
            else:
                self._refused(entry, exc)
        except errors.QueueDeskError as exc:
            self._refused(entry, exc)
        else:
            self.journal.remove(entry.id)
            sent = True
        finally:
            self._sending.discard(entry_id)
            self._changed()
        return sent

    def _kept_for_next_key(self, entry: Entry, exc: errors.AuthenticationError) -> None:
        """The key was refused (revoked, the account disabled): not the submission. It stays unsent
        and this outbox stops; the next session of the same person (same journal) sends it."""
        entry.state = "unsent"
        entry.error = "the server no longer accepted the key"
        entry.extra["key_refused"] = True
        self.journal.put(entry)
        if not self.closed:
            self.close()
            if self.on_key_refused is not None:
                self.on_key_refused(exc)

    async def _deliver(self, entry: Entry) -> None:
        review = entry.extra.get(REVIEW)
        if review is None:
            task = await self.client.complete(entry.queue_id, entry.task_id, entry.data)
            self._outcomes[entry.id] = task.status
            while len(self._outcomes) > OUTCOMES_KEPT:
                self._outcomes.pop(next(iter(self._outcomes)))
            return
        verdict = review["verdict"]
        await self.client.give_verdict(
            entry.queue_id,
            entry.task_id,
            verdict,
            data=entry.data if verdict in ("correct", "decide") else None,  # decide: B21, a disputed task
            note=review.get("note"),
        )

    def _refused(self, entry: Entry, exc: errors.QueueDeskError) -> None:
        entry.state = "failed"
        if isinstance(exc, errors.Conflict):
            entry.error = WORKERS_WORDS.get(exc.code or "", str(exc))
        elif isinstance(exc, errors.NotFound) and not isinstance(exc, errors.WrongAddress):
            entry.error = TASK_REMOVED
        else:
            entry.error = str(exc)
        if isinstance(exc, errors.ValidationError):
            # By block id, so the work screen can put each message on its field.
            entry.extra["fields"] = {
                (item.field or "").removeprefix("data.").removeprefix("data"): item.message
                for item in exc.errors
            }
        self.journal.put(entry)
        self.on_refused(entry)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
