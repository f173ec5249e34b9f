"""The queue's own fields in the editor: name (its problem under it), description and the share of
completions reviewed (shown when the server reviews work). Each change goes into the `QueueEdit` it
was given and is posted as `Changed`, so the screen checks and shows everything again."""

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static, TextArea

from queuedesk.tui.admin.queue_edit import QueueEdit
from queuedesk.tui.widgets.block_settings import row

FIELDS = {"name": "#queue-name", "review": "#queue-review", "description": "#queue-description"}


class QueueFields(Vertical):
    class Changed(Message):
        """A field of the queue changed (the model holds the new value)."""

    def __init__(self, edit: QueueEdit, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.edit = edit

    def compose(self) -> ComposeResult:
        edit = self.edit
        yield row("Name", Input(edit.name, placeholder="the queue's name", id="queue-name", compact=True))
        problem = Static("", id="queue-problem-name", classes="qe-problem", markup=False)
        problem.display = False
        yield problem
        yield row("Description", TextArea(edit.description, id="queue-description", compact=True))
        review = Input(edit.review_text, id="queue-review", compact=True, restrict=r"[0-9]*", max_length=3)
        review.display = edit.reviews
        yield row("Review %", review)

    def show_problems(self, mine: dict[str, str]) -> None:
        """The name's problem under it (the others are said under the blocks)."""
        line = self.query_one("#queue-problem-name", Static)
        line.update(mine.get("name", ""))
        line.display = "name" in mine

    def focus_field(self, field: str) -> bool:
        """The field of a problem of the queue focused; False when it is not one of these."""
        found = self.query(FIELDS.get(field, "#none"))
        if found:
            found.first().focus()
        return bool(found)

    @on(Input.Changed, "#queue-name")
    def _name_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.edit.name = event.value
        self.edit.name_touched = True
        self.post_message(self.Changed())

    @on(Input.Changed, "#queue-review")
    def _review_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.edit.review_text = event.value
        self.post_message(self.Changed())

    @on(TextArea.Changed, "#queue-description")
    def _description_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.edit.description = event.text_area.text
        self.post_message(self.Changed())
