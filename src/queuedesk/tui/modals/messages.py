"""The palette's "Messages": every notification of this session, newest first, with its time."""

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.said import Said
from queuedesk.tui.widgets.app_footer import AppFooter

STYLE = {"information": "", "warning": "yellow", "error": "bold red"}


class MessagesScreen(AppModal[None]):
    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="messages.close"),
    ]

    def __init__(self, said: list[Said]) -> None:
        super().__init__()
        self.said = said

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="messages-box"):
            yield Static(self._table(), id="messages-table")
        yield AppFooter()

    def _table(self) -> Table:
        table = Table(title="Messages — newest first", box=None, expand=True, title_style="bold")
        table.add_column("Time", style="dim", no_wrap=True)
        table.add_column("Message")
        for said in self.said:
            # Text, never markup: messages carry names, values and servers' words.
            line = Text(said.title, style=f"bold {STYLE[said.severity]}".strip())
            line.append(f"  {said.message}" if said.title else said.message)
            table.add_row(said.at.astimezone().strftime("%H:%M:%S"), line)
        if not self.said:
            table.add_row("", Text("Nothing said yet this session.", style="dim"))
        return table
