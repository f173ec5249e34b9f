"""What the queries hand back to the handlers."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from queuedesk.api.models import Block


@dataclass(frozen=True)
class Principal:
    """The user behind an API key."""

    user_id: int
    email: str
    name: str
    role: str
    organization_id: int
    organization: str
    key_id: int = 0  # the key the request came with (0: none, as in tests that build one)


@dataclass(frozen=True)
class QueueRecord:
    id: int
    organization_id: int
    name: str
    description: str
    blocks: list[Block]
    raw_blocks: list[dict[str, Any]]
    created_at: datetime
    webhook_target: str | None
    # B21: the consensus settings (None: none) and whether the queue ever had them, when read.
    consensus: dict[str, Any] | None = None
    consensus_used: bool = False
    # B22: whether a claim may meet gold here: the queue has a gold share (gold_percent > 0) or gold
    # tasks, when read. False: B4 and B7 are the plain ones, with no statement for gold.
    gold_used: bool = False


@dataclass(frozen=True)
class Page:
    count: int
    rows: list[dict[str, Any]]
