"""A queue's consensus (B21) while it is edited: as typed, what is wrong with it, what it means in
words, and what is sent.

Several workers answer each task blind: `answers` of them (2-10), more up to `max_answers` while they
disagree; a task settles when, on every compared block, one value is held by a share of at least
`agreement` (0.5-1.0) of the answers and by more answers than any other value; one that `max_answers`
cannot settle is disputed and goes to review. The agreement is typed as a share (`0.6`), a percent
(`60%`) or a fraction (`2/3`: exact, so two answers of three settle).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from queuedesk.api.consensus_rules import COMPARABLE, COMPARED_BY_DEFAULT, MAX_ANSWERS, MIN_ANSWERS, described
from queuedesk.api.models import Block, ConsensusSettings
from queuedesk.tui.admin.queue_draft import BlockDraft, DraftProblem

FIELDS = ("answers", "max_answers", "agreement", "blocks")


def comparable(drafts: Sequence[BlockDraft]) -> list[BlockDraft]:
    """The blocks a queue's consensus may compare, in the queue's order (ids that are not empty)."""
    return [d for d in drafts if d.type in COMPARABLE and d.id]


def compared_by_default(drafts: Sequence[BlockDraft]) -> list[str]:
    """The server's default: every selection and yes/no block a worker fills (not read-only)."""
    return [
        d.id for d in drafts if d.type in COMPARED_BY_DEFAULT and d.id and not d.settings.get("read_only")
    ]


def parse_agreement(text: str) -> Fraction | None:
    """`0.6`, `60%`, `60 %` or `2/3` as a share; None when it is none of these (or blank)."""
    text = text.strip().replace(" ", "")
    try:
        if text.endswith("%"):
            return Fraction(text[:-1]) / 100
        return Fraction(text) if text else None
    except (ValueError, ZeroDivisionError):
        return None


def whole(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


@dataclass
class ConsensusDraft:
    """As typed. `on` False: one answer completes a task. An empty maximum is the answers, an empty
    agreement a majority (0.5); `blocks` None: the server's default set, followed as blocks change."""

    on: bool = False
    answers: str = "2"
    max_answers: str = ""
    agreement: str = ""
    blocks: list[str] | None = None

    @classmethod
    def of(cls, settings: Mapping[str, Any] | None) -> "ConsensusDraft":
        """The settings a queue holds (B21's object, or None: off)."""
        if not settings:
            return cls()
        share = Fraction(str(settings.get("agreement", 0.5))).limit_denominator(100)
        n, m = settings.get("answers", 2), settings.get("max_answers")
        return cls(
            on=True,
            answers=str(n),
            max_answers="" if m in (None, n) else str(m),
            agreement="" if share == Fraction(1, 2) else _typed(share),
            blocks=list(settings.get("blocks") or []) or None,
        )

    def state(self) -> Any:
        """What is compared to tell a change (nothing typed counts while it is off)."""
        if not self.on:
            return None
        return (self.answers.strip(), self.max_answers.strip(), self.agreement.strip(), self.blocks)

    def compared(self, drafts: Sequence[BlockDraft]) -> list[str]:
        """The ids compared: those chosen that are still comparable, or the default set."""
        if self.blocks is None:
            return compared_by_default(drafts)
        ids = {d.id for d in comparable(drafts)}
        return [block_id for block_id in self.blocks if block_id in ids]

    def problems(self, drafts: Sequence[BlockDraft]) -> list[DraftProblem]:
        """Each problem at its field (`consensus.answers`, ...), in words that say what to write."""
        if not self.on:
            return []
        found: list[DraftProblem] = []

        def bad(key: str, message: str) -> None:
            found.append(DraftProblem(None, f"consensus.{key}", message))

        n = whole(self.answers)
        if n is None or not MIN_ANSWERS <= n <= MAX_ANSWERS:
            bad("answers", f"answers per task: a whole number from {MIN_ANSWERS} to {MAX_ANSWERS}")
        lowest = n if n is not None and MIN_ANSWERS <= n <= MAX_ANSWERS else MIN_ANSWERS
        m = whole(self.max_answers) if self.max_answers.strip() else lowest  # empty: the answers
        if m is None or not lowest <= m <= MAX_ANSWERS:
            bad(
                "max_answers",
                f"at most: a whole number from {lowest} (the answers) to {MAX_ANSWERS}, or empty",
            )
        share = parse_agreement(self.agreement) if self.agreement.strip() else Fraction(1, 2)
        if share is None or not Fraction(1, 2) <= share <= 1:
            bad(
                "agreement",
                "agreement: a share from 0.5 to 1 (like 0.6, 60% or 2/3), or empty for a majority",
            )
        if not comparable(drafts):
            bad("blocks", "nothing to compare: add a selection, yes/no, number or date block")
        elif not self.compared(drafts):
            bad("blocks", "choose at least one block to compare")
        return found

    def body(self, drafts: Sequence[BlockDraft]) -> dict[str, Any] | None:
        """B21's `consensus` as sent (None: off); only when `problems` found none."""
        if not self.on:
            return None
        n = int(self.answers)
        share = parse_agreement(self.agreement) if self.agreement.strip() else Fraction(1, 2)
        return {
            "answers": n,
            "max_answers": whole(self.max_answers) if self.max_answers.strip() else n,
            "agreement": float(share or Fraction(1, 2)),
            "blocks": self.compared(drafts),
        }

    def meaning(self, drafts: Sequence[BlockDraft]) -> str:
        """What the settings do, in the sentence the command line says too (`api/consensus_rules`)."""
        if not self.on:
            return described(None)
        body = None if self.problems(drafts) else self.body(drafts)
        if body is None:
            return "Each task is answered by several workers, blind, until they agree: fix what is marked in red."
        blocks = [Block(id=d.id, name=d.name or d.id, type=d.type) for d in drafts]
        return described(ConsensusSettings.model_validate(body), blocks)


def _typed(share: Fraction) -> str:
    """A share as the field shows it: a fraction when it is one of thirds, sixths...; else decimal."""
    if share.denominator in (3, 6, 7, 9):
        return f"{share.numerator}/{share.denominator}"
    return f"{float(share):g}"
