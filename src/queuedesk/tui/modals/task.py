"""One task, read-only: each block's value as its type reads, who completed it and when, the raw JSON;
in a queue with consensus (B21), every answer side by side, who gave it, and the agreement per block
(a completed task from the history is read again from the server for them)."""

import json
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from queuedesk.api.models import AssignedTask, Consensus, QueueDetail, Task
from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.present import block_value, when
from queuedesk.tui.widgets.answers_table import answers_table
from queuedesk.tui.widgets.app_footer import AppFooter


class TaskScreen(AppModal[None]):
    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Back", id="task.back"),
        Binding("j", "toggle_json", "Raw JSON", id="task.json"),
    ]

    def __init__(self, queue: QueueDetail, task: Task) -> None:
        super().__init__()
        self.queue = queue
        self.shown = task
        self.raw = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="task-box"):
            yield Static(self._heading(), id="task-heading")
            yield Static(self._values(), id="task-values")
            answers = Static("", id="task-answers")
            answers.display = False
            yield answers
        yield AppFooter()

    def on_mount(self) -> None:
        task = self.shown
        if isinstance(task, AssignedTask):
            self._show_answers(task.consensus)
        elif self.session.extensions:
            self._read_answers()  # the history's tasks come without them (A2)

    @work(group="task-answers")
    async def _read_answers(self) -> None:
        client = self.session.client
        try:
            if not await client.supports_consensus():
                return
            task = await client.task(self.queue.id, self.shown.id)
        except Exception as exc:
            self.qd.report(exc, doing=f"Reading the answers of task {self.shown.id}")
            return
        self._show_answers(task.consensus)

    def _show_answers(self, consensus: Consensus | None) -> None:
        if consensus is None:
            return
        box = self.query_one("#task-answers", Static)
        box.update(answers_table(self.queue.data, consensus))
        box.display = True

    def _heading(self) -> Text:
        task = self.shown
        text = Text()
        text.append(f"Task {task.id}", style="bold")
        text.append(f" in {self.queue.name} · {task.status} · source {task.source}\n")
        text.append(f"created {when(task.created_at, self.clock)}")
        if task.completed_at is not None:
            text.append(f" · completed {when(task.completed_at, self.clock)} by {task.completed_by or '—'}")
        if isinstance(task, AssignedTask) and task.assignment.assigned_to:
            text.append(f" · held by {task.assignment.assigned_to_name or task.assignment.assigned_to}")
        return text

    def _values(self) -> Table | Text:
        if self.raw:
            return Text(json.dumps(self.shown.model_dump(mode="json"), indent=2, ensure_ascii=False))
        table = Table(show_header=True, header_style="bold", expand=True, box=None, padding=(0, 1))
        table.add_column("Block", ratio=1, no_wrap=True)
        table.add_column("Value", ratio=3)
        known = set()
        for block in self.queue.data:
            known.add(block.id)
            label = Text(shown(block.name))
            label.append(f"\n{block.type}", style="dim")
            table.add_row(
                label, Text(shown(block_value(block, self.shown.data.get(block.id))))
            )  # never markup
        for key, value in self.shown.data.items():
            if key not in known:
                table.add_row(
                    Text(f"{key}\n(no longer a block)", style="dim"),
                    Text(shown(json.dumps(value, ensure_ascii=False))),
                )
        return table

    def action_toggle_json(self) -> None:
        self.raw = not self.raw
        self.query_one("#task-values", Static).update(self._values())
