"""The people offered under the history's worker filter as it is typed (↑/↓ pick one): shown while
the field has the focus and someone matches; what is typed stays the filter until one is picked."""

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from queuedesk.tui.views.worker_pick import WorkerPick


class WorkerPicks(OptionList):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False  # up/down in the worker field move its highlight
        self.display = False
        self.pick: WorkerPick | None = None  # the people on offer, once read

    def offer(self, field: Input, focused: Widget | None) -> None:
        """The people matching `field`, while it has the focus."""
        if self.pick is None or focused is not field:
            self.display = False
            return
        pick = self.pick
        found = pick.matching(field.value)
        self.set_options(
            Option(
                Content.assemble(
                    (user.name, "bold"),
                    f"  {user.email}",
                    ("  worked here lately", "$text-muted") if pick.has_worked_here(user) else "",
                ),
                id=user.email,
            )
            for user in found
        )
        self.highlighted = None  # what is typed is the filter until ↓ picks someone
        self.display = bool(found)

    def move(self, step: int) -> None:
        """up/down in the worker field: the highlight among the people offered."""
        if self.highlighted is None:
            self.highlighted = 0 if step > 0 else self.option_count - 1
        elif step > 0:
            self.action_cursor_down()
        else:
            self.action_cursor_up()

    def picked(self) -> str | None:
        """The email of the person highlighted, if the list is shown."""
        if not self.display or self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id
