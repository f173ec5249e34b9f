"""Submissions the server refused for good: each with its task, its queue, why, and the values
entered, so the worker can copy them (to redo the task) and dismiss them once dealt with.

They stay in the journal (`tui/work/journal.py`, state `failed`) until dismissed here."""

import asyncio
import json
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.work.journal import Entry, Journal


def values_text(entry: Entry) -> str:
    """The values entered, one `block: value` a line (empty ones left out)."""
    lines = [f"{block}: {json.dumps(value, ensure_ascii=False)}" for block, value in entry.data.items()]
    return "\n".join(line for line in lines if not line.endswith(": null")) or "(nothing entered)"


def summary(entry: Entry) -> str:
    return f"Task {entry.task_id} · {entry.queue_name} · {(entry.error or 'refused').rstrip('.')}"


class RefusedScreen(AppModal[None]):
    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy values", id="refused.copy"),
        Binding("d,delete", "dismiss_entry", "Dismiss", id="refused.dismiss"),
        Binding("escape", "close", "Close", id="refused.close"),
    ]

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self.journal = journal

    @property
    def entries(self) -> list[Entry]:
        return self.journal.in_state("failed")

    def compose(self) -> ComposeResult:
        with Vertical(id="refused-box"):
            yield Label("Refused submissions", id="refused-title")
            yield Static(
                "The server refused these for good: they are not sent again. Copy the values to redo "
                "the task, then dismiss them.",
                id="refused-intro",
                markup=False,
            )
            yield OptionList(id="refused-list")
            yield Static("", id="refused-values", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self._fill()

    def _fill(self, at: int = 0) -> None:
        listed = self.query_one(OptionList)
        listed.clear_options()
        entries = self.entries
        listed.add_options(Option(Text(shown(summary(e))), id=e.id) for e in entries)
        if entries:
            listed.highlighted = min(at, len(entries) - 1)
        self._show_values()
        listed.focus()

    def on_option_list_option_highlighted(self) -> None:
        self._show_values()

    def _selected(self) -> Entry | None:
        listed = self.query_one(OptionList)
        if listed.highlighted is None:
            return None
        option = listed.get_option_at_index(listed.highlighted)
        return self.journal.entries.get(option.id or "")

    def _show_values(self) -> None:
        entry = self._selected()
        text = (
            "Nothing refused is kept."
            if entry is None
            else f"Values entered on task {entry.task_id}:\n{values_text(entry)}"
        )
        self.query_one("#refused-values", Static).update(shown(text))

    async def action_copy(self) -> None:
        from queuedesk.tui.settings import web_session
        from queuedesk.tui.terminal.clipboard import IN_THE_BROWSER, copy_confirmed

        entry = self._selected()
        if entry is None:
            return
        body = json.dumps(entry.data, ensure_ascii=False, indent=1)
        if web_session():  # the browser's clipboard, never a program on the host
            self.app.copy_to_clipboard(body)
            self.notify(
                IN_THE_BROWSER, title=f"Values of task {entry.task_id} copied to the browser", timeout=6
            )
            return
        where = await asyncio.to_thread(copy_confirmed, body)
        if where is None:
            self.notify(
                "No clipboard program answered (tmux, wl-copy, xclip, xsel, pbcopy): the values are shown here.",
                title="Not copied",
                severity="warning",
            )
        else:
            self.notify(f"The values of task {entry.task_id} are in {where}.", title="Copied", timeout=4)

    def action_dismiss_entry(self) -> None:
        entry = self._selected()
        if entry is None:
            return
        at = self.query_one(OptionList).highlighted or 0
        self.journal.remove(entry.id)
        self.notify(f"Refused submission of task {entry.task_id} dismissed.", timeout=4)
        self._fill(at)

    def action_close(self) -> None:
        self.dismiss(None)
