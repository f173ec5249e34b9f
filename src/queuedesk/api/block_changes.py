"""What a change of a queue's blocks does to the values its tasks already hold.

The server keeps a task's `data` as it was written: a value of a removed block stays in the task
(exports and the API still show it) but no form shows or edits it any more, and a pending task
drops it when it is completed. A block whose type changed keeps its values as they are, whether
or not they fit the new type; so does a selection that lost options.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from queuedesk.api.models import Block


@dataclass(frozen=True)
class BlockChanges:
    removed: list[Block] = field(default_factory=list)
    added: list[Block] = field(default_factory=list)
    retyped: list[tuple[Block, Block]] = field(default_factory=list)  # (before, after)
    options_removed: list[tuple[Block, list[str]]] = field(default_factory=list)  # option ids

    @property
    def touches_values(self) -> bool:
        """Would tasks' existing values be hidden or stop fitting their block?"""
        return bool(self.removed or self.retyped or self.options_removed)


def compare_blocks(before: Sequence[Block], after: Sequence[Block]) -> BlockChanges:
    old = {b.id: b for b in before}
    new = {b.id: b for b in after}
    changes = BlockChanges(
        removed=[b for b in before if b.id not in new],
        added=[b for b in after if b.id not in old],
    )
    for block in after:
        was = old.get(block.id)
        if was is None:
            continue
        if was.type != block.type:
            changes.retyped.append((was, block))
            continue
        kept = {o.id for o in block.options}
        lost = [o.id for o in was.options if o.id not in kept]
        if lost:
            changes.options_removed.append((block, lost))
    return changes


def impact_lines(changes: BlockChanges) -> list[str]:
    """One sentence per change that touches the tasks' values, for people."""
    lines: list[str] = []
    if changes.removed:
        names = ", ".join(f"{b.name} ({b.id})" for b in changes.removed)
        lines.append(
            f"Removed: {names}. Tasks keep their values in their data (exports and the API show them), "
            "but no form shows or edits them any more; a pending task drops them when it is completed."
        )
    for was, now in changes.retyped:
        lines.append(
            f"{now.name} ({now.id}) changes type from {was.type} to {now.type}: values already in tasks "
            "stay as they are; one that does not fit the new type must be corrected before completing."
        )
    for block, lost in changes.options_removed:
        lines.append(
            f"{block.name} ({block.id}) loses {'option' if len(lost) == 1 else 'options'} {', '.join(lost)}: tasks that hold one keep it; "
            "a worker must choose another before completing."
        )
    return lines
