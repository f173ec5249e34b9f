"""`link` blocks (and `embed`, `audio`, `video`, `pdf`): an http(s) address.

Task content in the work screen (shown as the address); a typed address when creating a task.
"""

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.api.terminal_text import link_target, shown
from queuedesk.tui.forms.fields import InputEditor


class LinkEditor(InputEditor):
    WORKER_FILLS: ClassVar[bool] = False
    DEFAULT_PLACEHOLDER: ClassVar[str] = "https://…"
    HINT: ClassVar[str] = "http(s) address · esc leaves field"

    def read_only_view(self) -> Widget:
        if not self._text:
            return super().read_only_view()
        target = link_target(self._text)  # never a link with a control character in it
        link = Text(shown(self._text), style=Style(link=target, underline=True) if target else "")
        return Static(link, classes="editor-value -link")
