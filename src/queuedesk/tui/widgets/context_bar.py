"""The header line of every screen: where you are connected, as whom, how fresh the view is, and how
much finished work has not reached the server yet ("2 unsent", in the app name's place: first, so
it is never cut off)."""

from rich.text import Text
from textual.widgets import Static

from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppAccess

BASIC_API = "basic API: no claiming, pending list, stats or delivery log on this server"


class ContextBar(AppAccess, Static):
    def __init__(self, where: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.where = where
        self.freshness = ""
        self.stale = False

    def on_mount(self) -> None:
        self.qd.outbox_changed.subscribe(self, lambda _: self.render_bar(), immediate=True)
        self.render_bar()

    def _unsent(self) -> int:
        outbox = self.qd.outbox
        return outbox.unsent if outbox is not None else 0

    def on_resize(self) -> None:
        self.render_bar()

    def show(self, *, where: str | None = None, freshness: str | None = None, stale: bool = False) -> None:
        if where is not None:
            self.where = where
        if freshness is not None:
            self.freshness = freshness
        self.stale = stale
        self.render_bar()

    def render_bar(self) -> None:
        """The richest line that fits: the place and the freshness ("not answering") are never cut
        for the address, the role or the basic server's notice, which go first when space is short."""
        width = self.size.width or self.app.size.width
        shapes = [(True, "long"), (False, "long"), (False, "short"), (False, "")]
        if width < 110:  # narrow: never the address, the notice short at most
            shapes = shapes[2:]
        candidates = [self._line(address=a, notice=n) for a, n in shapes]
        fitting = [line for line in candidates if line.cell_len <= width]
        self.update(fitting[0] if fitting else candidates[-1])

    def _line(self, *, address: bool, notice: str) -> Text:
        session = self.qd.session
        text = Text(no_wrap=True, overflow="ellipsis")
        unsent = self._unsent()
        if unsent:
            # In the name's place: the one thing here that asks something of the user.
            text.append(f" {unsent} unsent ", style="bold reverse")
        else:
            text.append("QueueDesk", style="bold")
        if session is not None:
            text.append("  ")
            if address:
                text.append(f"{session.url}  ", style="dim")
            text.append(shown(session.organization), style="bold")
            if session.extensions:
                text.append(f"  {shown(session.who)}")
            elif notice:  # who is "basic API" there: said once, by the notice
                text.append(f"  {BASIC_API if notice == 'long' else 'basic API'}", style="bold yellow")
        if self.where:
            text.append(f"  / {shown(self.where)}", style="bold")
        if self.freshness:
            text.append("  ")
            text.append(self.freshness, style="bold red" if self.stale else "dim")
        return text
