"""A disputed task (B21) in review, without a screen: its answers in order with the key that takes
each, the values the form starts from, and the answers side by side per block.

The form starts from the most common value of each block over the answers, a tie going to the value
of the earliest answer among those tied; read-only blocks keep the task's value. Values are compared
as the server compares them (B21's equality): JSON equal, numbers by value, a multiple selection as
a set, a date as the day or the instant it names; null is a value like any other.

Each answer is taken whole by a capital letter, `A` for the earliest: capitals are not the digits
that choose options, nor the review's own lower-case keys, and a terminal (tmux included) sends them
as they are, unlike alt+digit (an escape and a digit) or ctrl+digit (nothing at all).
"""

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar

from queuedesk.api.models import Block
from queuedesk.api.terminal_text import shown_on_one_line
from queuedesk.tui.present import block_value

ANSWER_KEYS = "ABCDEFGHIJ"  # one per answer (at most 10: B21's maximum), earliest first
INPUTS = (
    "image",
    "audio",
    "video",
    "pdf",
    "embed",
    "link",
)  # what a task gives, not what it asks (B19's redo)


class Answer(Protocol):
    """One worker's answer (the client's `ConsensusAnswer`)."""

    @property
    def worker(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def answered_at(self) -> datetime: ...


def value_key(block_type: str, value: Any) -> Hashable:
    """What two values share when B21 counts them equal."""
    if isinstance(value, bool) or value is None:
        return ("json", json.dumps(value))
    if isinstance(value, int | float):
        return ("number", float(value))
    if block_type == "multiple_selection" and isinstance(value, list):
        return ("set", frozenset(json.dumps(v, sort_keys=True) for v in value))
    if block_type == "date" and isinstance(value, str):
        named = _named_time(value)
        if named is not None:
            return ("date", named)
    return ("json", json.dumps(value, sort_keys=True))


def _named_time(text: str) -> date | datetime | None:
    """A date names its day; a date-time names its instant (in UTC; without a zone, as written)."""
    try:
        if len(text.strip()) == 10:
            return date.fromisoformat(text.strip())
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment


A = TypeVar("A", bound=Answer)


def in_order(answers: Sequence[A]) -> list[A]:
    """Earliest first (the order their keys follow)."""
    return sorted(answers, key=lambda a: a.answered_at)


def answer_key(index: int) -> str:
    return ANSWER_KEYS[index] if index < len(ANSWER_KEYS) else ""


def most_common(block: Block, answers: Sequence[Answer]) -> tuple[Any, int]:
    """The value most answers hold for `block` (a tie: the earliest answer's among those tied), and
    how many hold it. `answers` earliest first."""
    counts: dict[Hashable, int] = {}
    first: dict[Hashable, Any] = {}
    for answer in answers:
        value = answer.data.get(block.id)
        key = value_key(block.type, value)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, value)
    if not counts:
        return None, 0
    best = max(counts.values())
    winner = next(key for key in first if counts[key] == best)  # `first` keeps the answers' order
    return first[winner], best


def prefilled(blocks: Sequence[Block], answers: Sequence[Answer], data: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values for deciding: each block's most common answer; read-only blocks as the task holds them."""
    ordered = in_order(answers)
    values: dict[str, Any] = {}
    for block in blocks:
        if block.read_only or not ordered:
            values[block.id] = data.get(block.id)
        else:
            values[block.id] = most_common(block, ordered)[0]
    return values


def taken(blocks: Sequence[Block], answer: Answer, data: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values when one answer is taken whole (read-only blocks as the task holds them)."""
    return {
        block.id: data.get(block.id) if block.read_only else answer.data.get(block.id) for block in blocks
    }


def who(answer: Answer) -> str:
    return shown_on_one_line(answer.name or answer.worker)


@dataclass(frozen=True)
class Column:
    key: str  # the key that takes this answer
    who: str
    values: list[str]  # per row, the value as shown
    agrees: list[bool]  # per row, it holds the most common value


@dataclass(frozen=True)
class SideBySide:
    rows: list[str]  # the blocks' names (with the agreement on compared blocks)
    columns: list[Column]


def side_by_side(
    blocks: Sequence[Block], answers: Sequence[Answer], agreement: Mapping[str, float]
) -> SideBySide:
    """The answers per block, earliest first: the rows are the blocks a worker fills (the compared
    ones first, with their agreement: the share of the answers holding the most common value)."""
    ordered = in_order(answers)
    shown = sorted(
        (b for b in blocks if not b.read_only and b.type not in INPUTS), key=lambda b: b.id not in agreement
    )
    rows = []
    for block in shown:
        share = agreement.get(block.id)
        rows.append(shown_on_one_line(block.name) + ("" if share is None else f" ({share:.0%})"))
    commons = [value_key(b.type, most_common(b, ordered)[0]) for b in shown]
    columns = []
    for index, answer in enumerate(ordered):
        values = [shown_on_one_line(block_value(b, answer.data.get(b.id))) for b in shown]
        agrees = [value_key(b.type, answer.data.get(b.id)) == commons[i] for i, b in enumerate(shown)]
        columns.append(Column(answer_key(index), who(answer), values, agrees))
    return SideBySide(rows, columns)


def keys_said(count: int) -> str:
    """ "A, B or C takes an answer" for the footer's line above the form."""
    keys = [answer_key(i) for i in range(min(count, len(ANSWER_KEYS)))]
    if not keys:
        return ""
    listed = keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + f" or {keys[-1]}"
    return f"{listed} takes an answer whole"
