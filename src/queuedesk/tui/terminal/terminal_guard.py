"""The last guard before the terminal: no text a widget paints is written as a control sequence.

The app shows text by the display rule (api/terminal_text.py) where it puts outside text into a
widget, so that widths are right (a control character is zero cells wide to Rich; its symbol is
one). This guard is what makes "never written" hold for every widget, Textual's own included (an
`Input` holding a pasted ESC, the command palette, a toast): every line Textual renders passes
through `Strip.render`, and there each text segment is shown by the rule, and a hyperlink (OSC 8)
whose URL holds a control, bidi or space character is drawn as plain text, not as a link.

Segments carrying a `control` (textual-image's sixel data, the one widget that writes sequences on
purpose) and the cursor move written right after one are left as they are: text cannot make one.
"""

import re
from collections.abc import Callable, Sequence
from operator import itemgetter

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from queuedesk.api.terminal_text import is_safe, link_target, shown

_CURSOR_MOVE = re.compile(r"\x1b\[\d+;\d+H")
_text_of = itemgetter(0)  # a segment's text


def guarded(segments: Sequence[Segment]) -> list[Segment] | None:
    """`segments` with every text shown by the display rule and every unsafe link dropped; None when
    nothing needed it (the common case, checked without building anything)."""
    changed: list[Segment] | None = None
    after_control = False
    for index, segment in enumerate(segments):
        text, style, control = segment
        kept = control is not None or (after_control and _CURSOR_MOVE.fullmatch(text) is not None)
        after_control = control is not None
        if kept:
            continue
        unsafe_link = style is not None and style._link and link_target(style._link) is None
        if is_safe(text) and not unsafe_link:
            continue
        if changed is None:
            changed = list(segments)
        if unsafe_link and style is not None:
            style = style.update_link(None)
        changed[index] = Segment(shown(text), style)
    return changed


_textual_render: Callable[[Strip, Console], str] = Strip.render


def _render(self: Strip, console: Console) -> str:
    if self._render_cache is not None:
        return self._render_cache
    rendered = _textual_render(self, console)
    # The common case, checked cheaply: the line's text is printable (a loop in C) and it holds
    # no link (a substring search of what was rendered).
    if "\x1b]8;" not in rendered and "".join(map(_text_of, self._segments)).isprintable():
        return rendered
    safe = guarded(self._segments)
    if safe is None:
        return rendered
    self._segments, self._render_cache = safe, None
    return _textual_render(self, console)


def install() -> None:
    """Guard every strip the app renders from now on (idempotent)."""
    Strip.render = _render  # type: ignore[method-assign]


def installed() -> bool:
    return Strip.render is _render
