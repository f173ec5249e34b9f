"""The Stats tab: completions per bucket over a chosen period, the queue now, and each worker's pace;
in a queue with consensus (B21), each worker's answers and agreement rate (answers that held every
final value of a settled or decided task), and the tasks disputed now; in a queue whose workers
answered gold tasks (B22), each worker's gold accuracy (correct of answered) and the queue's.

The queue screen's live refresh calls `fetch` while the tab is shown; `+` and `-` change the period
and fetch at once. Times are shown relative to the app's clock ("8 h ago", "3 min ago").

A refresh puts in only what changed: each cell put into the worker table (even the same text) made
the table's cached renders stale, so at every refresh it rendered its cells anew and kept the old
renders until its caches were full (10,000 cells: most of the +6.8 MB in the first minutes of the
memory bench, bench/README.md); and each update of a text lays the screen out and paints it again.
"""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from queuedesk.api import errors
from queuedesk.api.models import QueueStats, WorkerStats
from queuedesk.tui.base import AppAccess
from queuedesk.tui.clock import duration, seconds_ago
from queuedesk.tui.views.periods import DEFAULT_PERIOD, PERIODS, Period
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.completions_chart import CompletionsChart, update_if_changed
from queuedesk.tui.widgets.row_table import RowTable

WORKER_COLUMNS = [
    ("name", "Worker"),
    ("email", "Email"),
    ("completed", "Completed"),
    ("median", "Median per task"),
    ("last", "Last completed"),
]
# With review (B19): each worker's share accepted and verdicts over the period, after their count
# (so that the accept rate is in sight at 80 columns).
REVIEW_COLUMNS = [
    ("rate", "Accepted"),
    ("reviewed", "Reviewed"),
    ("verdicts", "Acc · Cor · Redo"),
]
# With consensus (B21): each worker's answers and their share that agreed with the outcome.
CONSENSUS_COLUMNS = [
    ("answers", "Answers"),
    ("agreement", "Agreed"),
]
# With gold tasks (B22): each worker's gold tasks answered correctly of those answered, and that share.
GOLD_COLUMNS = [
    ("gold_answered", "Gold right"),
    ("gold", "Gold acc."),
]
BASIC_SERVER = (
    "This server offers only the basic Task Queue API, which has no stats. A QueueDesk server shows "
    "completions over time and each worker's pace here."
)
NO_ENDPOINT = (
    "No stats: the server answered 404 (not found) to the stats request. Either it is a QueueDesk "
    "from before queue stats (upgrade it to see them here) or this queue is gone. r asks again."
)


class StatsView(AppAccess, Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus,equals_sign", "longer", "Longer", id="stats.longer"),
        Binding("minus", "shorter", "Shorter", id="stats.shorter"),
        Binding("s", "sort", "Sort", id="stats.sort"),
    ]

    def __init__(self, queue_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.period_index = DEFAULT_PERIOD
        self.stats: QueueStats | None = None
        self.shown_at: datetime | None = None
        self.unavailable: str | None = None  # why the server cannot give stats
        self._reported: str | None = None  # the last failure told, so a refresh does not repeat it
        self._widths: dict[str, int] | None = None  # the worker table's column widths, set by `_show_workers`
        self._cells: dict[str, list[str | Text]] = {}  # what the worker table shows, by row (the email)
        self.sort = "completed"  # s: the column the workers are sorted by (WORKER_SORTS)

    @property
    def period(self) -> Period:
        return PERIODS[self.period_index]

    def compose(self) -> ComposeResult:
        yield Static("", id="stats-period")
        yield Static("Loading…", id="stats-summary")
        yield CompletionsChart(id="stats-chart")
        yield RowTable(id="stats-workers", cursor_type="row", zebra_stripes=True)
        yield Static("", id="stats-note")

    def on_mount(self) -> None:
        self._add_columns(WORKER_COLUMNS)
        self._show_period()

    @property
    def columns(self) -> list[tuple[str, str]]:
        stats = self.stats
        reviewing = stats is not None and stats.reviews_pending is not None
        agreeing = [*CONSENSUS_COLUMNS] if stats is not None and has_consensus(stats) else []
        gold = [*GOLD_COLUMNS] if stats is not None and has_gold(stats) else []
        return [
            *WORKER_COLUMNS[:3],
            *agreeing,
            *gold,
            *(REVIEW_COLUMNS if reviewing else []),
            *WORKER_COLUMNS[3:],
        ]

    def _add_columns(self, columns: list[tuple[str, str]], widths: dict[str, int] | None = None) -> None:
        table = self.query_one("#stats-workers", DataTable)
        table.clear(columns=True)
        for key, label in columns:
            table.add_column(label, key=key, width=None if widths is None else widths[key])
        self._widths = widths

    # --- data --------------------------------------------------------------------------------------

    async def fetch(self) -> None:
        """Read the stats for the current period; failures are said here, never raised."""
        period, now = self.period, self.clock.now()
        try:
            stats = await self.session.client.stats(
                self.queue_id, since=period.since(now), bucket_minutes=period.bucket_minutes
            )
        except errors.NotSupported:
            self._unavailable(BASIC_SERVER)
            return
        except errors.NotFound:
            self._unavailable(NO_ENDPOINT)
            return
        except Exception as exc:
            self._failed(exc)
            return
        if period != self.period:
            return  # the period changed while this was on its way: its own fetch follows
        self.unavailable = None
        self._reported = None
        self.stats, self.shown_at = stats, now
        self._show()

    def refresh_now(self) -> None:
        self.run_worker(self.fetch(), exclusive=True, group="stats")

    def _unavailable(self, why: str) -> None:
        self.unavailable = why
        self.stats = None
        self._show()

    def _failed(self, exc: Exception) -> None:
        message = str(exc)
        summary = self.query_one("#stats-summary", Static)
        update_if_changed(summary, Text(f"Stats not updated: {message}"))
        summary.add_class("problem")
        if message != self._reported:
            self._reported = message
            self.qd.report(exc, doing="Reading stats")

    # --- rendering --------------------------------------------------------------------------------

    def _show_period(self) -> None:
        text = Text("Period ")
        for index, period in enumerate(PERIODS):
            style = "reverse" if index == self.period_index else ""
            text.append(f" {period.label} ", style=style)
            text.append(" ")
        text.append(f"  in {self.period.bucket_label} buckets · + / - change it", style="dim")
        update_if_changed(self.query_one("#stats-period", Static), text)

    def _show(self) -> None:
        parts_shown = self.unavailable is None
        for selector in ("#stats-period", "#stats-chart", "#stats-workers"):
            self.query_one(selector).display = parts_shown
        summary = self.query_one("#stats-summary", Static)
        summary.remove_class("problem")
        note = self.query_one("#stats-note", Static)
        if self.unavailable is not None:
            update_if_changed(summary, self.unavailable)
            note.display = False
            return
        stats, period, now = self.stats, self.period, self.shown_at
        if stats is None or now is None:
            return
        self._show_period()
        # The server counts up to its own now: buckets past the period's end (its clock ahead of
        # this one) are not this period's.
        counts = stats.completed[: period.buckets]
        update_if_changed(summary, _summary(stats, counts, period))
        self.query_one(CompletionsChart).show(counts, (f"{period.label} ago", period.half_label, "now"))
        self._show_workers(stats.by_worker, now)
        note.display = not stats.by_worker
        update_if_changed(note, f"Nobody completed a task in the last {period.label}.")

    def _show_workers(self, workers: list[WorkerStats], now: datetime) -> None:
        table = self.query_one("#stats-workers", DataTable)
        # With review (B19), its columns come in: a change of widths. The sorted column is marked.
        columns = [
            (key, f"{label} {WORKER_SORTS[key][1]}" if key == self.sort else label)
            for key, label in self.columns
        ]
        ordered = sorted(workers, key=WORKER_SORTS.get(self.sort, WORKER_SORTS["completed"])[0])
        rows = {w.email: [_cells(w, now)[key] for key, _label in columns] for w in ordered}
        current = [str(key.value) for key in table.rows]
        chosen = current[table.cursor_row] if current and table.cursor_row < len(current) else None
        # Each column as wide as its widest cell, set here: left to the table, a width was measured
        # at its next idle moment, and from run to run the Email column was seen as wide as its
        # label or as its addresses.
        widths = {
            key: max([cell_len(label), *(cell_len(str(cells[n])) for cells in rows.values())])
            for n, (key, label) in enumerate(columns)
        }
        if widths != self._widths:
            self._add_columns(columns, widths)
            current = []
        if current == list(rows):
            # In place, so the cursor stays where it is; and only the cells that changed: the table
            # keys its cached renders by a count of its updates, so any cell put in (even the same
            # text) made every render cached so far one it never uses again.
            changed = False
            for email, cells in rows.items():
                shown = self._cells.get(email, [])
                for n, ((column, _label), value) in enumerate(zip(columns, cells, strict=True)):
                    if n >= len(shown) or shown[n] != value:
                        table.update_cell(email, column, value)
                        changed = True
            self._cells = rows
            if changed:
                table._clear_caches()  # those stale renders, kept until evicted (Textual pinned < 8.3)
            return
        table.clear()
        for email, cells in rows.items():
            table.add_row(*cells, key=email)
        self._cells = rows
        if chosen in rows:
            table.move_cursor(row=list(rows).index(chosen))

    # --- actions ----------------------------------------------------------------------------------

    def action_sort(self) -> None:
        """s: the workers by the next column that sorts (most completed first, names a to z, the
        quickest median first, the latest first, the best accept rate first)."""
        keys = [key for key, _ in self.columns if key in WORKER_SORTS]
        self.sort = next_sort(keys, self.sort)
        if self.stats is not None and self.shown_at is not None:
            self._show_workers(self.stats.by_worker, self.shown_at)

    def action_longer(self) -> None:
        self._choose(min(len(PERIODS) - 1, self.period_index + 1))

    def action_shorter(self) -> None:
        self._choose(max(0, self.period_index - 1))

    def _choose(self, index: int) -> None:
        if index == self.period_index:
            return
        self.period_index = index
        self._show_period()
        self.query_one("#stats-summary", Static).update(f"Loading the last {self.period.label}…")
        self.refresh_now()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("longer", "shorter"):
            return self.unavailable is None
        return True


def _summary(stats: QueueStats, counts: list[int], period: Period) -> Text:
    text = Text()
    text.append(f"{sum(counts):,}", style="bold")
    text.append(f" completed in {period.label}")
    if counts:
        text.append(f", at most {max(counts):,} per {period.bucket_label}")
    text.append(" · now ")
    # As the queue's counts above it: pending includes the tasks being worked on.
    text.append(f"{stats.pending + stats.in_progress:,}", style="bold")
    text.append(f" pending ({stats.in_progress:,} in progress)")
    if has_consensus(stats):
        text.append(" · ")
        text.append(f"{stats.disputed or 0:,}", style="bold red" if stats.disputed else "bold")
        text.append(" disputed")
    if has_gold(stats):
        answered = sum(w.gold_answered for w in stats.by_worker)
        correct = sum(w.gold_correct for w in stats.by_worker)
        text.append(" · gold ")
        text.append(f"{correct / answered:.0%}", style="bold")
        text.append(f" correct of {answered:,}")
    if stats.reviews_pending is not None:
        text.append(" · ")
        text.append(f"{stats.reviews_pending:,}", style="bold")
        text.append(" to review")
        reviewed = sum(w.reviewed for w in stats.by_worker)
        if reviewed:
            accepted = sum(w.accepted for w in stats.by_worker)
            text.append(f" · {accepted / reviewed:.0%} of {reviewed:,} reviewed accepted")
    return text


def has_consensus(stats: QueueStats) -> bool:
    """The queue collects several answers per task (B21): tasks are disputed, or workers answered."""
    return stats.disputed is not None and (stats.disputed > 0 or any(w.answers for w in stats.by_worker))


def has_gold(stats: QueueStats) -> bool:
    """Workers answered gold tasks in the period (B22; a server without gold tasks says 0)."""
    return any(w.gold_answered for w in stats.by_worker)


def _name(worker: WorkerStats) -> str:
    return (worker.name or worker.email).casefold()


_LONG_AGO = datetime.min.replace(tzinfo=UTC)
# s: each sortable column's order (ties by name) and its header mark.
WORKER_SORTS: dict[str, tuple[Callable[[WorkerStats], Any], str]] = {
    "completed": (lambda w: (-w.completed, _name(w)), "▼"),
    "name": (lambda w: (_name(w), w.email), "▲"),
    "median": (lambda w: (w.median_seconds is None, w.median_seconds or 0, _name(w)), "▲"),
    "last": (lambda w: (-(w.last_completed_at or _LONG_AGO).timestamp(), _name(w)), "▼"),
    "rate": (lambda w: (-(w.accepted / w.reviewed) if w.reviewed else 1, _name(w)), "▼"),
    "agreement": (lambda w: (-(w.agreed / w.answers) if w.answers else 1, _name(w)), "▼"),
    "gold": (lambda w: (-(w.gold_correct / w.gold_answered) if w.gold_answered else 1, _name(w)), "▼"),
}


def _cells(worker: WorkerStats, now: datetime) -> dict[str, str | Text]:
    """Every column's cell, by column key (the review ones shown only from a server with review)."""
    median = "—" if worker.median_seconds is None else duration(worker.median_seconds)
    last = "—" if worker.last_completed_at is None else seconds_ago(worker.last_completed_at, now)
    reviewed = worker.reviewed
    return {
        "name": worker.name or worker.email,
        "email": worker.email,
        "completed": f"{worker.completed:,}",
        "median": median,
        "last": last,
        "rate": f"{worker.accepted / reviewed:.0%}" if reviewed else "—",
        "answers": f"{worker.answers:,}" if worker.answers else "—",
        "agreement": f"{worker.agreed / worker.answers:.0%}" if worker.answers else "—",
        "gold_answered": f"{worker.gold_correct:,}/{worker.gold_answered:,}" if worker.gold_answered else "—",
        "gold": f"{worker.gold_correct / worker.gold_answered:.0%}" if worker.gold_answered else "—",
        "reviewed": f"{reviewed:,}" if reviewed else "—",
        "verdicts": f"{worker.accepted} · {worker.corrected} · {worker.redone}" if reviewed else "—",
    }
