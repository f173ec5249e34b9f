"""The Pending tab: tasks not yet completed, oldest first, with who holds each and whether their
lease has run out; admins give a held task back (B6 lets an admin release another's claim).

In a queue with consensus (B21) a task's status says how many answers it has of those it needs
("1/2 answers": one of the two it needs) or that it is disputed, and `c` shows only the tasks collecting answers, only the
disputed ones, or all."""

from datetime import datetime
from typing import ClassVar, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from queuedesk.api.client import ConsensusState, PendingSort
from queuedesk.api.models import AssignedTask, Block, ConsensusSettings
from queuedesk.tui.base import AppAccess, KeysInOrder
from queuedesk.tui.clock import duration, zone_name
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.present import minute, summary
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.paged_table import Page, PagedTable

VALUES_AT_MOST = 400  # characters of a row's values kept for the table to cut
LEASE_EXPIRED = "lease expired"


def pending_columns(zone: str) -> list[tuple[str, str, int]]:
    """The holder and the lease's state come before the values: they stay on screen at 80 columns."""
    return [
        ("id", "Task", 6),
        ("status", "Status", 13),
        ("holder", "Held by", 12),
        ("held", "For", 11),
        ("created", f"Created {zone}", 16),
        ("values", "Values", 0),
    ]


# s: each sort of B2 and the column its ▲/▼ marks (tasks nobody holds come last either way).
SORT_COLUMNS: dict[PendingSort, str] = {"id": "created", "status": "status", "holder": "holder"}


CONSENSUS_FILTERS: tuple[ConsensusState | None, ...] = (None, "collecting", "disputed")  # c, in turn
FILTER_SAID = {
    "collecting": "Only tasks collecting answers (c: disputed ones)",
    "disputed": "Only disputed tasks: they wait for a decision in review (c: every task)",
}


def lease_state(task: AssignedTask, now: datetime, settings: ConsensusSettings | None = None) -> str:
    """The status as a supervisor reads it: a claim whose lease ran out says so; in a queue with
    consensus (B21) an open task says how many answers it has of those it needs, or that it is disputed."""
    expires = task.assignment.lease_expires_at
    if task.status == "in_progress" and expires is not None and expires < now:
        return LEASE_EXPIRED
    consensus = task.consensus
    if consensus is not None and consensus.state == "disputed":
        return "disputed"
    if consensus is not None and task.status != "in_progress":
        return answers_of(len(consensus.answers), settings)
    return task.status


def answers_of(have: int, settings: ConsensusSettings | None) -> str:
    """ "1/2 answers": the answers a task has, of those it needs now (one more past a disagreement)."""
    if settings is None:
        return f"{have} answer{'' if have == 1 else 's'}"
    needed = settings.answers if have < settings.answers else min(have + 1, settings.max_answers)
    return f"{have}/{needed} answers"


class PendingView(AppAccess, Vertical):
    DEFAULT_CSS = """
    PendingView { height: 1fr; }
    #pending-searched { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "release", "Release", id="pending.release"),
        Binding("o", "order", "Newest first", show=False, id="pending.order"),
        Binding("s", "sort", "Sort", show=False, id="pending.sort"),
        Binding("c", "consensus", "Consensus", id="pending.consensus"),
        # Priority: the keys typed right after it go to the field it opens (`focus_key`).
        Binding("slash", "search", "Search values", show=False, id="pending.search", priority=True),
    ]

    def __init__(self, queue_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue_id = queue_id
        self.blocks: list[Block] = []
        self.newest_first = False  # o: the list read from its other end
        self.sort: PendingSort = "id"  # s: the column the list is sorted by
        self.search: str | None = None  # /: only tasks with this text in a value (any case)
        self.consensus: ConsensusSettings | None = None  # the queue's (B21), as its screen read it
        self.consensus_filter: ConsensusState | None = None  # c

    def compose(self) -> ComposeResult:
        yield Static("", id="pending-note")
        search = Input(
            placeholder="text in any value (enter searches; empty: every task)", id="pending-search"
        )
        search.display = False
        yield search
        searched = Static("", id="pending-searched", markup=False)
        searched.display = False
        yield searched
        yield PagedTable(pending_columns(zone_name(self.clock)), self._cells, _key, id="pending")

    @property
    def table(self) -> PagedTable:
        return self.query_one("#pending", PagedTable)

    def start(self) -> None:
        if self.session.extensions:
            self.query_one("#pending-note").display = False
            self.table.show_sort(SORT_COLUMNS[self.sort], ascending=not self.newest_first)
            self.table.reset(self._page)
        else:
            self.table.display = False
            self.query_one("#pending-note", Static).update(
                "This server offers only the basic Task Queue API: it cannot list tasks that are not completed. "
                "The count above is what it tells."
            )

    async def _page(self, offset: int, limit: int) -> Page:
        order: Literal["desc"] | None = "desc" if self.newest_first else None
        sort: PendingSort | None = None if self.sort == "id" else self.sort
        client = self.session.client
        page = await client.pending_tasks(
            self.queue_id,
            offset=offset,
            limit=limit,
            order=order,
            q=self.search,
            sort=sort,
            consensus=self.consensus_filter,
        )
        return Page(page.count, page.tasks)

    def show_consensus(self, settings: ConsensusSettings | None) -> None:
        """The queue's consensus as its screen last read it (with its blocks): rows say how many
        answers each task needs of it, and `c` comes and goes with it."""
        if settings == self.consensus:
            return
        had = self.consensus
        self.consensus = settings
        self.table.redraw()
        if (had is None) != (settings is None):
            self.screen.refresh_bindings()

    def _cells(self, task: AssignedTask) -> list[str | Text]:
        assignment = task.assignment
        now = self.clock.now()
        holder = assignment.assigned_to_name or assignment.assigned_to or "—"
        held = "—"
        if assignment.assigned_at is not None:
            held = duration((now - assignment.assigned_at).total_seconds())
        state = lease_state(task, now, self.consensus)
        styles = {"in_progress": "bold", LEASE_EXPIRED: "bold yellow", "disputed": "bold red"}
        status = Text(state, style=styles.get(state, ""))
        return [
            str(task.id),
            status,
            holder,
            held,
            minute(task.created_at, self.clock),
            summary(self.blocks, task, VALUES_AT_MOST),
        ]

    # --- release --------------------------------------------------------------------------------------

    def action_order(self) -> None:
        self.newest_first = not self.newest_first
        self.start()

    def action_consensus(self) -> None:
        """c: only the tasks collecting answers, only the disputed ones, every task, in turn."""
        at = CONSENSUS_FILTERS.index(self.consensus_filter)
        self.consensus_filter = CONSENSUS_FILTERS[(at + 1) % len(CONSENSUS_FILTERS)]
        self._say_filters()
        self.start()

    def _say_filters(self) -> None:
        said = [FILTER_SAID[self.consensus_filter]] if self.consensus_filter else []
        if self.search:
            said.append(f"Tasks with “{self.search}” in a value (/ searches again)")
        searched = self.query_one("#pending-searched", Static)
        searched.update(" · ".join(said))
        searched.display = bool(said)

    def action_sort(self) -> None:
        """s: by creation (task id), by status, by who holds the task, and round again."""
        self.sort = next_sort(list(SORT_COLUMNS), self.sort)
        self.newest_first = False
        self.start()

    def action_search(self) -> None:
        screen = self.screen
        if isinstance(screen, KeysInOrder):
            screen.open_field_by_key("slash")  # finds this view's `focus_key`
        else:
            self.focus_key("slash")

    def focus_key(self, key: str) -> bool:
        """`/`: the search field open with the focus in it at once, so the keys after it go there."""
        if key != "slash" or isinstance(self.screen.focused, Input) or not self.check_action("search", ()):
            return False
        field = self.query_one("#pending-search", Input)
        field.value = self.search or ""
        field.display = True
        self.screen.set_focus(field)
        return True

    async def refresh_live(self) -> int:
        """The screen's refresh: the rows in view read again; the count of tasks in progress."""
        page = await self.session.client.pending_tasks(self.queue_id, status=["in_progress"], limit=1)
        if self.table.items or self.table.total == 0:
            self.table.refresh_window()
        return page.count

    def point_at(self, task_id: int) -> bool:
        """The cursor on the task when the rows read hold it (True), with the focus."""
        table = self.table
        for row, item in enumerate(table.items):
            if item.id == task_id:
                table.go_to(table.start + row)
                self.screen.set_focus(table)
                return True
        return False

    def close_search(self) -> None:
        """escape in the search field: the search as it was, the field hidden."""
        self.screen.set_focus(self.table)  # at once, before hiding: a hidden focused field passes focus on
        self.query_one("#pending-search").display = False

    @on(Input.Submitted, "#pending-search")
    def _searched(self, event: Input.Submitted) -> None:
        event.stop()
        self.search = event.value.strip() or None
        self._say_filters()
        self.close_search()
        self.start()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "consensus":
            return self.consensus is not None or self.consensus_filter is not None
        if action in ("order", "search", "sort"):
            return self.qd.session is not None and self.qd.session.extensions
        if action == "release":
            session = self.qd.session
            return session is not None and session.is_admin and session.extensions
        return True

    def action_release(self) -> None:
        task = self.table.item_at_cursor()
        if not isinstance(task, AssignedTask):
            return
        if task.status != "in_progress" or task.assignment.assigned_to is None:
            self.notify(f"Task {task.id} is not held by anyone: there is no claim to release.", timeout=5)
            return
        holder = task.assignment.assigned_to_name or task.assignment.assigned_to
        state = "Their lease has expired. " if lease_state(task, self.clock.now()) == LEASE_EXPIRED else ""

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._release(task, holder)

        self.app.push_screen(
            ConfirmScreen(
                f"Release task {task.id}, held by {holder}?",
                f"{state}The task becomes open for anyone to claim. What {holder} typed and did not "
                "submit is lost to the task (their own draft stays theirs). The audit log records it.",
                "Release",
            ),
            confirmed,
        )

    @work(group="pending-release")
    async def _release(self, task: AssignedTask, holder: str) -> None:
        try:
            await self.session.client.release(self.queue_id, task.id)
        except Exception as exc:
            self.qd.report(exc, doing=f"Releasing task {task.id}")
        else:
            self.notify(f"Task {task.id} released: {holder} no longer holds it; it is open.", timeout=5)
        self.table.refresh_window()


def _key(task: AssignedTask) -> str:
    return str(task.id)
