"""One task as `queuedesk tasks show` prints it: its state, values and assignment, and in a consensus
queue (B21) its answers side by side per compared block, with the agreement of each."""

from typing import Any

from queuedesk.api.models import AssignedTask, QueueDetail
from queuedesk.api.terminal_text import shown
from queuedesk.api.timestamps import format_timestamp
from queuedesk.commands.common import print_table

STATES = {
    "collecting": "collecting answers",
    "settled": "settled: the answers agreed",
    "disputed": "disputed: waiting for a reviewer to decide",
    "decided": "decided by a reviewer",
}


def value_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(value_text(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def state_line(task: AssignedTask, detail: QueueDetail) -> str:
    """`open · consensus: collecting answers (1 of 2)` and the like."""
    said = task.status
    consensus = task.consensus
    if consensus is not None:
        said += f" · consensus: {STATES.get(consensus.state, consensus.state)}"
        if consensus.state == "collecting" and detail.consensus is not None:
            said += f" ({len(consensus.answers)} of {detail.consensus.answers} answers)"
        if consensus.decided_by:
            said += f" ({shown(consensus.decided_by)})"
    return said


def print_task(task: AssignedTask, detail: QueueDetail) -> None:
    print(f"Task {task.id} in queue {detail.id} {shown(detail.name)!r}: {state_line(task, detail)}")
    print(f"created {format_timestamp(task.created_at)} · source {shown(task.source)}")
    if task.completed_at is not None:
        print(f"completed {format_timestamp(task.completed_at)} by {shown(task.completed_by or '')}")
    if task.assignment.assigned_to:
        lease = task.assignment.lease_expires_at
        until = f" until {format_timestamp(lease)}" if lease is not None else ""
        print(f"held by {shown(task.assignment.assigned_to)}{until}")
    names = {block.id: block.name for block in detail.data}
    print_table(["block", "value"], [(names.get(k, k), value_text(v)) for k, v in task.data.items()])
    consensus = task.consensus
    if consensus is None:
        return
    compared = list(detail.consensus.blocks) if detail.consensus is not None else list(consensus.agreement)
    compared += [block_id for block_id in consensus.agreement if block_id not in compared]
    others = [b.id for b in detail.data if b.id not in compared and not b.read_only]
    columns = compared + others
    print(f"\n{len(consensus.answers)} answers:")
    print_table(
        ["worker", "answered", "seconds", *(names.get(c, c) for c in columns)],
        [
            (
                f"{answer.name} <{answer.worker}>" if answer.name else answer.worker,
                format_timestamp(answer.answered_at),
                "" if answer.seconds is None else f"{answer.seconds:.0f}",
                *(value_text(answer.data.get(c)) for c in columns),
            )
            for answer in consensus.answers
        ],
    )
    if consensus.agreement:
        agreement = ", ".join(f"{names.get(k, k)} {share:.0%}" for k, share in consensus.agreement.items())
        print(f"agreement: {agreement}")
