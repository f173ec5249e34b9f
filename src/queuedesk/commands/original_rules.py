"""What the original Task Queue Service is known to refuse (or to half do) on a task create.

A server without QueueDesk's bulk import gets one create per row and cannot undo the rows before a
failure, so `queuedesk import` checks every row against these before it sends the first. The
knowledge comes from ../shared/reference/original-service.md; the block rules (text is a string,
an image is an http(s) URL, options exist, ...) are checked for every server anyway.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from queuedesk.api.csv_values import LIST_TYPES
from queuedesk.api.models import Block


def refusals(blocks: Iterable[Block], data: Mapping[str, Any]) -> list[str]:
    """Why the original would fail on a create with this data (nothing when it would not)."""
    # A list block without a value: the original saves the task, then answers 500, so a retry makes
    # a duplicate and an import cannot tell whether the row exists.
    return [
        f"{block.id}: a {block.type} block needs a value on this server ([] for none): without one it "
        "saves the task and then fails (500)"
        for block in blocks
        if block.type in LIST_TYPES and data.get(block.id) is None
    ]
