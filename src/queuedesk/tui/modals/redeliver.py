"""Where a redelivery goes (B11): the delivery's own target, or the queue's target as it is now.

Asked only when the two differ: after a wrong target was fixed, the old deliveries still name the
wrong one, and a redelivery that silently went there again was the surprise this dialog prevents.
"""

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from queuedesk.api.models import Delivery
from queuedesk.api.terminal_text import shown
from queuedesk.tui.base import AppModal

OWN, CURRENT = "own", "current"


def needs_choice(delivery: Delivery, current_target: str | None) -> bool:
    """Ask only when the queue has a target now and it is not the one the delivery names."""
    return bool(current_target) and current_target != delivery.target


class RedeliverScreen(AppModal[str | None]):
    """Dismisses with `OWN`, `CURRENT`, or None (cancelled)."""

    DEFAULT_CSS = """
    RedeliverScreen { align: center middle; }
    #redeliver-box { width: 76; max-width: 100%; height: auto; border: thick $primary; padding: 0 2; }
    #redeliver-title { text-style: bold; padding-bottom: 1; }
    #redeliver-choices { height: auto; margin-bottom: 1; }
    #redeliver-note { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="redeliver.cancel")]

    def __init__(self, delivery: Delivery, current_target: str) -> None:
        super().__init__()
        self.delivery = delivery
        self.current_target = current_target

    def compose(self) -> ComposeResult:
        with Vertical(id="redeliver-box"):
            yield Label(f"Redeliver task {self.delivery.task_id}'s event to…", id="redeliver-title")
            yield OptionList(
                Option(f"▸ its own target: {shown(self.delivery.target)}", id=OWN),
                Option(f"▸ the queue's current target: {shown(self.current_target)}", id=CURRENT),
                id="redeliver-choices",
            )
            yield Static(
                "The current target changes the delivery's target for good; the event id stays, so "
                "the receiver still recognises a repeat. enter sends · escape cancels",
                id="redeliver-note",
            )

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        choices.highlighted = 1  # the target as it is now: a fixed address is why one redelivers
        choices.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
