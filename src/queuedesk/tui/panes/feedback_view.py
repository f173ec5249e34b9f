"""The Feedback tab (B19): reviewed work with the reviewer's note and both values.

A worker sees their own tasks that were corrected or sent back to be redone, and, on a server with
gold tasks (B22), their answers that missed a known answer (the known value beside theirs, block by
block: shown only once answered, from their own scored answers); a supervisor or admin
sees every verdict of the queue (the tab is then called Reviews). The highlighted row's details are
below the list: each changed field with the value given and the worker's beside it, the note, and
the task a redo became. The queue screen's live refresh calls `fetch` while the tab is shown.
"""

from datetime import UTC, datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from queuedesk.api import errors
from queuedesk.api.models import AssignedTask, Block, GoldAnswer
from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppAccess
from queuedesk.tui.panes.gold_misses import (
    KNOWN,
    MISSED,
    miss_heading,
    miss_key,
    miss_summary,
    miss_time,
    missed_lines,
)
from queuedesk.tui.present import block_value, short_time
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.row_table import RowTable

COLUMNS = [
    ("task", "Task"),
    ("verdict", "Verdict"),
    ("by", "Done by"),
    ("reviewer", "Reviewer"),
    ("at", "When"),
    ("note", "Note"),
]
VERDICT_WORDS = {"accepted": "accepted", "corrected": "corrected", "redone": "to redo"}
SAID = {"accepted": "accepted", "corrected": "corrected", "redone": "sent back to be redone"}
WORKERS_FILTER = "correct,redo"
SHOWN_AT_MOST = 200
NOTE_WIDTH = 32  # in the list; the whole note is below it
NO_REVIEW = "This server does not review work (B19): there is no feedback to show."


def changed_lines(blocks: list[Block], task: AssignedTask, yours: str) -> list[str]:
    """One line per value the reviewer changed: the value now, the worker's beside it."""
    review = task.review
    if review is None or not review.original:
        return []
    lines = []
    for block in blocks:
        if block.id in review.original and review.original[block.id] != task.data.get(block.id):
            now, was = (
                block_value(block, task.data.get(block.id)),
                block_value(block, review.original[block.id]),
            )
            lines.append(f"{block.name}: {now}  ({yours}: {was})")
    return lines


SORT_WORDS = {
    "at": "newest verdict first",
    "task": "by task",
    "verdict": "by verdict",
    "by": "by who did the task",
    "reviewer": "by reviewer",
}


def sorted_reviews(tasks: list[AssignedTask], column: str) -> list[AssignedTask]:
    """The rows as `s` sorts them: newest verdict first (the server's order), else a to z (then task)."""
    if column == "at":
        return sorted(
            tasks,
            key=lambda t: (
                t.review.reviewed_at
                if t.review and t.review.reviewed_at
                else datetime.min.replace(tzinfo=UTC)
            ),
            reverse=True,
        )

    def text(task: AssignedTask) -> str:
        review = task.review
        value = {
            "task": "",
            "verdict": review.state if review else "",
            "by": task.completed_by or "",
            "reviewer": (review.reviewer or "") if review else "",
        }[column]
        return value.casefold()

    return sorted(tasks, key=lambda t: (text(t), t.id))


def _own_summary(corrected: int, missed: int) -> str:
    """The worker's line above the list: what there is to learn from."""
    if not corrected and not missed:
        return "None of your tasks was corrected or sent back: nothing to learn from here yet."
    parts = []
    if corrected:
        parts.append(f"{corrected} of your tasks were corrected or sent back to be redone")
    if missed:
        parts.append(f"{missed} of your answers missed a known answer")
    return "; ".join(parts) + "."


def _in_order(rows: dict[str, AssignedTask], gold: dict[str, GoldAnswer], sort: str) -> list[str]:
    """The row keys in the order shown: by time, newest first, reviews and misses together; by
    another column the reviews as sorted, then the misses (newest first)."""
    misses = sorted(gold, key=lambda key: miss_time(gold[key]), reverse=True)
    if sort != "at":
        return [*rows, *misses]
    oldest = datetime.min.replace(tzinfo=UTC)

    def moment(key: str) -> datetime:
        if key in gold:
            return miss_time(gold[key])
        review = rows[key].review
        return review.reviewed_at if review is not None and review.reviewed_at else oldest

    return sorted([*rows, *misses], key=moment, reverse=True)


def _clipped(note: str, width: int = NOTE_WIDTH) -> str:
    line = note.replace("\n", " ")
    return line if len(line) <= width else line[: width - 1] + "…"


class FeedbackView(AppAccess, Vertical):
    DEFAULT_CSS = """
    FeedbackView { height: 1fr; }
    #feedback-note { height: auto; padding: 0 1; color: $text-muted; }
    #feedback-list { height: 1fr; }
    #feedback-detail { height: auto; max-height: 12; padding: 0 1; border-top: solid $primary; }
    """
    BINDINGS: ClassVar = [Binding("s", "sort", "Sort", id="feedback.sort")]

    def __init__(self, queue_id: int, *, own: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.own = own  # a worker's own work: corrections and redos only
        self.blocks: list[Block] = []
        self.tasks: dict[str, AssignedTask] = {}
        self.misses: dict[str, GoldAnswer] = {}  # B22: a worker's answers that missed a known answer
        self.order: list[str] = []  # the row keys as shown
        self.sort = "at"  # s: the column the rows are sorted by (the server's order: newest verdict)

    def compose(self) -> ComposeResult:
        yield Static("Loading…", id="feedback-note", markup=False)
        yield RowTable(id="feedback-list", cursor_type="row", zebra_stripes=True)
        yield Static("", id="feedback-detail", markup=False)

    def on_mount(self) -> None:
        self._add_columns()

    async def fetch(self) -> None:
        client = self.session.client
        try:
            if not self.blocks:
                self.blocks = (await client.queue(self.queue_id)).data
            page = await client.reviews(
                self.queue_id,
                verdict=WORKERS_FILTER if self.own else None,
                completed_by="me" if self.own else None,
                limit=SHOWN_AT_MOST,
            )
            misses = await self._read_misses()
        except errors.NoReview:
            self._say(NO_REVIEW)
            return
        except Exception as exc:
            self._say(f"Not updated: {exc}")
            return
        self._show(page.tasks, page.count, misses)

    async def _read_misses(self) -> list[GoldAnswer]:
        """A worker's own scored gold answers that missed, newest first; none on a server without B22."""
        client = self.session.client
        if not self.own or not await client.supports_gold():
            return []
        try:
            page = await client.gold_answers(self.queue_id, completed_by="me", limit=SHOWN_AT_MOST)
        except errors.QueueDeskError:
            return list(self.misses.values())  # the corrections still shown; the misses as last read
        return [answer for answer in page.answers if not answer.correct]

    def refresh_now(self) -> None:
        self.run_worker(self.fetch(), exclusive=True, group="feedback")

    def _say(self, text: str) -> None:
        self.query_one("#feedback-note", Static).update(text)

    def _show(self, tasks: list[AssignedTask], count: int, misses: list[GoldAnswer] | None = None) -> None:
        missed = list(self.misses.values()) if misses is None else misses
        if self.own:
            self._say(_own_summary(count, len(missed)))
        else:
            self._say(f"{count} reviewed task(s), {SORT_WORDS[self.sort]} (s sorts).")
        table = self.query_one("#feedback-list", DataTable)
        rows = {str(task.id): task for task in sorted_reviews(tasks, self.sort)}
        gold = {miss_key(answer): answer for answer in missed}
        order = _in_order(rows, gold, self.sort)
        chosen = None
        if table.row_count and table.cursor_row < table.row_count:
            chosen = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        if (
            order != self.order
            or list(rows) != list(self.tasks)
            or any(rows[k].review != self.tasks[k].review for k in rows)
            or gold != self.misses
        ):
            table.clear()
            now = self.clock.now()
            for key in order:
                cells = self._cells(rows[key], now) if key in rows else self._miss_cells(gold[key])
                table.add_row(*cells, key=key)
            if chosen in order:
                table.move_cursor(row=order.index(chosen))
        self.tasks, self.misses, self.order = rows, gold, order
        self._show_detail()

    def action_sort(self) -> None:
        """s: by time of the verdict, by verdict, by worker, by reviewer, by task, and round again."""
        sorts = [key for key, _ in COLUMNS if key != "note" and not (self.own and key == "by")]
        self.sort = next_sort(sorts, self.sort)
        shown_tasks = list(self.tasks.values())
        shown_misses = list(self.misses.values())
        self.query_one("#feedback-list", DataTable).clear(columns=True)
        self._add_columns()
        self.tasks, self.misses, self.order = {}, {}, []  # every row again, in the new order
        self._show(shown_tasks, len(shown_tasks), shown_misses)

    def _add_columns(self) -> None:
        """The columns, the one sorted by marked (▼ newest verdict first, ▲ a to z)."""
        table = self.query_one("#feedback-list", DataTable)
        for key, label in COLUMNS:
            if not (self.own and key == "by"):
                mark = (" ▼" if key == "at" else " ▲") if key == self.sort else ""
                table.add_column(label + mark, key=key)

    def _cells(self, task: AssignedTask, now: object) -> list[str]:
        review = task.review
        state = review.state if review is not None else "—"
        cells = [str(task.id), VERDICT_WORDS.get(state, state)]
        if not self.own:
            cells.append(task.completed_by or "—")
        note = (review.note or "") if review is not None else ""
        at = short_time(review.reviewed_at, self.clock) if review is not None else "—"
        cells += [(review.reviewer or "—") if review else "—", at, _clipped(note)]
        return cells

    def _miss_cells(self, answer: GoldAnswer) -> list[str]:
        """A miss's row: the task, `missed`, no reviewer but the known answer, when, what was expected."""
        cells = [str(answer.task_id), MISSED]
        if not self.own:
            cells.append(answer.worker)
        return [
            *cells,
            KNOWN,
            short_time(answer.answered_at, self.clock),
            _clipped(miss_summary(self.blocks, answer)),
        ]

    @on(DataTable.RowHighlighted, "#feedback-list")
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#feedback-detail", Static)
        table = self.query_one("#feedback-list", DataTable)
        if not table.row_count:
            detail.display = False
            return
        key = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        if key in self.misses:
            answer = self.misses[key]
            lines = [miss_heading(answer), *missed_lines(self.blocks, answer)]
            detail.update(shown("\n".join(lines)))
            detail.display = True
            return
        task = self.tasks.get(key)
        if task is None or task.review is None:
            detail.display = False
            return
        review = task.review
        yours = "yours" if self.own else "the worker's"
        lines = [f"Task {task.id}: {SAID.get(review.state, review.state)} by {review.reviewer or '—'}"]
        lines += changed_lines(self.blocks, task, yours)
        if review.redo_task_id is not None:
            lines.append(f"Sent back: to be done again as task {review.redo_task_id}.")
        lines.append(f"Note: {review.note}" if review.note else "No note.")
        detail.update(shown("\n".join(lines)))
        detail.display = True
