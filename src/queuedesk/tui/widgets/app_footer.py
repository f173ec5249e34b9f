"""The app's footer: Textual's, compact and without the palette's hint below 100 columns, and never
wider than the terminal: the app's own keys (`^q Quit`, `f1 Keys`) always show.

At 80 columns Textual's footer drew the last key under "^p palette" ("f1 Ke▏^p palette"), and with
the palette's hint gone a screen with many keys (the Completed, Stats and Webhook tabs) still ran
off the right edge, `f1 Keys` first. Narrow, the keys sit closer together and the palette's hint
goes (ctrl+p still opens it; f1 lists it); when the keys are still too many for the width, the
screen's last ones are left out (f1 lists every key) and the app's keys and `escape` stay.
"""

from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

from queuedesk.tui.nodes.lifecycle import is_gone

NARROW_BELOW = 100  # columns
ALWAYS_SHOWN_KEYS = frozenset({"escape"})


def is_key(widget: Widget) -> bool:
    """Whether `widget` is one of the footer's keys (Textual's FooterKey, not public: read by its
    attributes, listed in compat/textual_private.py)."""
    return all(hasattr(widget, name) for name in ("key", "key_display", "description", "action"))


def key_width(key: Any, *, compact: bool) -> int:
    """The cells a key takes in the footer (Textual's footer styles: padding and margin)."""
    shown = cell_len(key.key_display)
    described = cell_len(key.description) + 1 if key.description else 0
    if key.has_class("-command-palette"):
        return 1 + shown + described + 1  # its left border, its right padding (as Textual draws it)
    return shown + described + 1 if compact else 1 + shown + 1 + described


def fitted(widgets: list[Widget], width: int, kept: set[str], *, compact: bool) -> list[Widget]:
    """`widgets` without the rightmost keys whose action is not in `kept` (nor on `escape`) until
    what is left fits in `width` cells; widgets other than keys are kept as they are."""
    keys: list[Any] = [w for w in widgets if is_key(w)]
    used = sum(key_width(key, compact=compact) for key in keys)
    dropped: set[int] = set()
    for key in reversed(keys):
        if used - 1 <= width:  # the last key's trailing cell may be cut (or lie under the palette's border)
            break
        if key.action in kept or key.key in ALWAYS_SHOWN_KEYS or key.has_class("-command-palette"):
            continue
        dropped.add(id(key))
        used -= key_width(key, compact=compact)
    return [w for w in widgets if id(w) not in dropped]


class AppFooter(Footer):
    _width = 0

    def compose(self) -> ComposeResult:
        if is_gone(self):
            return  # asked to recompose (a resize) while its screen goes: its keys are gone too
        made = list(super().compose())
        if not made:
            return  # the screen's keys are not ready yet (Textual's footer waits for them)
        width = self.size.width or self.app.size.width
        kept = {
            binding.action
            for node, binding, _enabled, _tooltip in self.screen.active_bindings.values()
            if node is self.app
        }
        yield from fitted(made, width, kept, compact=self.compact)

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < NARROW_BELOW
        self.compact = narrow
        self.show_command_palette = not narrow
        if event.size.width != self._width:
            self._width = event.size.width
            self.refresh(recompose=True)  # the keys that fit the new width
