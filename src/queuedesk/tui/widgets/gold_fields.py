"""A queue's gold share (B22) in the editor: the percent of the tasks given to each worker that are
gold tasks (0-50), under it what that means in words (`admin/gold_draft.py`), and its problem.

Each change goes into the `GoldDraft` it was given and is posted as `Changed`.
"""

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from queuedesk.tui.admin.gold_draft import GoldDraft
from queuedesk.tui.widgets.block_settings import row


class GoldFields(Vertical):
    class Changed(Message):
        """The gold share changed (the draft holds the new value)."""

    def __init__(self, draft: GoldDraft, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.draft = draft

    def compose(self) -> ComposeResult:
        share = Input(
            self.draft.text,
            placeholder="0",
            id="gold-percent",
            restrict=r"[0-9]*",
            max_length=3,
            compact=True,
        )
        yield row("Gold %", share)
        problem = Static("", id="gold-problem", classes="qe-problem", markup=False)
        problem.display = False
        yield problem
        yield Static(self.draft.meaning(), id="gold-meaning", classes="qe-note", markup=False)

    def show_problem(self, message: str | None) -> None:
        """The share's problem under it (None: none)."""
        line = self.query_one("#gold-problem", Static)
        line.update(message or "")
        line.display = message is not None

    def focus_field(self, field: str) -> bool:
        """The share focused when `field` is its problem's; False otherwise."""
        if field != "gold":
            return False
        self.query_one("#gold-percent").focus()
        return True

    @on(Input.Changed, "#gold-percent")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.draft.text = event.value
        self.query_one("#gold-meaning", Static).update(self.draft.meaning())
        self.post_message(self.Changed())
