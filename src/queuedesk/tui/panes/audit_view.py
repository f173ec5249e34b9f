"""The Audit tab (admins, on a server with the audit log, B20): who did what, newest first, paged as
the history is; filtered by action, actor, queue and first day (enter in a filter applies them all)."""

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static

from queuedesk.api.client import AuditSort
from queuedesk.api.models import AUDIT_ACTIONS, AuditEvent
from queuedesk.tui.base import AppAccess, KeysInOrder
from queuedesk.tui.clock import day_start, filter_day, typed_day, zone_name
from queuedesk.tui.present import short_time
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.paged_table import Page, PagedTable

# s: each sort of B20 and the column its ▲/▼ marks.
AUDIT_SORT_COLUMNS: dict[AuditSort, str] = {"id": "at", "action": "action", "actor": "actor"}
AUDIT_SORT_NOTES: dict[AuditSort, tuple[str, str]] = {
    "id": (", newest first", ", oldest first"),
    "action": (", by action, z to a", ", by action, a to z"),
    "actor": (", by who, z to a", ", by who, a to z"),
}


def audit_columns(zone: str) -> list[tuple[str, str, int]]:
    return [
        ("at", f"When {zone}", 11),
        ("actor", "Who", 16),
        ("action", "Action", 15),
        ("queue", "Queue", 10),
        ("what", "What", 0),
    ]


HOST = "(host command)"


def words(values: dict[str, Any]) -> str:
    """`key=value` pairs; a change as `from→to`; nested objects one level deep."""
    parts = []
    for key, value in values.items():
        if isinstance(value, dict) and set(value) == {"from", "to"}:
            parts.append(f"{key} {value['from']}→{value['to']}")
        elif isinstance(value, dict):
            parts.append(f"{key} " + ", ".join(f"{k}: {v}" for k, v in value.items()))
        elif isinstance(value, list):
            parts.append(f"{key} " + ", ".join(str(v) for v in value))
        elif value is not None:
            parts.append(f"{key} {value}")
    return " · ".join(parts)


class AuditView(AppAccess, Vertical):
    DEFAULT_CSS = """
    AuditView { height: 1fr; }
    #audit-filters { height: 3; }
    #audit-filters Input { width: 1fr; }
    #audit-note { height: 1; padding: 0 1; color: $text-muted; }
    #audit-log { height: 1fr; }
    #audit-detail { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the keys typed right after it go to the field it opens (`focus_key`).
        Binding("f", "filter", "Filter", id="audit.filter", priority=True),
        Binding("r", "reload", "Reload", id="audit.reload"),
        Binding("s", "sort", "Sort", show=False, id="audit.sort"),
        Binding("o", "order", "Oldest first", show=False, id="audit.order"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.filters: dict[str, Any] = {}
        self.sort: AuditSort = "id"  # s: the column the log is sorted by
        self.ascending = False  # o: the log read from its other end

    def compose(self) -> ComposeResult:
        with Horizontal(id="audit-filters"):
            yield Input(placeholder="action (queue.flush…)", id="audit-action", classes="audit-filter")
            yield Input(placeholder="who (email)", id="audit-actor", classes="audit-filter")
            yield Input(placeholder="queue (name or id)", id="audit-queue", classes="audit-filter")
            yield Input(placeholder="since YYYY-MM-DD", id="audit-since", classes="audit-filter")
        yield Static("", id="audit-note", markup=False)
        yield PagedTable(audit_columns(zone_name(self.clock)), self._cells, _key, id="audit-log")
        yield Static("", id="audit-detail", classes="row-detail", markup=False)

    def on_mount(self) -> None:
        self.action_reload()

    @property
    def log_table(self) -> PagedTable:
        return self.query_one("#audit-log", PagedTable)

    async def _page(self, offset: int, limit: int) -> Page:
        page = await self.session.client.audit(
            offset=offset,
            limit=limit,
            order="asc" if self.ascending else None,
            sort=None if self.sort == "id" else self.sort,
            **self.filters,
        )
        return Page(page.count, page.events)

    def _queue_name(self, queue_id: int | None) -> str:
        if queue_id is None:
            return "—"
        known = {queue.id: queue.name for queue in self.qd.known_queues}
        return known.get(queue_id, f"#{queue_id}")

    def _cells(self, event: AuditEvent) -> list[str | Text]:
        actor = HOST if event.actor is None else event.actor.email
        # Ids a person does not look for (the email and the prefix say whom and which key).
        subject = {k: v for k, v in event.subject.items() if k not in ("queue_id", "user_id", "key_id")}
        what = " · ".join(part for part in (words(event.detail), words(subject)) if part)
        return [
            short_time(event.at, self.clock),
            actor,
            Text(event.action, style="bold"),
            self._queue_name(event.queue_id),
            what,
        ]

    def _show_note(self) -> None:
        table = self.log_table
        parts = [
            f"{name} {value if name != 'queue_id' else self._queue_name(value)}"
            for name, value in self.filters.items()
            if name != "since"
        ]
        if "since" in self.filters:
            parts.append(f"since {filter_day(self.filters['since'])}, {zone_name(self.clock)} day")
        text = f"{table.total:,} event" + ("" if table.total == 1 else "s")
        text += f" ({', '.join(parts)})" if parts else ""
        text += AUDIT_SORT_NOTES[self.sort][self.ascending]
        if table.items:
            text += f" · rows {table.start + 1:,} to {table.end:,}"
        text += " · f filters · s sorts · o reverses · r reloads"
        self.query_one("#audit-note", Static).update(text)

    @on(PagedTable.Loaded)
    def _loaded(self, event: PagedTable.Loaded) -> None:
        event.stop()
        self._show_note()

    @on(PagedTable.CursorMoved)
    def _cursor_moved(self, event: PagedTable.CursorMoved) -> None:
        """Who and what in full: the columns cut them at 80 columns."""
        event.stop()
        detail = Text("")
        if isinstance(event.item, AuditEvent):
            cells = self._cells(event.item)
            detail = Text(f"{cells[0]} {cells[1]}: ")
            detail.append(event.item.action, style="bold")
            detail.append(f" · queue {cells[3]}" if event.item.queue_id is not None else "")
            detail.append(f" · {cells[4]}" if cells[4] else "")
        self.query_one("#audit-detail", Static).update(detail)

    @on(PagedTable.Failed)
    def _failed(self, event: PagedTable.Failed) -> None:
        event.stop()
        self.qd.report(event.error, doing="Reading the audit log")

    # --- filters -------------------------------------------------------------------------------

    def action_filter(self) -> None:
        screen = self.screen
        if isinstance(screen, KeysInOrder):
            screen.open_field_by_key("f")  # finds this view's `focus_key`
        else:
            self.focus_key("f")

    def focus_key(self, key: str) -> bool:
        """`f`: the focus in the first filter at once, so the keys typed after it go there."""
        if key != "f" or isinstance(self.screen.focused, Input):
            return False
        self.screen.set_focus(self.query_one("#audit-action", Input))
        return True

    def action_reload(self) -> None:
        self.log_table.show_sort(AUDIT_SORT_COLUMNS[self.sort], ascending=self.ascending)
        self.log_table.reset(self._page)

    def action_sort(self) -> None:
        """s: by time, by action, by who, and round again (actions and people a to z)."""
        self.sort = next_sort(list(AUDIT_SORT_COLUMNS), self.sort)
        self.ascending = self.sort != "id"
        self.action_reload()

    def action_order(self) -> None:
        self.ascending = not self.ascending
        self.action_reload()

    @on(Input.Submitted, ".audit-filter")
    def _apply(self) -> None:
        action = self.query_one("#audit-action", Input).value.strip().lower()
        actor = self.query_one("#audit-actor", Input).value.strip()
        queue = self.query_one("#audit-queue", Input).value.strip()
        since, since_ok = typed_day(self.query_one("#audit-since", Input).value.strip())
        if not since_ok:
            self._refuse("#audit-since", "not a date: YYYY-MM-DD")
            return
        if action and action not in AUDIT_ACTIONS:
            self._refuse("#audit-action", "one of " + ", ".join(AUDIT_ACTIONS))
            return
        queue_id: int | None = None
        if queue:
            queue_id = self._find_queue(queue)
            if queue_id is None:
                self._refuse("#audit-queue", "no queue has this name or id")
                return
        self.filters = {
            name: value
            for name, value in (
                ("action", action),
                ("actor", actor),
                ("queue_id", queue_id),
                ("since", day_start(self.clock, since) if since else None),
            )
            if value not in ("", None)
        }
        self.log_table.focus()
        self.log_table.reset(self._page)

    def _find_queue(self, typed: str) -> int | None:
        queues = self.qd.known_queues
        if typed.isdigit():
            return int(typed)
        named = [queue.id for queue in queues if queue.name.casefold() == typed.casefold()]
        return named[0] if len(named) == 1 else None

    def _refuse(self, selector: str, word: str) -> None:
        field = self.query_one(selector, Input)
        field.add_class("-invalid")
        field.border_title = word
        self.notify(f"{field.placeholder}: {word}.", title="Filter not applied", severity="warning")
        field.focus()

    @on(Input.Changed, ".audit-filter")
    def _edited(self, event: Input.Changed) -> None:
        event.input.remove_class("-invalid")
        event.input.border_title = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("filter", "reload"):
            return not isinstance(self.screen.focused, Input)
        return True


def _key(event: AuditEvent) -> str:
    return str(event.id)
