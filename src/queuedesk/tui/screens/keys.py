"""`?` / `f1`: every key of the screen underneath, including the ones the footer has no room for."""

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from queuedesk.tui.screens.base import AppModal

EVERYWHERE = [
    ("↑ ↓ pgup pgdn home end", "Move the cursor in a list"),
    ("ctrl+p", "Command palette: open a queue, run any action"),
    ("escape", "Back, or out of a text field"),
    ("tab / shift+tab", "Next / previous field"),
    ("ctrl+q", "Quit"),
]


class KeysScreen(AppModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1", "dismiss", "Close", id="keys.close"),
    ]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="keys-box"):
            yield Static(self._table(), id="keys-table")
        yield Footer()

    def _table(self) -> Table:
        name = getattr(self.under, "title", None) or type(self.under).__name__.removesuffix("Screen")
        table = Table(title=f"Keys — {name}", box=None, expand=True, title_style="bold")
        table.add_column("Key", style="bold", no_wrap=True)
        table.add_column("What it does")
        seen: set[str] = set()
        for key, active in self.under.active_bindings.items():
            binding = active.binding
            if not binding.show or not binding.description or not active.enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            shown = self.app.get_key_display(binding)
            others = [
                k
                for k, a in self.under.active_bindings.items()
                if a.binding.action == binding.action and k != key
            ]
            if others:
                shown += " / " + " / ".join(others)
            table.add_row(shown, binding.description)
        for key, text in EVERYWHERE:
            table.add_row(key, text)
        return table
