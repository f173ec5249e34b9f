"""A worker's misses of gold tasks (B22) as the Feedback tab shows them beside corrections: after
they answered, each block they missed, the known answer beside theirs.

Nothing here is shown before the worker answered: the misses come from the scored answers
(`GET …/gold/answers?completed_by=me`), which exist only once an answer was given."""

from datetime import datetime

from queuedesk.api.models import Block, GoldAnswer
from queuedesk.tui.present import block_value

MISSED = "missed"  # the Verdict column of a miss
KNOWN = "known answer"  # the Reviewer column of a miss: no one reviewed it, the answer was known


def miss_key(answer: GoldAnswer) -> str:
    """The row key of a miss (review rows are keyed by the bare task id)."""
    return f"gold-{answer.task_id}"


def block_name(blocks: list[Block], block_id: str) -> str:
    return next((b.name for b in blocks if b.id == block_id), block_id)


def _value(blocks: list[Block], block_id: str, value: object) -> str:
    block = next((b for b in blocks if b.id == block_id), None)
    return str(value) if block is None else block_value(block, value)


def missed_lines(blocks: list[Block], answer: GoldAnswer, yours: str = "yours") -> list[str]:
    """One line per block missed: the known answer, the worker's beside it (as corrections read)."""
    return [
        f"{block_name(blocks, block_id)}: {_value(blocks, block_id, answer.expected.get(block_id))}  "
        f"({yours}: {_value(blocks, block_id, answer.data.get(block_id))})"
        for block_id in answer.wrong
    ]


def miss_summary(blocks: list[Block], answer: GoldAnswer) -> str:
    """The Note column of a miss: what was expected where."""
    return "expected " + "; ".join(
        f"{block_name(blocks, block_id)}: {_value(blocks, block_id, answer.expected.get(block_id))}"
        for block_id in answer.wrong
    )


def miss_heading(answer: GoldAnswer) -> str:
    return (
        f"Task {answer.task_id}: your answer missed the known answer (this task's answer was known "
        "beforehand, to measure the work)"
    )


def miss_time(answer: GoldAnswer) -> datetime:
    return answer.answered_at
