"""Gold tasks (B22) as the client checks and sums them: which blocks may hold an expected value,
what is wrong with expected values before they are sent, what a queue's gold share means in words,
and each gold task's answers and accuracy from the scored answers.

Nothing here talks to a server: the command line and the app say and check the same things."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from queuedesk.api.blocks import value_problem
from queuedesk.api.consensus_rules import COMPARABLE
from queuedesk.api.models import Block, GoldAnswer

MIN_PERCENT, MAX_PERCENT = 0, 50


def expected_problems(blocks: Sequence[Block], expected: Mapping[str, Any]) -> list[str]:
    """What is wrong with a gold task's expected values for a queue of `blocks`: at least one,
    each a block of a type B21 compares (selections, yes/no, number, date) with a value that fits it."""
    if not expected:
        return ['name at least one expected value, e.g. {"category": "red"}']
    by_id = {b.id: b for b in blocks}
    comparable = [b.id for b in blocks if b.type in COMPARABLE]
    found = []
    for key, value in expected.items():
        block = by_id.get(key)
        if block is None:
            found.append(f"{key!r} is no block of the queue (blocks: {', '.join(by_id) or 'none'})")
        elif block.type not in COMPARABLE:
            found.append(
                f"{key!r} is a {block.type} block: gold compares selections, yes/no, number and date "
                f"blocks only ({', '.join(comparable) or 'this queue has none'})"
            )
        elif value is not None and (message := value_problem(block, value)) is not None:
            found.append(f"{key}: {message}")
    return found


def percent_problem(percent: int) -> str | None:
    if MIN_PERCENT <= percent <= MAX_PERCENT:
        return None
    return (
        f"the gold share must be {MIN_PERCENT}-{MAX_PERCENT} (per cent of a worker's claims), not {percent}"
    )


def described(percent: int) -> str:
    """A queue's `gold_percent` in a sentence."""
    if percent <= 0:
        return "No gold share: gold tasks of this queue are never served (0%)."
    return (
        f"About {percent}% of each worker's claims serve a gold task (a task with a known answer) they "
        "have not answered yet, while there is one; their answers measure their accuracy."
    )


@dataclass
class GoldTally:
    """One gold task's scored answers: how many, how many right, and what each block missed."""

    task_id: int
    answered: int = 0
    correct: int = 0
    last_answered_at: Any = None

    @property
    def accuracy(self) -> float | None:
        return None if self.answered == 0 else self.correct / self.answered


def tallies(answers: Iterable[GoldAnswer]) -> dict[int, GoldTally]:
    """Each gold task's tally from its scored answers (any order)."""
    by_task: dict[int, GoldTally] = {}
    for answer in answers:
        tally = by_task.setdefault(answer.task_id, GoldTally(answer.task_id))
        tally.answered += 1
        tally.correct += answer.correct
        if tally.last_answered_at is None or answer.answered_at > tally.last_answered_at:
            tally.last_answered_at = answer.answered_at
    return by_task


def accuracy_text(correct: int, answered: int) -> str:
    """`7 of 9 (78%)`, or `-` when nothing was answered."""
    if answered <= 0:
        return "-"
    return f"{correct} of {answered} ({round(100 * correct / answered)}%)"
