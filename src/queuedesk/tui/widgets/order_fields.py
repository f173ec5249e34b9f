"""A queue's claim order (B24) in the editor: "oldest" or "least_confident", chosen with ↑/↓, and
under it what that order means in a sentence (`priority_rules.ORDER_MEANINGS`).

Each change goes into the `QueueEdit` it was given and is posted as `Changed`.
"""

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from queuedesk.api.models import QUEUE_ORDERS
from queuedesk.api.priority_rules import ORDER_MEANINGS
from queuedesk.tui.admin.queue_edit import QueueEdit
from queuedesk.tui.keys.ordered_keys import OrderedOptionList

ORDER_NAMES = {"oldest": "Oldest first", "least_confident": "Least confident first"}


def order_meaning(order: str) -> str:
    """The sentence under the choice: what a claim gets first."""
    return f"Claims take {ORDER_MEANINGS.get(order, order)}."


class OrderFields(Vertical):
    DEFAULT_CSS = """
    OrderFields { height: auto; margin-top: 1; }
    OrderFields #queue-order { height: 2; width: 1fr; }
    """

    class Changed(Message):
        """The claim order changed (the edit holds the new value)."""

    def __init__(self, edit: QueueEdit, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.edit = edit

    def compose(self) -> ComposeResult:
        choices = OrderedOptionList(
            *[Option(ORDER_NAMES[name], id=name) for name in QUEUE_ORDERS], id="queue-order", compact=True
        )
        yield Label("Claim order (↑/↓ chooses)", classes="qe-label")
        yield choices
        yield Static(order_meaning(self.edit.order), id="order-meaning", classes="qe-note", markup=False)

    def on_mount(self) -> None:
        choices = self.query_one("#queue-order", OptionList)
        order = self.edit.order if self.edit.order in QUEUE_ORDERS else "oldest"
        choices.highlighted = QUEUE_ORDERS.index(order)

    @on(OptionList.OptionHighlighted, "#queue-order")
    def _chosen(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        order = event.option.id or "oldest"
        if order == self.edit.order:
            return
        self.edit.order = order
        self.query_one("#order-meaning", Static).update(order_meaning(order))
        self.post_message(self.Changed())
