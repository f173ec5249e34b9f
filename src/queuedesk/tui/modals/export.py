"""`X` on the Completed tab: the file the filtered history goes to, CSV or JSON lines by its ending."""

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from queuedesk.api.task_export import Format
from queuedesk.tui.base import AppModal, styles

ENDINGS: dict[str, Format] = {".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl"}


def file_problem(path: Path) -> str | None:
    """What stops the history going to `path`, said so it can be mended; None when it can."""
    if path.suffix.lower() not in ENDINGS:
        return "End the name with .csv or .jsonl (JSON lines)."
    if path.is_dir():
        return f"{path} is a folder: add a file name."
    if not path.parent.is_dir():
        return f"There is no folder {path.parent}."
    if path.exists():
        return f"{path.name} exists already: choose another name (nothing is overwritten)."
    return None


class ExportScreen(AppModal[Path | None]):
    """Dismisses with a path the history can be written to, or None (escape)."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, what: str, suggested: Path) -> None:
        super().__init__()
        self.what = what
        self.suggested = suggested

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(f"Export {self.what}", id="confirm-title", markup=False)
            yield Input(str(self.suggested), id="export-path")
            yield Static(
                "to a new file: .csv, or .jsonl for JSON lines · enter exports",
                id="export-note",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Submitted, "#export-path")
    def _chosen(self, event: Input.Submitted) -> None:
        path = Path(event.value.strip()).expanduser()
        problem = file_problem(path) if event.value.strip() else "Type the file's name."
        if problem is not None:
            event.input.add_class("-invalid")
            self.query_one("#export-note", Static).update(problem)
            return
        self.dismiss(path.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)
