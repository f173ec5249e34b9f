"""`read_only` blocks hold what the worker was given (the customer's message, the task's input):
a completion (B7) or a reviewer's correction (B19 `correct`) may repeat their values, never change
them. Both merge what they send over the task's values through `work.checked_completion`, which
asks this rule."""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from queuedesk.api.blocks import Problem
from queuedesk.api.models import Block

NOT_YOURS = "is read-only: send it as stored or leave it out"


def changed_read_only_values(
    blocks: Sequence[Block], current: Mapping[str, Any], sent: Mapping[str, Any]
) -> Iterator[Problem]:
    """A problem for each read-only block whose sent value differs from the stored one."""
    for block in blocks:
        if block.read_only and block.id in sent and sent[block.id] != current.get(block.id):
            yield Problem("invalid_value", f"data.{block.id}", NOT_YOURS)
