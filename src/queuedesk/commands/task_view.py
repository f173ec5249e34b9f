"""One task as `queuedesk tasks show` prints it: its state, values and assignment, and in a consensus
queue (B21) its answers side by side per compared block, with the agreement of each."""

from typing import Any

from queuedesk.api.models import AssignedTask, Block, QueueDetail
from queuedesk.api.terminal_text import shown
from queuedesk.api.timestamps import format_timestamp
from queuedesk.commands.common import print_table

STATES = {
    "collecting": "collecting answers",
    "settled": "settled: the answers agreed",
    "disputed": "disputed: waiting for a reviewer to decide",
    "decided": "decided by a reviewer",
}


# Blocks that show the worker something (a picture, a page): the same in every answer.
SHOWN_ONLY = ("image", "audio", "video", "pdf", "embed", "link")


def fills(block: Block) -> bool:
    """Whether a worker fills this block (so answers may differ on it)."""
    return not block.read_only and block.type not in SHOWN_ONLY


def value_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(value_text(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def answers_so_far(count: int, detail: QueueDetail) -> str:
    """A collecting task's answers against the queue's settings: "1 of 2 answers", or once that
    many disagree "2 answers, they disagree: up to 3"."""
    settings = detail.consensus
    if settings is None:
        return f"{count} answers"
    if count < settings.answers:
        return f"{count} of {settings.answers} answers"
    return f"{count} answers, they disagree: up to {settings.max_answers}"


def state_line(task: AssignedTask, detail: QueueDetail) -> str:
    """`open · consensus: collecting answers (1 of 2)` and the like."""
    said = task.status
    consensus = task.consensus
    if consensus is not None:
        said += f" · consensus: {STATES.get(consensus.state, consensus.state)}"
        if consensus.state == "collecting":
            said += f" ({answers_so_far(len(consensus.answers), detail)})"
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
    if task.gold is not None:  # B22: sent to admins and supervisors only
        expected = ", ".join(f"{names.get(k, k)}: {value_text(v)}" for k, v in task.gold.items())
        retired = " (retired: never served again)" if task.retired else ""
        print(f"gold task{retired}: expects {shown(expected)}")
    consensus = task.consensus
    if consensus is None:
        return
    compared = list(detail.consensus.blocks) if detail.consensus is not None else list(consensus.agreement)
    compared += [block_id for block_id in consensus.agreement if block_id not in compared]
    others = [b.id for b in detail.data if b.id not in compared and fills(b)]
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


def pending_rows(
    tasks: list[AssignedTask], detail: QueueDetail
) -> tuple[list[str], list[tuple[object, ...]]]:
    """The pending list's columns and rows: id, status, holder, created, and where the tasks carry
    their consensus, its state and the answers so far (of the answers the queue needs)."""
    with_consensus = any(task.consensus is not None for task in tasks)
    headers = ["id", "status", "held by", "created"] + (["consensus", "answers"] if with_consensus else [])
    rows: list[tuple[object, ...]] = []
    for task in tasks:
        row: tuple[object, ...] = (
            task.id,
            task.status,
            task.assignment.assigned_to or "",
            f"{task.created_at:%Y-%m-%d %H:%M}",
        )
        if with_consensus:
            consensus = task.consensus
            count = len(consensus.answers) if consensus is not None else 0
            collecting = consensus is not None and consensus.state == "collecting"
            row += (
                consensus.state if consensus is not None else "",
                answers_so_far(count, detail) if collecting else count,
            )
        rows.append(row)
    return headers, rows
