"""People (admins only): the organization's users and their keys; opened with `u` from Queues."""

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer

from queuedesk.tui.base import AppScreen
from queuedesk.tui.panes.users_and_keys import PeopleView
from queuedesk.tui.widgets.context_bar import ContextBar


class PeopleScreen(AppScreen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back", id="people.back")]

    def compose(self) -> ComposeResult:
        yield ContextBar("People", id="context")
        yield PeopleView(id="people")
        yield Footer()

    def action_back(self) -> None:
        self.app.pop_screen()
