"""The Gold tab (B22), for supervisors and admins: the queue's gold tasks (tasks with a known
answer, mixed into the work to measure each worker), each with its expected values, how many
answered it and how many of them right; the highlighted one's misses below. An admin corrects an
expected answer (`e`; answers given before keep their score) or retires a task (`R`, confirmed:
never served again). Read when the tab is shown, at each refresh of the queue screen while it is,
and after each change made here; `7` shows it.
"""

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from queuedesk.api import errors
from queuedesk.api.gold_rules import GoldTally, accuracy_text, described, tallies
from queuedesk.api.models import AssignedTask, Block, GoldAnswer
from queuedesk.api.terminal_text import shown
from queuedesk.api.wording import counted
from queuedesk.tui.base import AppAccess
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.gold_expect import GoldExpectScreen
from queuedesk.tui.panes.gold_misses import block_name, missed_lines
from queuedesk.tui.present import block_value
from queuedesk.tui.widgets.row_table import RowTable

COLUMNS = [
    ("task", "Task"),
    ("expected", "Expected"),
    ("answered", "Answered"),
    ("right", "Right"),
    ("state", "State"),
]
NO_GOLD = "This server has no gold tasks (B22): ask an admin to upgrade the server."
MISSES_SHOWN = 3  # the newest misses of the highlighted task shown below the list


def expected_text(blocks: list[Block], expected: dict[str, object]) -> str:
    by_id = {b.id: b for b in blocks}
    return ", ".join(
        f"{block_name(blocks, key)}: {block_value(by_id[key], value) if key in by_id else value}"
        for key, value in expected.items()
    )


def state_of(task: AssignedTask) -> str:
    if task.retired:
        return "retired"
    return "held now" if task.assignment.assigned_to else "served"


class GoldView(AppAccess, Vertical):
    DEFAULT_CSS = """
    GoldView { height: 1fr; }
    #gold-note { height: auto; padding: 0 1; color: $text-muted; }
    #gold-list { height: 1fr; }
    #gold-detail { height: auto; max-height: 12; padding: 0 1; border-top: solid $primary; }
    """
    BINDINGS: ClassVar = [
        Binding("e", "expect", "Correct answer", id="gold.expect"),
        Binding("R", "retire", "Retire", id="gold.retire"),
    ]

    def __init__(self, queue_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.blocks: list[Block] = []
        self.tasks: dict[str, AssignedTask] = {}
        self.counts: dict[int, GoldTally] = {}
        self.answers: list[GoldAnswer] = []
        self.has_gold: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading…", id="gold-note", markup=False)
        yield RowTable(id="gold-list", cursor_type="row", zebra_stripes=True)
        yield Static("", id="gold-detail", markup=False)

    def on_mount(self) -> None:
        table = self.query_one("#gold-list", DataTable)
        for key, label in COLUMNS:
            table.add_column(label, key=key)

    def refresh_now(self) -> None:
        self.run_worker(self.fetch(), exclusive=True, group="gold")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("expect", "retire"):
            return self.session.is_admin and self.has_gold is True and self._chosen() is not None
        return True

    async def fetch(self) -> None:
        client = self.session.client
        try:
            if not await client.supports_gold():
                self.has_gold = False
                self._say(NO_GOLD)
                return
            detail = await client.queue(self.queue_id)
            tasks = await client.gold_tasks(self.queue_id)
            answers = [answer async for answer in client.iter_gold_answers(self.queue_id)]
        except Exception as exc:
            self._say(f"Not updated: {exc}")
            return
        self.has_gold = True
        self.blocks = detail.data
        self._show(tasks, answers, detail.gold_percent)

    def _say(self, text: str) -> None:
        self.query_one("#gold-note", Static).update(shown(text))

    def _show(self, tasks: list[AssignedTask], answers: list[GoldAnswer], percent: int) -> None:
        self.answers = answers
        self.counts = tallies(answers)
        right = sum(a.correct for a in answers)
        times = f"answered {counted(len(answers), 'time')}, {accuracy_text(right, len(answers))} right"
        self._say(
            f"{counted(len(tasks), 'gold task')}; {times if answers else 'none answered yet'}. {described(percent)}"
        )
        table = self.query_one("#gold-list", DataTable)
        chosen = self._chosen()
        rows = {str(task.id): task for task in tasks}
        table.clear()
        for key, task in rows.items():
            tally = self.counts.get(task.id)
            answered, correct = (tally.answered, tally.correct) if tally else (0, 0)
            table.add_row(
                str(task.id),
                expected_text(self.blocks, task.gold or {}),
                str(answered),
                accuracy_text(correct, answered),
                state_of(task),
                key=key,
            )
        if chosen is not None and str(chosen.id) in rows:
            table.move_cursor(row=list(rows).index(str(chosen.id)))
        self.tasks = rows
        self._show_detail()
        self.app.refresh_bindings()

    def _chosen(self) -> AssignedTask | None:
        table = self.query_one("#gold-list", DataTable)
        if not table.row_count or table.cursor_row >= table.row_count:
            return None
        key = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        return self.tasks.get(key)

    @on(DataTable.RowHighlighted, "#gold-list")
    def _highlighted(self) -> None:
        self._show_detail()
        self.app.refresh_bindings()

    def _show_detail(self) -> None:
        detail = self.query_one("#gold-detail", Static)
        task = self._chosen()
        if task is None:
            detail.display = False
            return
        lines = [f"Task {task.id} expects {expected_text(self.blocks, task.gold or {}) or 'nothing'}."]
        misses = [a for a in self.answers if a.task_id == task.id and not a.correct]
        for answer in misses[:MISSES_SHOWN]:
            lines.append(f"{answer.worker} missed:")
            lines += [f"  {line}" for line in missed_lines(self.blocks, answer, "theirs")]
        if len(misses) > MISSES_SHOWN:
            lines.append(f"… and {len(misses) - MISSES_SHOWN} more misses.")
        if self.session.is_admin:
            lines.append("e corrects the expected answer · R retires it (never served again).")
        detail.update(shown("\n".join(lines)))
        detail.display = True

    def action_expect(self) -> None:
        task = self._chosen()
        if task is None:
            return

        def chosen(expected: dict[str, object] | None) -> None:
            if expected is not None:
                self._change(task.id, expected=expected)

        self.app.push_screen(GoldExpectScreen(task.id, self.blocks, task.gold or {}), chosen)

    def action_retire(self) -> None:
        task = self._chosen()
        if task is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._change(task.id, retire=True)

        explain = (
            f"Gold task {task.id} will be served to no one again, for good. The answers already "
            "given keep their score."
        )
        self.app.push_screen(ConfirmScreen(f"Retire gold task {task.id}?", explain, "Retire"), confirmed)

    @work(group="gold-change")
    async def _change(
        self, task_id: int, *, expected: dict[str, object] | None = None, retire: bool = False
    ) -> None:
        client = self.session.client
        try:
            if retire:
                await client.update_gold_task(self.queue_id, task_id, retired=True)
                self.notify(f"Gold task {task_id} is retired.", title="Retired")
            else:
                await client.update_gold_task(self.queue_id, task_id, gold=expected)
                self.notify(
                    f"Gold task {task_id} now expects {expected_text(self.blocks, dict(expected or {}))}.",
                    title="Expected answer changed",
                )
        except errors.QueueDeskError as exc:
            self.qd.report(exc, doing=f"Changing gold task {task_id}")
            return
        await self.fetch()
