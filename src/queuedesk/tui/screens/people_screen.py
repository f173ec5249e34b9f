"""People (admins): the organization's users and their keys, and the audit log where the server keeps
one (B20); opened with `u` from Queues."""

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import TabbedContent, TabPane

from queuedesk.api import errors
from queuedesk.tui.base import AppScreen
from queuedesk.tui.panes.users_and_keys import PeopleView
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.context_bar import ContextBar


class PeopleScreen(AppScreen):
    DEFAULT_CSS = """
    #people-tabs { height: 1fr; }
    #people-tabs TabPane { height: 1fr; padding: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="people.back"),
        Binding("1", "tab('tab-people')", "People", show=False, id="people.tab_people"),
        Binding("2", "tab('tab-audit')", "Audit", show=False, id="people.tab_audit"),
    ]

    def compose(self) -> ComposeResult:
        yield ContextBar("People", id="context")
        with TabbedContent(id="people-tabs"), TabPane("People", id="tab-people"):
            yield PeopleView(id="people")
        yield AppFooter()

    def allowed_for_role(self) -> bool:
        """Admins and supervisors (read only); a role changed to worker closes it."""
        return self.session.can_watch and self.session.extensions

    def on_mount(self) -> None:
        if self.session.manages_people:
            self._offer_audit()

    @work(exclusive=True, group="audit-offer")
    async def _offer_audit(self) -> None:
        """The Audit tab only where the server keeps the log (a QueueDesk before B20 answers 404)."""
        try:
            await self.session.client.audit(limit=1)
        except (errors.NotFound, errors.NotSupported, errors.Forbidden):
            return
        except Exception as exc:
            self.qd.report(exc, doing="Reading the audit log")
            return
        from queuedesk.tui.panes.audit_view import AuditView

        if not self.query("#tab-audit"):
            await self.query_one(TabbedContent).add_pane(
                TabPane("Audit", AuditView(id="audit"), id="tab-audit")
            )

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        table = {"tab-people": "#people-users", "tab-audit": "#audit-log"}.get(event.pane.id or "")
        if table is not None and self.query(table):
            self.query_one(table).focus()
        self.refresh_bindings()

    def action_tab(self, pane: str) -> None:
        if self.query(f"#{pane}"):
            self.query_one(TabbedContent).active = pane

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tab" and parameters and parameters[0] == "tab-audit":
            return bool(self.query("#tab-audit"))
        return True

    def action_back(self) -> None:
        self.app.pop_screen()
