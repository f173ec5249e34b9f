"""A queue being created or edited, without a screen: what was loaded, what is typed, what is wrong
with it, what saving sends and what a change of blocks does to the tasks. The editor screen shows it
and hands it the changes; the fast unit tests drive it directly.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from queuedesk.api.block_changes import compare_blocks, impact_lines
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.models import Block, QueueDetail
from queuedesk.tui.admin.consensus_draft import ConsensusDraft
from queuedesk.tui.admin.gold_draft import GoldDraft
from queuedesk.tui.admin.queue_draft import (
    BlockDraft,
    DraftProblem,
    block_problems,
    queue_problems,
    review_percent,
    review_problems,
)


def who_is_affected(pending: int, completed: int) -> str:
    """Which tasks a change of blocks affects: the pending ones, completed under the new blocks;
    completed tasks keep the values they were completed with (the server never rewrites a task)."""
    if pending == 0:
        said = "No pending task is affected"
    elif pending == 1:
        said = "1 pending task takes the new blocks when it is completed"
    else:
        said = f"{pending:,} pending tasks take the new blocks when they are completed"
    if completed == 1:
        said += "; 1 completed task keeps its values"
    elif completed:
        said += f"; {completed:,} completed tasks keep their values"
    return said + "."


@dataclass
class QueueEdit:
    """The editor's model. `existing`: editing a queue (else a new one); `reviews`: the server
    reviews work (B19), so the share reviewed is edited and checked; `consensus_offered`: the server
    has consensus (B21), so it is edited and checked; `gold.offered`: the server has gold tasks (B22),
    so the gold share is edited and checked."""

    existing: bool = False
    detail: QueueDetail | None = None
    tasks_held: int = 0  # pending and completed tasks of the queue being edited
    tasks_completed: int = 0
    drafts: list[BlockDraft] = field(default_factory=list)
    name: str = ""
    description: str = ""
    review_text: str = "0"  # the share of completions drawn for review (B19), as typed
    reviews: bool = False
    consensus: ConsensusDraft = field(default_factory=ConsensusDraft)
    consensus_offered: bool = False
    gold: GoldDraft = field(default_factory=GoldDraft)
    saved_state: Any = None  # None until loaded: nothing is saved or compared before
    selected: int | None = None
    problems: list[DraftProblem] = field(default_factory=list)
    name_touched: bool = False  # a new queue's empty name is no fault until it is
    created: QueueDetail | None = None  # the new queue once the server made it (what follows may fail)

    def __post_init__(self) -> None:
        self.name_touched = self.name_touched or self.existing

    def load(self, detail: QueueDetail, completed: int) -> None:
        """The queue as the server holds it, and how many of its tasks are completed."""
        self.detail = detail
        self.tasks_held = detail.n_tasks + completed
        self.tasks_completed = completed
        self.name, self.description = detail.name, detail.description
        self.review_text = str(detail.review_percent)
        self.drafts = [BlockDraft.of(b) for b in detail.data]
        held = detail.consensus
        self.consensus = ConsensusDraft.of(held.model_dump() if held is not None else None)
        self.gold.text = str(detail.gold_percent)

    def mark_saved(self) -> None:
        self.saved_state = self.state()

    # --- what is typed ---------------------------------------------------------------------------

    def state(self) -> Any:
        return (
            self.name,
            self.description,
            self.raw_blocks(),
            self.review_text.strip(),
            self.consensus.state(),
            self.gold.state(),
        )

    @property
    def dirty(self) -> bool:
        return self.saved_state is not None and self.state() != self.saved_state

    def raw_blocks(self) -> list[Mapping[str, Any]]:
        return [d.raw() for d in self.drafts]

    def check(self) -> list[DraftProblem]:
        """Everything checked; the problems kept (and returned), each at its field."""
        self.problems = queue_problems(self.name, self.description) + block_problems(self.drafts)
        if self.reviews:
            self.problems += review_problems(self.review_text)
        if self.consensus_offered:
            self.problems += self.consensus.problems(self.drafts)
        gold = self.gold.problem()
        if gold is not None:
            self.problems.append(DraftProblem(None, "gold", gold))
        return self.problems

    def queue_problems_shown(self) -> dict[str, str]:
        """The queue's own problems (not a block's) by field, the name's only once it was touched."""
        mine = {p.field: p.message for p in self.problems if p.block is None}
        if not self.name_touched:
            mine.pop("name", None)
        return mine

    def block_label(self, index: int) -> str:
        draft = self.drafts[index]
        flags = " *" if draft.settings.get("is_required") else ""
        mark = "✗ " if any(p.block == index for p in self.problems) else ""
        return (
            f"{index + 1}. {mark}{draft.name or '(no name)'} · {draft.id or '(no id)'} · {draft.type}{flags}"
        )

    def status_line(self) -> str:
        parts = [f"{len(self.drafts)} block(s)"]
        if self.existing:
            parts.append(f"{self.tasks_held} task(s) hold values")
        share = review_percent(self.review_text) if self.reviews else None
        if share:
            parts.append(f"{share}% of completions reviewed")
        if self.consensus_offered and self.consensus.on:
            parts.append(f"consensus of {self.consensus.answers.strip() or '?'} answers")
        if self.gold.offered and self.gold.value:
            parts.append(f"{self.gold.value}% gold")
        if self.problems:
            parts.append(f"{len(self.problems)} problem(s) to fix before saving")
        if self.dirty:
            parts.append("unsaved changes")
        parts.append("ctrl+s saves")
        return " · ".join(parts)

    def previewed(self) -> tuple[list[dict[str, Any]], int]:
        """What the worker's form shows: the blocks without a problem, and how many blocks there are."""
        faulty = {p.block for p in self.problems}
        return [d.raw() for i, d in enumerate(self.drafts) if i not in faulty], len(self.drafts)

    # --- the blocks ------------------------------------------------------------------------------

    def add_block(self, type_name: str) -> int:
        """A new block of `type_name` after the selected one (or last); it is selected."""
        draft = BlockDraft.new(type_name, {d.id for d in self.drafts})
        at = len(self.drafts) if self.selected is None else self.selected + 1
        self.drafts.insert(at, draft)
        self.selected = at
        return at

    def remove_block(self) -> bool:
        """The selected block removed; the one after it (or the new last) selected."""
        index = self.selected
        if index is None or index >= len(self.drafts):
            return False
        self.drafts.pop(index)
        self.selected = min(index, len(self.drafts) - 1) if self.drafts else None
        return True

    def move_block(self, step: int) -> bool:
        """The selected block moved by `step`, and still selected; False when it cannot move."""
        index = self.selected
        if index is None or not 0 <= index + step < len(self.drafts):
            return False
        to = index + step
        self.drafts[index], self.drafts[to] = self.drafts[to], self.drafts[index]
        self.selected = to
        return True

    # --- saving ----------------------------------------------------------------------------------

    def what_happens_to_tasks(self) -> str | None:
        """What the change does to the values tasks hold, or None when it touches none."""
        if self.detail is None or self.tasks_held == 0:
            return None
        changes = compare_blocks(self.detail.data, [Block.model_validate(b) for b in self.raw_blocks()])
        if not changes.touches_values:
            return None
        lines = "\n".join(f"• {line}" for line in impact_lines(changes))
        affected = who_is_affected(self.detail.n_tasks, self.tasks_completed)
        return f"{self.detail.name!r}: {affected}\n\n{lines}"

    def creation(self) -> dict[str, Any]:
        """The arguments of `create_queue` for a new queue."""
        share = review_percent(self.review_text) or None if self.reviews else None
        return {
            "name": self.name.strip(),
            "blocks": self.raw_blocks(),
            "description": self.description,
            "review_percent": share,
            "consensus": self.consensus.body(self.drafts) if self.consensus_offered else None,
            "gold_percent": (self.gold.value or None) if self.gold.offered else None,
        }

    def changes(self) -> dict[str, Any]:
        """The arguments of `update_queue`: only what changed since it was loaded or saved."""
        name, description, blocks, review = self.state()[:4]
        was_name, was_description, was_blocks, was_review = self.saved_state[:4]
        return {
            "name": name.strip() if name != was_name else None,
            "description": description if description != was_description else None,
            "blocks": blocks if blocks != was_blocks else None,
            "review_percent": review_percent(review) if self.reviews and review != was_review else None,
            "gold_percent": self.gold.value if self.gold_changed() else None,
        }

    def consensus_changed(self) -> bool:
        """The consensus differs from the one loaded or saved (sent apart: B13 with `consensus`)."""
        return self.consensus_offered and self.consensus.state() != self.saved_state[4]

    def gold_changed(self) -> bool:
        """The gold share differs from the one loaded or saved (B13's `gold_percent`, with the rest)."""
        return self.gold.offered and self.gold.state() != self.saved_state[5]

    def saved_but_consensus(self) -> None:
        """Everything but the consensus reached the server (what follows may be refused)."""
        now = self.state()
        self.saved_state = (*now[:4], self.saved_state[4], *now[5:])

    async def send(self, client: QueueDeskClient, queue_id: int | None) -> QueueDetail:
        """Create the queue (`queue_id` None: B12 with everything, the gold share included) or change
        it: B13 with what changed (the gold share too), the consensus apart (the client's
        `set_consensus`), after the blocks it may compare."""
        saved: QueueDetail | None = None
        if queue_id is None and self.created is not None:
            queue_id = self.created.id  # made already: only what did not reach it is sent again
        if queue_id is None:
            saved = self.created = await client.create_queue(**self.creation())
            self.mark_saved()
        else:
            changes = self.changes()
            if any(value is not None for value in changes.values()) or not self.consensus_changed():
                saved = await client.update_queue(queue_id, **changes)
            if self.consensus_changed():
                self.saved_but_consensus()  # if the consensus is refused, the rest is saved all the same
                saved = await client.set_consensus(
                    queue_id, **(self.consensus.body(self.drafts) or {"answers": None})
                )
        assert saved is not None
        return saved
