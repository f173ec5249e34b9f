"""One worker's session of work on one queue, without a screen: which tasks are held and why, and
what the worker's time and counts are. The work screen (`screens/work.py`) shows it and feeds it keys.

Claims: the task on screen (`current`) and one claimed ahead (`ahead`), so that after a submit the
next is there at once. One claim is in flight at a time (`_claiming`): a submit made while the claim
ahead is on its way waits for it and takes its task, instead of claiming in the open beside it (two
claims, excluding the same tasks, got the same task and showed the one just submitted again).
Every claim excludes the tasks held here: on screen, ahead, submitted but still in the outbox, and
those given back from here (skip, keep draft), the latest first.

A worker away (no key) for half a lease gives the claims ahead back to the queue, for others to
work on, and claims none ahead until back; the task on screen stays theirs.

Timers: the session keeps its own (`Timers`: the heartbeat, the look for a task while none is open,
the second's tick), started on the screen's clock through the `schedule` it is given; leaving stops
them all.
"""

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from queuedesk.api import errors
from queuedesk.api.client import Claim, QueueDeskClient
from queuedesk.api.models import AssignedTask, Assignment
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.kept import KEPT_PREFIX, REMOVED, TAKEN, Keeper, Kept, lost_task_words

IDLE_AFTER_SECONDS = 120
EXCLUDE_AT_MOST = 10  # the server's limit on `exclude`
CLAIM_TRIES = 3
EMPTY_POLL_SECONDS = 5.0  # no task to show: the queue is asked again this often
MIN_HEARTBEAT_SECONDS = 5.0
# How often the queue is read again while a task is on screen: an admin's change to its blocks
# reaches the form (after each task shown too), so the next submit is made on the queue as it is.
QUEUE_CHECK_SECONDS = 15
# How often the tasks held are checked (a heartbeat) while one is on screen: a flush, a lost claim,
# a refused key are seen within this.
HELD_CHECK_SECONDS = 5


class Stoppable(Protocol):
    def stop(self) -> None: ...


Schedule = Callable[[float, Callable[[], object]], Stoppable]
"""Run a callback once, after so many seconds (the screen's clock: `Clock.call_later`)."""


class Timers:
    """The session's timers by name: one of each at a time (a new one stops the one before)."""

    def __init__(self) -> None:
        self.schedule: Schedule | None = None  # given by the screen that shows the session
        self._running: dict[str, Stoppable] = {}

    def start(self, name: str, delay: float, callback: Callable[[], object]) -> None:
        self.stop(name)
        if self.schedule is None:
            return

        def fire() -> None:
            self._running.pop(name, None)
            callback()

        self._running[name] = self.schedule(delay, fire)

    def stop(self, name: str) -> None:
        timer = self._running.pop(name, None)
        if timer is not None:
            timer.stop()

    def running(self, name: str) -> bool:
        return name in self._running

    def stop_all(self) -> None:
        for name in list(self._running):
            self.stop(name)


class Claims(Protocol):
    """The claim calls a session makes: the client's task claims (B4-B6), or another kind of claim
    made to look like them (the review claims of `tui/review/review_session.py`)."""

    async def claim_next(self, queue_id: int, exclude: Sequence[int] = ()) -> Claim: ...
    async def heartbeat(self, queue_id: int, task_id: int) -> Assignment: ...
    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> object: ...


class Submissions(Protocol):
    """What the session needs of the outbox (`tui/work/outbox.py`)."""

    def hold(self, entry: Entry) -> None: ...
    def undo(self, entry_id: str) -> Entry | None: ...
    async def send_held_now(self, *, keep: str | None = None) -> None: ...
    def task_ids(self, queue_id: int) -> list[int]: ...
    def outcome(self, entry_id: str) -> str | None: ...
    def keep(self, entry: Entry, why: str) -> None: ...


@dataclass
class WorkTime:
    """Time on the task on screen and on the session; idle stretches and paused ones not counted."""

    started_at: datetime
    tick_at: datetime
    last_key_at: datetime
    task_seconds: float = 0.0
    seconds_done: float = 0.0
    paused: bool = False  # a modal (the image full screen, help) covers the screen

    def count(self, now: datetime, *, on_task: bool) -> None:
        """Add the time since the last count to the task on screen (`on_task`), not past the moment
        the worker went idle."""
        if on_task and not self.paused:
            end = min(now, self.last_key_at + timedelta(seconds=IDLE_AFTER_SECONDS))
            self.task_seconds += max(0.0, (end - self.tick_at).total_seconds())
        self.tick_at = now

    def idle(self, now: datetime) -> bool:
        return (now - self.last_key_at).total_seconds() > IDLE_AFTER_SECONDS


@dataclass
class Counts:
    done: int = 0  # submissions made (in a consensus queue: answers given)
    skipped: int = 0
    seconds_of: dict[str, float] = field(default_factory=dict)  # each held submission's time on its task
    # B21: submissions whose outcome the outbox has not told yet, and those whose task they completed.
    unknown: set[str] = field(default_factory=set)
    completing: set[str] = field(default_factory=set)

    def drop(self, entry_id: str) -> None:
        """A submission taken back or refused: no longer one whose outcome counts."""
        self.unknown.discard(entry_id)
        self.completing.discard(entry_id)


class WorkSession:
    def __init__(
        self, client: Claims, queue_id: int, queue_name: str, outbox: Submissions, now: datetime
    ) -> None:
        self.client = client
        self.queue_id = queue_id
        self.queue_name = queue_name
        self.outbox = outbox
        self.current: AssignedTask | None = None
        self.ahead: list[AssignedTask] = []
        self.given_back: list[int] = []  # never claimed again by this session by itself
        self.releasing: set[int] = set()  # given back, the release still on its way
        self.removed: set[int] = set()  # held here, then deleted (a flush): the server answered 404
        self.drafts: dict[int, dict[str, Any]] = {}  # what was typed on a task undo put back aside
        self.open_left: int | None = None  # tasks nobody holds, as last counted (`count_left`)
        self.last_submission: tuple[str, AssignedTask] | None = None
        self.leaving = False
        self.counts = Counts()
        self.time = WorkTime(started_at=now, tick_at=now, last_key_at=now)
        self.lease_seconds: float | None = None  # the shortest lease a claim here was given
        self.away_gave_back = 0  # claims ahead given back while the worker was away (told on return)
        self._claiming = asyncio.Lock()
        self.timers = Timers()
        self.ticks = 0
        self.count_due = False  # what is left is to be counted again (`recount`)
        # B21: the queue has consensus (a submission records an answer, the task completes once
        # enough workers agree), and, when nothing could be claimed, the open tasks this worker
        # answered (they wait for other workers' answers, or a reviewer).
        self.consensus = False
        self.answered_waiting = 0
        self.keeper = Keeper(client, outbox, queue_id, queue_name)
        # How the task on screen is looked at without renewing its claim (`still_held`): the work
        # screen gives the client's task read (A-part GET); none, no look (a review's claims).
        self.look: Callable[[int, int], Awaitable[AssignedTask]] | None = None

    # --- timers ------------------------------------------------------------------------------------

    def tick(self) -> bool:
        """A second went by: whether the queue is to be read again now (`QUEUE_CHECK_SECONDS`, while a
        task is on screen)."""
        self.ticks += 1
        return self.ticks % QUEUE_CHECK_SECONDS == 0 and self.current is not None

    @property
    def held_check_due(self) -> bool:
        """Whether the tasks held are to be checked now (`HELD_CHECK_SECONDS`, while one is on screen)."""
        return self.ticks % HELD_CHECK_SECONDS == 0 and self.current is not None

    def beat_later(self, now: datetime, beat: Callable[[], object]) -> None:
        """The next heartbeat for the task on screen (`heartbeat_delay`); none without a lease."""
        delay = self.heartbeat_delay(now, MIN_HEARTBEAT_SECONDS)
        if delay is None:
            self.timers.stop("heartbeat")
        else:
            self.timers.start("heartbeat", delay, beat)

    def poll_later(self, poll: Callable[[], object]) -> None:
        """No task to show: look again in `EMPTY_POLL_SECONDS`."""
        self.timers.start("poll", EMPTY_POLL_SECONDS, poll)

    async def recount(self) -> None:
        """Count again what is left to do, for the status line (the review's count asks the server;
        the work's is counted after each claim ahead)."""

    # --- claims ------------------------------------------------------------------------------------

    def held_ids(self) -> list[int]:
        """Tasks claimed by this session: on screen, ahead, and submitted but not yet sent."""
        ids = [t.id for t in ([self.current] if self.current else []) + self.ahead]
        return ids + [i for i in self.outbox.task_ids(self.queue_id) if i not in ids]

    def settled(self) -> int:
        """Answers given here whose task completed with them (B21; the outbox's `outcome`)."""
        counts = self.counts
        for entry_id in [i for i in counts.unknown if self.outbox.outcome(i) is not None]:
            counts.unknown.discard(entry_id)
            if self.outbox.outcome(entry_id) == "completed":
                counts.completing.add(entry_id)
        return len(counts.completing)

    async def _claim(self) -> tuple[AssignedTask | None, int]:
        for _ in range(CLAIM_TRIES):
            held = self.held_ids()
            given_back = [i for i in reversed(self.given_back) if i not in held]  # the latest first
            claim = await self.client.claim_next(self.queue_id, exclude=(held + given_back)[:EXCLUDE_AT_MOST])
            task = claim.task
            self.answered_waiting = claim.answered if task is None else 0
            if task is not None:
                self._note_lease(task.assignment)
            if task is not None and task.id in held:
                return None, 0  # the server gave back one held here (more than ten to exclude)
            if task is None or task.id not in self.given_back:
                return task, claim.held_by_others
            # Given back here (more than ten to exclude): not shown again. A claim made after the
            # release is ours now and goes back; one from before goes with the release under way.
            if task.id not in self.releasing:
                with contextlib.suppress(errors.QueueDeskError):
                    await self.client.release(self.queue_id, task.id)
        return None, 0

    async def next_task(self) -> tuple[AssignedTask | None, int]:
        """The next task for the screen (it becomes `current`) and, when there is none, how many
        open tasks others hold. Waits for a claim ahead on its way rather than claiming beside it."""
        if not self.ahead:
            await self._send_all_but_last()
        async with self._claiming:
            task: AssignedTask | None
            if self.ahead:
                task, held = self.ahead.pop(0), 0
            else:
                task, held = await self._claim()
            self.current = task
            return task, held

    def take_ahead(self) -> AssignedTask | None:
        """The task claimed ahead, now, if there is one (it becomes `current`)."""
        if not self.ahead:
            return None
        self.current = self.ahead.pop(0)
        return self.current

    async def claim_ahead(self) -> AssignedTask | None:
        """Claim the task after the one on screen (none when one is ahead, or a claim is on its way).

        Before it, every submission but the last is sent: each held one counts against the server's
        claim limit, and only the last can be undone."""
        if self.ahead or self.leaving or self._claiming.locked() or self.away_gave_back:
            return None
        await self._send_all_but_last()
        async with self._claiming:
            if self.ahead or self.leaving:
                return None
            try:
                task, _held = await self._claim()
            except errors.QueueDeskError:
                return None  # claiming ahead is a nicety: the next submit claims in the open
            if task is None:
                return None
            if self.leaving:  # claimed while the worker was leaving: not held by anyone here
                with contextlib.suppress(errors.QueueDeskError):
                    await self.client.release(self.queue_id, task.id)
                return None
            self.ahead.append(task)
            return task

    async def _send_all_but_last(self) -> None:
        """Before any claim (the one ahead, or the one right after a submit with nothing ahead): each
        submission held for the undo grace still counts against the server's claim limit, and only
        the last can be undone. (Without it a fast worker's claim was refused for `claim_limit` and
        the screen said the queue was empty.)"""
        last = self.last_submission[0] if self.last_submission else None
        await self.outbox.send_held_now(keep=last)

    async def count_left(self) -> int | None:
        """Count the queue's tasks that nobody holds (what is left for this worker and others); the
        last count when the server cannot tell now (or the claims are not task claims)."""
        if not isinstance(self.client, QueueDeskClient):
            return self.open_left
        try:
            page = await self.client.pending_tasks(self.queue_id, status=["new", "open"], limit=1)
        except errors.QueueDeskError:
            return self.open_left
        self.open_left = page.count
        return page.count

    # --- giving back -------------------------------------------------------------------------------

    def give_back(self, task: AssignedTask) -> None:
        """Noted at once (the claim ahead that follows must not take it back); `release` sends it."""
        if task.id in self.given_back:
            self.given_back.remove(task.id)
        self.given_back.append(task.id)
        self.releasing.add(task.id)
        if self.current is task:
            self.current = None

    async def release(self, task: AssignedTask, draft: dict[str, Any] | None) -> None:
        try:
            await self.client.release(self.queue_id, task.id, draft)
        except (errors.Conflict, errors.NotFound):
            pass  # no longer ours: nothing to give back
        finally:
            self.releasing.discard(task.id)

    # --- leases ------------------------------------------------------------------------------------

    def heartbeat_delay(self, now: datetime, minimum: float) -> float | None:
        """Seconds until the next heartbeat (a third of the lease left, not less than `minimum`
        unless the lease is so short that half of it is less), None without a lease."""
        task = self.current
        if task is None or task.assignment.lease_expires_at is None:
            return None
        left = (task.assignment.lease_expires_at - now).total_seconds()
        if left <= 0:
            return minimum  # lapsed: the next beat finds out whether it is still ours
        return max(min(minimum, left / 2), left / 3)

    def _note_lease(self, assignment: Assignment) -> None:
        if assignment.assigned_at is None or assignment.lease_expires_at is None:
            return
        lease = (assignment.lease_expires_at - assignment.assigned_at).total_seconds()
        if lease > 0 and (self.lease_seconds is None or lease < self.lease_seconds):
            self.lease_seconds = lease

    def away(self, now: datetime) -> bool:
        """No key for half a lease or more."""
        if self.lease_seconds is None:
            return False
        return (now - self.time.last_key_at).total_seconds() >= self.lease_seconds / 2

    async def give_back_ahead_when_away(self, now: datetime) -> int:
        """Give the claims ahead back to the queue once the worker has been `away`; how many went.
        They may be claimed again, by anyone (this session too, once the worker is back)."""
        if not self.ahead or not self.away(now):
            return 0
        going, self.ahead = self.ahead, []
        for task in going:
            await self.release_keeping(task, self.drafts.pop(task.id, None))
        self.away_gave_back += len(going)
        return len(going)

    def back(self) -> int:
        """The worker typed again: how many claims ahead went back while away (claiming ahead resumes)."""
        went, self.away_gave_back = self.away_gave_back, 0
        return went

    async def renew(self) -> list[AssignedTask]:
        """Renew the lease of every task held; those no longer ours are dropped and returned."""
        lost = []
        for task in [t for t in [self.current, *self.ahead] if t is not None]:
            try:
                task.assignment = await self.client.heartbeat(self.queue_id, task.id)
            except errors.AuthenticationError:
                raise  # the key is refused: for the app to say, the screen to close (`TaskLoop.stop`)
            except (errors.Conflict, errors.NotFound) as exc:
                if isinstance(exc, errors.NotFound):
                    self.removed.add(task.id)
                lost.append(task)
                if task in self.ahead:
                    self.ahead.remove(task)
            except errors.QueueDeskError:
                pass  # the network: try again at the next beat, the lease has room
        return lost

    async def still_held(self) -> bool:
        """Whether the task on screen is still this session's, looked at without renewing its claim:
        False once it was deleted (a flush) or someone else holds it; True when it cannot be told
        (no way to look, the network). A refused key is raised, for the app to say."""
        task = self.current
        if task is None or self.look is None:
            return True
        try:
            now = await self.look(self.queue_id, task.id)
        except errors.NotFound:
            return False
        except errors.AuthenticationError:
            raise
        except errors.QueueDeskError:
            return True
        return now.status == "in_progress" and now.assignment.assigned_to == task.assignment.assigned_to

    def dropped(self, task: AssignedTask, typed: dict[str, Any] | None) -> str | None:
        """`task` was lost while held here (`renew`): what was typed on it (`typed`, when it is on
        screen; else what undo put aside) kept in the journal. What the worker is told when it was
        the one on screen (it is no longer), else None."""
        removed = task.id in self.removed
        on_it = typed if self.current is task else self.drafts.pop(task.id, None)
        if on_it:
            self.keep_here(task, on_it, KEPT_PREFIX + (REMOVED if removed else TAKEN))
        if self.current is not task:
            return None
        self.current = None
        return lost_task_words(task.id, removed=removed, kept=bool(on_it))

    def keep_all_here(self, typed: dict[str, Any] | None, why: str) -> list[Kept]:
        """The screen closed without leaving (nothing can be given back from here): what was typed
        on the task on screen (`typed`) and on one put aside by undo kept in the journal."""
        self.leaving = True
        kept = []
        current = self.current
        for task in [t for t in [current, *self.ahead] if t is not None]:
            on_it = typed if task is current else self.drafts.pop(task.id, None)
            if on_it:
                self.keep_here(task, on_it, KEPT_PREFIX + why)
                kept.append(Kept(task, draft=False, journal=KEPT_PREFIX + why))
        return kept

    # --- submissions -------------------------------------------------------------------------------

    def submit(
        self, task: AssignedTask, values: dict[str, Any], now: datetime, extra: dict[str, Any] | None = None
    ) -> Entry:
        """Hold `task`'s values in the outbox (sent after the undo grace); the task leaves the screen.
        `extra` is kept with them in the journal (a review's verdict and note)."""
        entry = Entry(str(uuid.uuid4()), self.queue_id, self.queue_name, task.id, values, extra=extra or {})
        self.outbox.hold(entry)
        self.last_submission = (entry.id, task)
        self.time.count(now, on_task=True)
        self.counts.done += 1
        self.time.seconds_done += self.time.task_seconds
        self.counts.seconds_of[entry.id] = self.time.task_seconds
        self.counts.unknown.add(entry.id)
        if self.current is task:
            self.current = None
        return entry

    def undo(self, entered: dict[str, Any] | None) -> tuple[AssignedTask, Entry, float] | None:
        """Take the last submission back (None when there is none or it is sent): its task is
        `current` again, with the seconds spent on it; the one on screen (with what was `entered` on
        it) is next, as it was."""
        if self.last_submission is None:
            return None
        entry_id, task = self.last_submission
        entry = self.outbox.undo(entry_id)
        if entry is None:
            return None
        self.last_submission = None
        self.counts.done -= 1
        spent = self.counts.seconds_of.pop(entry.id, 0.0)
        self.counts.drop(entry.id)
        self.time.seconds_done -= spent
        if self.current is not None:
            if entered is not None:
                self.drafts[self.current.id] = entered
            self.ahead.insert(0, self.current)
        self.current = task
        return task, entry, spent

    def came_back(self, task: AssignedTask, entry: Entry) -> float:
        """A submission the server refused for its values: its task is on screen again (the seconds
        spent on it are returned)."""
        if self.current is not None and self.current.id != task.id:
            self.ahead.insert(0, self.current)
        self.current = task
        return self.uncount(entry)

    def uncount(self, entry: Entry) -> float:
        """A submission made here was refused: it is no longer counted as done (its seconds, which
        are returned, neither). Nothing changes for one made elsewhere, or already uncounted."""
        if entry.id not in self.counts.seconds_of:
            return 0.0
        spent = self.counts.seconds_of.pop(entry.id)
        self.counts.drop(entry.id)
        self.counts.done = max(0, self.counts.done - 1)
        self.time.seconds_done = max(0.0, self.time.seconds_done - spent)
        return spent

    def shown(self, task: AssignedTask, now: datetime, seconds: float = 0.0) -> dict[str, Any]:
        """`task` is put on screen, `seconds` already spent on it (undo); its draft, if any: the one
        put aside here (undo) over the one the server kept for this worker (B6, `task.draft`)."""
        self.time.tick_at = now  # the time until now was the task before's, counted at its end
        self.current = task
        self.time.task_seconds = seconds
        return {**(task.draft or {}), **self.drafts.pop(task.id, {})}

    # --- leaving -----------------------------------------------------------------------------------

    async def leave(self, draft: dict[str, Any] | None, *, send: bool = True) -> list[Kept]:
        """Send what waits for the undo grace (unless not to `send`: kept, or discarded, by the
        worker quitting) and give back every task held here, each with what was typed on it (the one
        on screen: `draft`; one put aside by undo: its own) kept (`release_keeping`); where each
        task's typing went."""
        self.leaving = True
        self.timers.stop("poll")
        current = self.current
        if send:
            await self.outbox.send_held_now()
        kept: list[Kept] = []
        for task in [t for t in [current, *self.ahead] if t is not None]:
            typed = draft if task is current else self.drafts.pop(task.id, None)
            where = await self.release_keeping(task, typed)
            if where is not None:
                kept.append(where)
        self.current, self.ahead = None, []
        return kept

    async def release_keeping(self, task: AssignedTask, typed: dict[str, Any] | None) -> Kept | None:
        """`task` given back with what was `typed` on it kept (`Keeper.release_keeping`)."""
        return await self.keeper.release_keeping(task, typed)

    def keep_here(self, task: AssignedTask, typed: dict[str, Any], why: str) -> None:
        self.keeper.keep_here(task, typed, why)
