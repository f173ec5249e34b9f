"""textual-image's private names and import-time behaviour QueueDesk relies on (textual-image 0.12)."""

import sys
from types import ModuleType
from typing import Any

from textual_image._terminal import get_cell_size

from queuedesk.compat import PrivateName
from queuedesk.compat.textual_private import app_is_running

PRIVATE_NAMES = (
    PrivateName(
        "textual_image._terminal.get_cell_size",
        2,
        "The terminal's cell size in pixels, asked when textual-image was imported: the picture is "
        "sized in cells to keep its proportions. The widgets use it too; there is no public name.",
        "tui/widgets/image_view.py fit_cells",
    ),
    PrivateName(
        "textual_image.renderable",
        2,
        "Loaded means textual-image has already asked the terminal (or decided not to): importing "
        "its widgets again asks nothing.",
        "compat/textual_image_private.py import_widgets",
    ),
)


class _NotATerminal:
    """Stands in for stdout while textual-image is imported inside a running app (see below)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def import_widgets() -> tuple[ModuleType, bool]:
    """Import textual-image's widgets; also say whether it could ask the terminal what it supports.

    Importing textual-image asks the terminal which graphics it supports and how large a cell is,
    and only works before Textual starts reading stdin. Measured on this machine: 0.13-0.14 s in
    tmux, 0.02 s when stdout is not a terminal (TUI-NOTES: 0.6 s once in a real terminal); paid
    once, at start, so the app imports it before `App.run()` (tui/main.py). Imported later, inside
    the running app, the terminal's answer would arrive as typed keys (seen in tmux: "[?1;2c" in
    the focused field), so then textual-image is shown a `sys.__stdout__` that is not a terminal
    (it asks only a terminal: behaviour of its import, not a documented switch) and pictures use
    half cells, which work everywhere.
    """
    if not app_is_running() or "textual_image.renderable" in sys.modules:
        import textual_image.widget as widgets

        return widgets, True
    real = sys.__stdout__
    sys.__stdout__ = _NotATerminal(real)  # type: ignore[misc, assignment]
    try:
        import textual_image.widget as widgets
    finally:
        sys.__stdout__ = real  # type: ignore[misc]
    return widgets, False


__all__ = ["PRIVATE_NAMES", "get_cell_size", "import_widgets"]
