"""A queue's `consensus` (B21) as B12 and B13 take it: checked against the queue's blocks, with the
defaults filled in, so that what is stored (and answered in A4, B12, B13) is always complete."""

from typing import Any, TypeGuard

from queuedesk.api.blocks import Problem
from queuedesk.api.models import Block
from queuedesk.server.rules.agreement import COMPARABLE_TYPES, DEFAULT_TYPES, Settings

FIELD = "consensus"
KEYS = ("answers", "max_answers", "agreement", "blocks")
MOST_ANSWERS = 10


def default_blocks(blocks: list[Block]) -> list[str]:
    """Every `single_selection`, `multiple_selection` and `binary` block that is not read-only."""
    return [block.id for block in blocks if block.type in DEFAULT_TYPES and not block.read_only]


def _whole(value: Any) -> TypeGuard[int]:
    return type(value) is int  # bool is not a count


def checked(raw: Any, blocks: list[Block]) -> tuple[dict[str, Any] | None, list[Problem]]:
    """(the settings to store, or None for none; the problems found)."""
    if raw is None:
        return None, []
    if not isinstance(raw, dict):
        return None, [Problem("invalid_value", FIELD, "must be null or an object with 'answers'")]
    problems = [
        Problem("unknown_field", f"{FIELD}.{key}", f"'{key}' is not a consensus setting ({', '.join(KEYS)})")
        for key in raw
        if key not in KEYS
    ]
    answers: Any = raw.get("answers")
    if "answers" not in raw:
        problems.append(Problem("missing_required", f"{FIELD}.answers", "the answers each task needs (2-10)"))
    elif not _whole(answers) or not 2 <= answers <= MOST_ANSWERS:
        problems.append(
            Problem(
                "invalid_value",
                f"{FIELD}.answers",
                f"must be a whole number from 2 to 10, not {answers!r:.40}",
            )
        )
    least = answers if _whole(answers) and 2 <= answers <= MOST_ANSWERS else 2
    most: Any = raw.get("max_answers", least)
    if not _whole(most) or not least <= most <= MOST_ANSWERS:
        problems.append(
            Problem(
                "invalid_value",
                f"{FIELD}.max_answers",
                f"must be a whole number from {least} ('answers') to 10, not {most!r:.40}",
            )
        )
    agreement = raw.get("agreement", 0.5)
    if isinstance(agreement, bool) or not isinstance(agreement, int | float) or not 0.5 <= agreement <= 1.0:
        problems.append(
            Problem(
                "invalid_value",
                f"{FIELD}.agreement",
                f"must be a number from 0.5 to 1.0, not {agreement!r:.40}",
            )
        )
    chosen, block_problems = _compared(raw.get("blocks"), "blocks" in raw, blocks)
    problems += block_problems
    if problems:
        return None, problems
    return {"answers": answers, "max_answers": most, "agreement": agreement, "blocks": chosen}, []


def _compared(raw: Any, given: bool, blocks: list[Block]) -> tuple[list[str], list[Problem]]:
    where = f"{FIELD}.blocks"
    if not given or raw is None:
        chosen = default_blocks(blocks)
        if not chosen:
            return [], [
                Problem(
                    "invalid_value",
                    where,
                    "the queue has no single_selection, multiple_selection or binary block to compare: "
                    "name the blocks to compare (number and date blocks may be listed)",
                )
            ]
        return chosen, []
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        return [], [Problem("invalid_value", where, "must be a list of block ids")]
    if not raw:
        return [], [Problem("invalid_value", where, "must name at least one block to compare")]
    by_id = {block.id: block for block in blocks}
    problems: list[Problem] = []
    for index, block_id in enumerate(raw):
        block = by_id.get(block_id)
        if block is None:
            problems.append(
                Problem(
                    "invalid_value", f"{where}[{index}]", f"{block_id[:64]!r} is not a block of the queue"
                )
            )
        elif block.type not in COMPARABLE_TYPES:
            problems.append(
                Problem(
                    "invalid_value",
                    f"{where}[{index}]",
                    f"block {block_id!r} is a {block.type} block; only {', '.join(sorted(COMPARABLE_TYPES))} "
                    "blocks can be compared",
                )
            )
        elif raw.index(block_id) != index:
            problems.append(
                Problem("invalid_value", f"{where}[{index}]", f"block {block_id!r} is listed twice")
            )
    return list(raw), problems


def settings_of(stored: dict[str, Any]) -> Settings:
    return Settings(
        answers=int(stored["answers"]),
        max_answers=int(stored["max_answers"]),
        agreement=float(stored["agreement"]),
        blocks=tuple(stored["blocks"]),
    )
