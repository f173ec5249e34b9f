"""Suggestions (B23) as the service and the client check them: which blocks may carry one, what a
suggestion must hold, and the lowest score of a task's suggestions (B24's `least_confident`).

A suggestion is `{"value": v, "agent": "≤ 100 characters", "score": 0..1 | null}`, given per block
beside a task's `data`, only for blocks a worker fills: not read-only, and not the task's content
(an image, a link, audio, video, a pdf or an embed is shown to the worker, never filled by them).
Its value is checked as the block's own. Nothing here talks to a server.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from queuedesk.api.blocks import Problem, control_problem, listing, value_problem
from queuedesk.api.models import Block

AGENT_MAX = 100
KEYS = ("value", "agent", "score")
# Blocks that are the task's content: shown to the worker, never filled by them.
CONTENT_TYPES = frozenset({"image", "link", "embed", "audio", "video", "pdf"})


def fills(block: Block) -> bool:
    """Whether a worker fills `block` (it may then carry a suggestion)."""
    return block.type not in CONTENT_TYPES and not block.read_only


def agent_problem(agent: Any) -> str | None:
    """What is wrong with an agent's name: a string of 1 to 100 characters people can read."""
    if not isinstance(agent, str) or not agent.strip():
        return "'agent' must name the model or rule that made the suggestion (1-100 characters)"
    if len(agent) > AGENT_MAX:
        return f"'agent' must be at most {AGENT_MAX} characters, not {len(agent)}"
    problem = control_problem(agent)
    return None if problem is None else f"'agent' {problem}"


def score_problem(score: Any) -> str | None:
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        return f"'score' must be a number from 0 to 1, or null, not {str(score)[:40]}"
    return None


def suggestion_problems(
    blocks: Sequence[Block], suggestions: Any, field_name: str = "suggestions"
) -> Iterator[Problem]:
    """Every problem of a task's `suggestions` (null or `{}`: none), one at a time."""
    if suggestions is None:
        return
    if not isinstance(suggestions, dict):
        yield Problem(
            "invalid_value",
            field_name,
            'must be an object {block id: {"value": ..., "agent": "...", "score": 0..1 | null}}',
        )
        return
    by_id = {block.id: block for block in blocks}
    for block_id, item in suggestions.items():
        where = f"{field_name}.{block_id}"
        block = by_id.get(block_id)
        if block is None:
            yield Problem(
                "unknown_field",
                where,
                f"{str(block_id)[:64]!r} is not a block of this queue (blocks: {listing(list(by_id)) or 'none'})",
            )
            continue
        if not fills(block):
            kind = "read-only" if block.read_only else f"the task's {block.type}"
            yield Problem(
                "invalid_value",
                where,
                f"block {block_id!r} is {kind}: "
                f"suggestions are only for blocks a worker fills "
                f"({listing([b.id for b in blocks if fills(b)]) or 'this queue has none'})",
            )
            continue
        yield from _item_problems(block, item, where)


def _item_problems(block: Block, item: Any, where: str) -> Iterator[Problem]:
    if not isinstance(item, dict):
        yield Problem(
            "invalid_value", where, 'must be an object {"value": ..., "agent": "...", "score": ...}'
        )
        return
    for key in item:
        if key not in KEYS:
            yield Problem(
                "unknown_field",
                f"{where}.{key}",
                f"{str(key)[:40]!r} is not a key of a suggestion (value, agent, score)",
            )
    value = item.get("value")
    if value is None:
        yield Problem("invalid_value", f"{where}.value", "a suggestion needs a 'value' (not null)")
    elif (message := value_problem(block, value)) is not None:
        yield Problem("invalid_value", f"{where}.value", f"block '{block.id}' ({block.type}): {message}")
    if (message := agent_problem(item.get("agent"))) is not None:
        yield Problem("invalid_value", f"{where}.agent", message)
    if (message := score_problem(item.get("score"))) is not None:
        yield Problem("invalid_value", f"{where}.score", message)


def normalized(suggestions: Mapping[str, Any] | None) -> dict[str, dict[str, Any]] | None:
    """Checked suggestions as stored and answered: each `{"value", "agent", "score"}`; None for none."""
    if not suggestions:
        return None
    return {
        block_id: {"value": item["value"], "agent": item["agent"], "score": item.get("score")}
        for block_id, item in suggestions.items()
    }


def lowest_score(suggestions: Mapping[str, Any] | None) -> float | None:
    """The lowest score of a task's suggestions (B24's `least_confident`); None when none is scored."""
    scores = [item.get("score") for item in (suggestions or {}).values()]
    known = [float(score) for score in scores if score is not None]
    return min(known) if known else None
