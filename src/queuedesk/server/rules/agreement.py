"""B21's equality and judgment, pure: when two answers' values are equal, and whether a task's
answers settle it (and on which values), dispute it, or wait for more.

Two values are equal when their JSON is equal, numbers by value (3 = 3.0, but `true` is not 1), a
`multiple_selection` as a set, a `date` as the day or the instant it names; null is a value like
any other. Each value is turned into a key (`value_key`) that compares and hashes that way.
"""

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

# The types B21 may compare, and those compared by default (when not read-only).
COMPARABLE_TYPES = frozenset({"single_selection", "multiple_selection", "binary", "number", "date"})
DEFAULT_TYPES = frozenset({"single_selection", "multiple_selection", "binary"})


def json_key(value: Any) -> Hashable:
    """A key equal for equal JSON values: numbers by value, objects regardless of key order."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        number = value
        if isinstance(value, float) and value.is_integer():
            number = int(value)
        return ("number", number)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("list", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("other", repr(value))


def _moment_key(value: str) -> Hashable:
    """A date names a day; a date-time names an instant (UTC when it says no zone)."""
    text = value.strip()
    try:
        if len(text) == 10:
            return ("day", date.fromisoformat(text))
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return ("string", value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return ("instant", moment.astimezone(UTC))


def value_key(block_type: str, value: Any) -> Hashable:
    """The key `value` of a block of `block_type` compares by."""
    if block_type == "multiple_selection" and isinstance(value, list):
        return ("set", frozenset(json_key(item) for item in value))
    if block_type == "date" and isinstance(value, str):
        return _moment_key(value)
    return json_key(value)


def equal(block_type: str, left: Any, right: Any) -> bool:
    return value_key(block_type, left) == value_key(block_type, right)


@dataclass(frozen=True)
class Settings:
    answers: int  # n: answers needed before a task may settle
    max_answers: int  # m: answers after which an unsettled task is disputed
    agreement: float  # a: the share the most common value must hold
    blocks: tuple[str, ...]  # the compared block ids


@dataclass(frozen=True)
class Judgment:
    state: Literal["collecting", "settled", "disputed"]
    agreement: dict[str, float]  # per compared block: the share of its most common value
    chosen: int | None  # when settled: the index of the earliest answer holding every agreed value


def shares(
    types: dict[str, str], blocks: Sequence[str], answers: Sequence[dict[str, Any]]
) -> dict[str, float]:
    """Per block, the share of the answers holding its most common value (0 without answers)."""
    found: dict[str, float] = {}
    for block in blocks:
        counts = Counter(value_key(types.get(block, ""), answer.get(block)) for answer in answers)
        found[block] = (counts.most_common(1)[0][1] / len(answers)) if answers else 0.0
    return found


def judge(settings: Settings, types: dict[str, str], answers: Sequence[dict[str, Any]]) -> Judgment:
    """`answers` (each a task's full values), oldest first, judged by `settings`; `types` maps block
    ids to their types. Settled when at least n answers exist and, on every compared block, one value
    is held by a share ≥ a and by more answers than any other; disputed at m answers otherwise."""
    agreement = shares(types, settings.blocks, answers)
    agreed: dict[str, Hashable] = {}
    for block in settings.blocks:
        counts = Counter(
            value_key(types.get(block, ""), answer.get(block)) for answer in answers
        ).most_common(2)
        if not counts:
            break
        top, held = counts[0]
        runner_up = counts[1][1] if len(counts) > 1 else 0
        if held / len(answers) >= settings.agreement and held > runner_up:
            agreed[block] = top
    if len(answers) >= settings.answers and len(agreed) == len(settings.blocks):
        for index, answer in enumerate(answers):
            if all(value_key(types.get(b, ""), answer.get(b)) == key for b, key in agreed.items()):
                return Judgment("settled", agreement, index)
    if len(answers) >= settings.max_answers:
        return Judgment("disputed", agreement, None)
    return Judgment("collecting", agreement, None)


def holds_all(
    types: dict[str, str], blocks: Sequence[str], answer: dict[str, Any], final: dict[str, Any]
) -> bool:
    """Whether `answer` holds every final value of the compared `blocks` (B15's `agreed`)."""
    return all(equal(types.get(block, ""), answer.get(block), final.get(block)) for block in blocks)
