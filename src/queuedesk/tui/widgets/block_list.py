"""The queue editor's list of blocks, in order: one line each (number, problem mark, name, id, type,
`*` when required). `[` and `]` move the block under the cursor, `delete` removes it: the screen's
actions, which change the draft and then show it here again."""

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class BlockList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "screen.move_block(-1)", "Move up", id="queue_editor.up"),
        Binding("right_square_bracket", "screen.move_block(1)", "Move down", id="queue_editor.down"),
        Binding("delete,minus", "screen.remove_block", "Remove block", id="queue_editor.remove"),
        Binding("plus,a", "screen.add_block", "Add block", show=False, id="queue_editor.add_key"),
    ]

    def fill(self, labels: list[str], selected: int | None) -> None:
        """Every line anew (blocks added, removed); the cursor on `selected`."""
        self.clear_options()
        self.add_options([Option(label) for label in labels])
        if selected is not None and labels:
            self.highlighted = min(selected, len(labels) - 1)

    def relabel(self, labels: list[str]) -> None:
        """The lines in place (a name or a problem changed): the cursor stays."""
        for index, label in enumerate(labels[: self.option_count]):
            self.replace_option_prompt_at_index(index, label)
