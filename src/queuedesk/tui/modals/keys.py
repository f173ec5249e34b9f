"""`?` / `f1`: every key of the screen underneath, including the ones the footer has no room for."""

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.widgets.app_footer import AppFooter

EVERYWHERE = [
    ("↑ ↓ pgup pgdn home end", "Move the cursor in a list"),
    ("enter", "Open the row under the cursor"),
    ("ctrl+p", "Command palette: open a queue, run any action; Messages: what was said"),
    ("escape", "Back, or out of a text field"),
    ("tab / shift+tab", "Next / previous field"),
    ("ctrl+q", "Quit"),
]


WIDE = 100  # columns from which the binding ids fit beside the descriptions
REMAP_HINT = 'Remap a key in the config file (queuedesk config path): [app] keys = { "<id>" = "f5" }'


class KeysScreen(AppModal[None]):
    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1", "dismiss", "Close", id="keys.close"),
    ]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="keys-box"):
            yield Static(self._table(), id="keys-table")
        yield AppFooter()

    def _table(self) -> Table:
        name = getattr(self.under, "title", None) or type(self.under).__name__.removesuffix("Screen")
        wide = self.app.size.width >= WIDE
        table = Table(title=f"Keys — {name}", box=None, expand=True, title_style="bold")
        table.add_column("Key", style="bold", no_wrap=True)
        table.add_column("What it does")
        if wide:
            table.add_column("Id (to remap it)", style="dim", no_wrap=True)
            table.caption = Text(REMAP_HINT, style="dim italic")  # not markup: [app] is text
        # One row per description: "Skip" is `s` in the footer and `f6` hidden beside it. Hidden
        # bindings are listed when they are the app's own (they have an id); the cursor keys of
        # lists (no id, or a paged table's `table.*`) are summed up in EVERYWHERE.
        rows: dict[str, list[str]] = {}
        ids: dict[str, list[str]] = {}
        for active in self.under.active_bindings.values():
            binding = active.binding
            if not binding.description or not active.enabled:
                continue
            if not binding.show and (binding.id is None or binding.id.startswith("table.")):
                continue
            shown = self.app.get_key_display(binding)
            keys = rows.setdefault(binding.description, [])
            if shown not in keys:
                keys.append(shown)
            named = ids.setdefault(binding.description, [])
            if binding.id and binding.id not in named:
                named.append(binding.id)
        for description, keys in rows.items():
            table.add_row(" / ".join(keys), description, *([", ".join(ids[description])] if wide else []))
        field_keys = getattr(self.under, "field_keys", None)
        for keys_of_field, block_name in field_keys() if callable(field_keys) else []:
            table.add_row(keys_of_field, f"In the field {block_name}", *([""] if wide else []))
        for key, text in EVERYWHERE:
            if text not in rows:
                table.add_row(key, text)
        return table
