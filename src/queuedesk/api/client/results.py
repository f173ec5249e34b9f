"""The client's small answer types, the sort keys of its listings and the page check."""

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from queuedesk.api import models


@dataclass(frozen=True)
class Claim:
    """The answer of `claim_next`: a task, or none with the number held by other workers."""

    task: models.AssignedTask | None
    held_by_others: int = 0
    # B21: with no task, the open tasks of the queue the caller answered (waiting for other
    # workers' answers, or disputed); 0 from a server without consensus.
    answered: int = 0


@dataclass(frozen=True)
class ReviewClaim:
    """The answer of `claim_review`: a completed task to review, or none with the number held by others."""

    task: models.AssignedTask | None
    held_by_others: int = 0


Verdict = Literal["accept", "correct", "redo", "decide"]  # decide: B21, a disputed task
ConsensusState = Literal["collecting", "disputed"]  # B2's `consensus` filter
Moment = datetime | date | str
CompletedSort = Literal["completed_at", "completed_by", "id"]  # A2's `sort`
PendingSort = Literal["id", "status", "holder"]  # B2's `sort`
DeliverySort = Literal["id", "status", "attempts", "task_id"]  # B10's `sort`
AuditSort = Literal["id", "action", "actor"]  # B20's `sort`


MAX_PAGE = 1000


def check_page(offset: int, limit: int) -> None:
    """ValueError for a page no server gives as asked: the original turns limit 0 into 100 and
    cuts 5000 to 1000 without a word, and a negative offset means nothing."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be 1-{MAX_PAGE}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")
