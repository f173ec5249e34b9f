"""How values read for people: a task's block values by type, times, who holds what."""

import json
from datetime import datetime
from typing import Any

from queuedesk.api.models import Block, Task
from queuedesk.tui.clock import Clock, local

SELECTIONS = ("single_selection", "multiple_selection")


def tasks(count: int) -> str:
    """ "1 task", "2 tasks", "12,000 tasks"."""
    return f"{count:,} task" if count == 1 else f"{count:,} tasks"


# Every time shown is in the clock's zone (the local one unless --utc), which the screens name.


def when(moment: datetime | None, clock: Clock) -> str:
    return "—" if moment is None else local(clock, moment).strftime("%Y-%m-%d %H:%M:%S")


def minute(moment: datetime | None, clock: Clock) -> str:
    """For table cells: to the minute (the task view shows seconds)."""
    return "—" if moment is None else local(clock, moment).strftime("%Y-%m-%d %H:%M")


def short_time(moment: datetime | None, clock: Clock) -> str:
    """For narrow cells: the time of day when it is today, else the date and minute."""
    if moment is None:
        return "—"
    shown = local(clock, moment)
    if shown.date() == local(clock, clock.now()).date():
        return shown.strftime("%H:%M:%S")
    return shown.strftime("%m-%d %H:%M")


def block_value(block: Block, value: Any) -> str:
    """A value as its block type reads: an option's name, Yes/No, the text itself, JSON otherwise."""
    if value is None or value == "" or value == []:
        return "—"
    if block.type in SELECTIONS:
        names = {o.id: o.name for o in block.options}
        chosen = value if isinstance(value, list) else [value]
        return ", ".join(names.get(str(v), f"{v} (not an option)") for v in chosen)
    if block.type == "binary" and isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


DECISIONS = (*SELECTIONS, "binary", "number", "date")  # what a worker decides, rather than reads


def answers_first(blocks: list[Block]) -> list[Block]:
    """The blocks a worker decides (choices, yes/no, numbers, dates) first, the ones read last: a
    completed task's row shows what was answered before what was given (the order is otherwise kept)."""
    return sorted(blocks, key=lambda block: (block.read_only, block.type not in DECISIONS))


def summary(blocks: list[Block], task: Task, width: int = 60) -> str:
    """One line of a task's values for a table row, in the blocks' order."""
    parts = []
    for block in blocks:
        value = task.data.get(block.id)
        if value is None or value == "":
            continue
        parts.append(block_value(block, value).replace("\n", " "))
    text = " · ".join(parts) if parts else "(no values)"
    return text if len(text) <= width else text[: width - 1] + "…"


def setting_text(value: object) -> str:
    """A setting's value as written in a queue file (JSON), never as a Python repr."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def settings_text(block: Block) -> str:
    settings = block.settings
    parts = []
    if block.is_required:
        parts.append("required")
    if block.read_only:
        parts.append("read-only")
    if block.type in SELECTIONS:
        parts.append("options: " + ", ".join(f"{o.name} ({o.id})" for o in block.options))
    for key, value in settings.items():
        if key in ("is_required", "read_only", "options") or value is None:
            continue  # a null setting (the original's `value: null`) is one left out
        parts.append(f"{key.replace('_', ' ')}: {setting_text(value)}")
    return " · ".join(parts) or "—"
