"""Consensus (B21) as the client says and checks it: which blocks may be compared, the server's
defaults, the settings' limits, and what the settings mean in words ("each task is answered by 2
workers, a third when they disagree; a task the third cannot settle goes to review").

Nothing here talks to a server: the command line checks settings before it sends them, and the
command line and the app say the same sentence."""

from collections.abc import Sequence
from dataclasses import dataclass

from queuedesk.api.models import Block, ConsensusSettings

COMPARED_BY_DEFAULT = ("single_selection", "multiple_selection", "binary")
COMPARABLE = (*COMPARED_BY_DEFAULT, "number", "date")
MIN_ANSWERS, MAX_ANSWERS = 2, 10
MIN_AGREEMENT, MAX_AGREEMENT = 0.5, 1.0
DEFAULT_AGREEMENT = 0.5

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def default_blocks(blocks: Sequence[Block]) -> list[str]:
    """The blocks compared when the settings name none: every selection and yes/no block that a
    worker fills (not read-only)."""
    return [b.id for b in blocks if b.type in COMPARED_BY_DEFAULT and not b.read_only]


@dataclass(frozen=True)
class Wanted:
    """Settings as a person gives them: what is left out takes the server's default."""

    answers: int
    max_answers: int | None = None
    agreement: float | None = None
    blocks: tuple[str, ...] | None = None


def problems(wanted: Wanted, blocks: Sequence[Block]) -> list[str]:
    """What is wrong with `wanted` for a queue of `blocks`, each said with what would be right."""
    found = []
    if not MIN_ANSWERS <= wanted.answers <= MAX_ANSWERS:
        found.append(f"answers must be {MIN_ANSWERS}-{MAX_ANSWERS}, not {wanted.answers}")
    if wanted.max_answers is not None and not wanted.answers <= wanted.max_answers <= MAX_ANSWERS:
        found.append(
            f"the maximum must be from the answers ({wanted.answers}) to {MAX_ANSWERS}, not {wanted.max_answers}"
        )
    if wanted.agreement is not None and not MIN_AGREEMENT <= wanted.agreement <= MAX_AGREEMENT:
        found.append(
            f"agreement must be {MIN_AGREEMENT}-{MAX_AGREEMENT} (0.5: a majority), not {wanted.agreement:g}"
        )
    by_id = {b.id: b for b in blocks}
    compared = default_blocks(blocks) if wanted.blocks is None else list(wanted.blocks)
    if not compared:
        found.append(
            "no block to compare: the queue has no selection or yes/no block a worker fills; name "
            "the number or date blocks to compare"
            if wanted.blocks is None
            else "name at least one block to compare"
        )
    comparable = [b.id for b in blocks if b.type in COMPARABLE]
    for block_id in compared:
        block = by_id.get(block_id)
        if block is None:
            found.append(
                f"{block_id!r} is no block of the queue (comparable: {', '.join(comparable) or 'none'})"
            )
        elif block.type not in COMPARABLE:
            found.append(
                f"{block_id!r} is a {block.type} block: only {', '.join(COMPARABLE)} blocks can be "
                f"compared (here: {', '.join(comparable) or 'none'})"
            )
    return found


def _share(agreement: float) -> str:
    if agreement == MIN_AGREEMENT:
        return "at least half of the answers, and more than any other value"
    if agreement == MAX_AGREEMENT:
        return "every answer"
    return f"at least {agreement:.0%} of the answers"


def described(settings: ConsensusSettings | None, blocks: Sequence[Block] = ()) -> str:
    """What `settings` mean, in a sentence ("one answer completes a task" for none)."""
    if settings is None:
        return "No consensus: one answer completes a task."
    n, m = settings.answers, settings.max_answers
    said = f"Each task is answered by {n} workers"
    if m == n + 1:
        said += f", a {_ORDINALS[m - 1]} when they disagree; a task the {_ORDINALS[m - 1]} cannot settle"
    elif m > n:
        said += f", up to {m} while they disagree; a task {m} answers cannot settle"
    else:
        said += "; a task they do not agree on"
    said += " goes to review."
    names = {b.id: b.name for b in blocks}
    compared = [names.get(block_id, block_id) for block_id in settings.blocks]
    if len(compared) == 1:
        said += f" They agree when one value of {compared[0]} is given by {_share(settings.agreement)}."
    elif compared:
        said += (
            f" They agree when, on each of {', '.join(compared[:-1])} and {compared[-1]}, one value is "
            f"given by {_share(settings.agreement)}."
        )
    return said
