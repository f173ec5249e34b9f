"""One reviewer's session on one queue, without a screen: the worker's loop (`WorkSession`) on review
claims (B19), with the verdicts given, the notes written and the reviews left.

A review claim is claimed, renewed and given back as a task claim is, so the session is a
`WorkSession` whose claims are review claims (`ReviewClaims`): the claim ahead, the exclusions, the
one claim in flight, the leases and the undo grace all come from there. In this session a task's
`assignment` is the review claim (the reviewer, the review's lease); the worker's own claim (who did
the task and when they took it) is kept in `ReviewClaims.work_of`.
A verdict goes through the outbox like a completion (`tui/work/outbox.py`; `journal.REVIEW`): on disk first,
held for the undo grace, then sent.

A disputed task (B21: its answers did not agree) comes first from the server; it is shown with the
form filled with the most common answers (`review/dispute_rules.py`), and its verdict is `decide`.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from queuedesk.api.client import Claim, QueueDeskClient
from queuedesk.api.models import AssignedTask, Assignment, Block, Consensus, Review
from queuedesk.tui.review.dispute_rules import answer_key, in_order, prefilled, taken
from queuedesk.tui.work.journal import REVIEW, Entry
from queuedesk.tui.work.work_session import Submissions, WorkSession

Verdict = Literal["accept", "correct", "redo", "decide"]
VERDICTS: tuple[Verdict, ...] = ("accept", "correct", "redo", "decide")
COUNT_EVERY_TICKS = 15  # the reviews left are asked of the server every 15 s (and after each verdict)


def dispute_of(task: AssignedTask | None) -> Consensus | None:
    """The task's answers when it is disputed (B21), else None."""
    consensus = None if task is None else task.consensus
    return consensus if consensus is not None and consensus.state == "disputed" else None


def review_claim(review: Review | None) -> Assignment:
    """The review claim as an assignment: who reviews and until when."""
    if review is None:
        return Assignment()
    return Assignment(assigned_to=review.reviewer, lease_expires_at=review.lease_expires_at)


class ReviewClaims:
    """The client's review claims, answering as its task claims do (`work_session.Claims`)."""

    def __init__(self, client: QueueDeskClient) -> None:
        self.client = client
        self.work_of: dict[int, Assignment] = {}  # task id -> the worker's claim that completed it

    async def claim_next(self, queue_id: int, exclude: Sequence[int] = ()) -> Claim:
        claim = await self.client.claim_review(queue_id, exclude)
        task = claim.task
        if task is not None:
            self.work_of.setdefault(task.id, task.assignment)
            task.assignment = review_claim(task.review)
        return Claim(task, claim.held_by_others)

    async def heartbeat(self, queue_id: int, task_id: int) -> Assignment:
        return review_claim(await self.client.review_heartbeat(queue_id, task_id))

    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> AssignedTask:
        return await self.client.release_review(queue_id, task_id)  # a review keeps no draft


@dataclass(frozen=True)
class WorkDone:
    """Who did the task under review, and how long it took them (None when the server does not say)."""

    by: str
    seconds: float | None


class ReviewSession(WorkSession):
    def __init__(
        self,
        client: QueueDeskClient,
        queue_id: int,
        queue_name: str,
        outbox: Submissions,
        now: datetime,
        blocks: Callable[[], list[Block]] = list,
    ) -> None:
        self.claims = ReviewClaims(client)
        self.blocks = blocks  # the queue's blocks as the screen has them (a dispute's values are per block)
        super().__init__(self.claims, queue_id, queue_name, outbox, now)
        self.verdicts: Counter[str] = Counter()
        self.notes: dict[int, str] = {}  # task id -> the note written for its verdict
        self.waiting: int | None = None  # the server's reviews without a verdict, at the last count
        self.given_since_count = 0
        self.last_verdict: tuple[int, Verdict] | None = None  # (task id, verdict) of the last one given
        self.count_due = True  # the reviews left are to be asked of the server (`recount`)

    def shown(self, task: AssignedTask, now: datetime, seconds: float = 0.0) -> dict[str, Any]:
        """A disputed task starts from the most common answers (under what was put aside by undo)."""
        kept = super().shown(task, now, seconds)
        dispute = dispute_of(task)
        if dispute is None:
            return kept
        return {**prefilled(self.blocks(), dispute.answers, task.data), **kept}

    def starting_values(self, task: AssignedTask) -> dict[str, Any]:
        """What the reviewer's changes are measured from: the worker's answers, or a dispute's most
        common ones."""
        dispute = dispute_of(task)
        return task.data if dispute is None else prefilled(self.blocks(), dispute.answers, task.data)

    def answer_values(self, task: AssignedTask, key: str) -> dict[str, Any] | None:
        """The values of the answer `key` takes ("A": the earliest), None when there is none."""
        dispute = dispute_of(task)
        answers = [] if dispute is None else in_order(dispute.answers)
        for index, answer in enumerate(answers):
            if answer_key(index) == key:
                return taken(self.blocks(), answer, task.data)
        return None

    def work_done(self, task: AssignedTask) -> WorkDone:
        worked = self.claims.work_of.get(task.id)
        by = task.completed_by or "someone"
        if worked is not None and worked.assigned_to_name:
            by = f"{worked.assigned_to_name} ({by})"
        if worked is None or worked.assigned_at is None or task.completed_at is None:
            return WorkDone(by, None)
        return WorkDone(by, max(0.0, (task.completed_at - worked.assigned_at).total_seconds()))

    # --- verdicts ----------------------------------------------------------------------------------

    def write_note(self, task_id: int, note: str | None) -> None:
        """The note written for the verdict on `task_id` (None: the dialog was closed, the note kept;
        empty: none)."""
        if note:
            self.notes[task_id] = note
        elif note is not None:
            self.notes.pop(task_id, None)

    def give(self, task: AssignedTask, verdict: Verdict, values: dict[str, Any], now: datetime) -> Entry:
        """Hold the verdict on `task` in the outbox (the corrected `values` sent with `correct` only;
        kept in every case, so an undo shows what was on screen); the task leaves the screen."""
        note = self.notes.pop(task.id, None)
        entry = self.submit(task, values, now, extra={REVIEW: {"verdict": verdict, "note": note}})
        self.verdicts[verdict] += 1
        self.given_since_count += 1
        self.last_verdict = (task.id, verdict)
        self.count_due = True
        return entry

    def _taken_back(self, entry: Entry) -> None:
        review = entry.extra.get(REVIEW) or {}
        self.verdicts[review.get("verdict", "")] -= 1
        self.given_since_count = max(0, self.given_since_count - 1)
        if review.get("note"):
            self.notes[entry.task_id] = review["note"]

    def undo(self, entered: dict[str, Any] | None) -> tuple[AssignedTask, Entry, float] | None:
        back = super().undo(entered)
        if back is not None:
            self._taken_back(back[1])
        return back

    def came_back(self, task: AssignedTask, entry: Entry) -> float:
        self._taken_back(entry)
        return super().came_back(task, entry)

    # --- counts ------------------------------------------------------------------------------------

    @property
    def reviewed(self) -> int:
        return sum(self.verdicts[v] for v in VERDICTS)

    @property
    def accept_rate(self) -> float | None:
        """Accepted / judged in this session (a dispute decided judges no worker's answer); None
        before the first such verdict."""
        judged = sum(self.verdicts[v] for v in ("accept", "correct", "redo"))
        return self.verdicts["accept"] / judged if judged else None

    def tick(self) -> bool:
        if self.ticks % COUNT_EVERY_TICKS == 0:
            self.count_due = True
        return super().tick()

    async def recount(self) -> None:
        """Ask the server how many reviews are left, if it is time (`count_due`); a failure waits for
        the next time (the count is a nicety)."""
        if not self.count_due:
            return
        self.count_due = False
        given_before = self.given_since_count
        try:
            stats = await self.claims.client.stats(self.queue_id)
        except Exception:
            return
        self.counted(stats.reviews_pending, given_before)

    def counted(self, waiting: int | None, given_before: int) -> None:
        """The server counted `waiting` reviews without a verdict; `given_before` verdicts had been
        given here when the count was asked for (those after it are not in it)."""
        self.waiting = waiting
        self.given_since_count = max(0, self.given_since_count - given_before)

    async def count_left(self) -> int | None:
        """Reviews left, as the review screen last counted them (B15's reviews pending)."""
        return self.left

    @property
    def left(self) -> int | None:
        """Reviews still without a verdict: the server's last count less the verdicts given since."""
        if self.waiting is None:
            return None
        return max(0, self.waiting - self.given_since_count)
