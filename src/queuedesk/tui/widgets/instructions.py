"""The queue's description — its instructions to workers — as markdown, shown or folded to one line.

A title line and the rendered text below it, in a scroll of bounded height so a long description
never pushes the task out of sight. Nothing in it takes the focus: the work screen's `tab` order is
the form's fields only, and the key that folds it is the screen's (`f2` at work, `i` on the queue).
"""

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from queuedesk.tui.nodes.lifecycle import Lifecycle


class Instructions(Lifecycle, Vertical):
    DEFAULT_CSS = """
    Instructions {
        height: auto;
        padding: 0 1;
        border-bottom: hkey $panel;
    }
    Instructions.-empty {
        display: none;
    }
    Instructions.-folded {
        border-bottom: none;
    }
    Instructions .instructions-title {
        color: $text-accent;
        text-style: bold;
        height: 1;
    }
    Instructions .instructions-body {
        height: auto;
        max-height: 10;
        scrollbar-size-vertical: 1;
    }
    Instructions Markdown {
        margin: 0;
        padding: 0;
    }
    """

    def __init__(self, text: str, *, key: str, expanded: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text
        self.key = key
        self.expanded = expanded

    def compose(self) -> ComposeResult:
        yield Static("", classes="instructions-title", markup=False)
        body = VerticalScroll(Markdown(self.text, open_links=False), classes="instructions-body")
        body.can_focus = False
        yield body

    def on_mount(self) -> None:
        self._show()

    def update(self, text: str) -> None:
        """The description as the server has it now."""
        if text != self.text:
            self.text = text
            self.query_one(Markdown).update(text)
        self._show()

    def toggle(self) -> bool:
        """Fold or unfold; whether it is shown now."""
        self.expanded = not self.expanded
        self._show()
        return self.expanded

    def _show(self) -> None:
        self.set_class(not self.text.strip(), "-empty")
        self.set_class(not self.expanded, "-folded")  # one line: the title says what is folded
        arrow, verb = ("▼", "folds") if self.expanded else ("▶", "shows")
        self.query_one(".instructions-title", Static).update(f"{arrow} Instructions ({self.key} {verb} them)")
        self.query_one(".instructions-body").display = self.expanded
