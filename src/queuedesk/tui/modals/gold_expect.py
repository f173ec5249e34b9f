"""Correcting a gold task's expected values (B22, admins): one field per block gold may compare,
written as a CSV cell is (an option id, yes/no, a number, a date, a JSON list); an empty field
expects nothing of its block. `ctrl+s` saves once every value fits; `escape` leaves them."""

from collections.abc import Mapping
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from queuedesk.api.consensus_rules import COMPARABLE
from queuedesk.api.csv_values import from_cell, to_cell
from queuedesk.api.gold_rules import expected_problems
from queuedesk.api.models import Block
from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.keys.ordered_keys import OrderedInput


def hint_of(block: Block) -> str:
    """What a field takes, said beside its block's name."""
    if block.options:
        return ", ".join(option.id for option in block.options)
    return {"binary": "yes or no", "number": "a number", "date": "YYYY-MM-DD"}.get(block.type, block.type)


def read_fields(blocks: list[Block], cells: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The expected values the fields say, and what is wrong with them (nothing sent while any is)."""
    expected: dict[str, Any] = {}
    problems: list[str] = []
    for block in blocks:
        cell = cells.get(block.id, "").strip()
        if not cell:
            continue
        try:
            expected[block.id] = from_cell(block, cell)
        except ValueError as exc:
            problems.append(f"{block.name}: {exc}")
    if not problems:
        problems = expected_problems(blocks, expected)
    return expected, problems


class GoldExpectScreen(AppModal[dict[str, Any] | None]):
    """Dismisses with the new expected values, or None when cancelled."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    DEFAULT_CSS = """
    GoldExpectScreen { align: center middle; }
    GoldExpectScreen .gold-field-name { margin-top: 1; }
    GoldExpectScreen #gold-expect-problems { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="gold_expect.cancel"),
        Binding("ctrl+s", "save", "Save", priority=True, id="gold_expect.save"),
    ]

    def __init__(self, task_id: int, blocks: list[Block], expected: Mapping[str, Any]) -> None:
        super().__init__()
        self.task_id = task_id
        self.blocks = [b for b in blocks if b.type in COMPARABLE]
        self.expected = dict(expected)
        self.closing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(f"Expected answer of gold task {self.task_id}", id="confirm-title", markup=False)
            yield Static(
                "Answers given before keep their score. Leave a field empty to expect nothing of it. "
                "ctrl+s saves, escape cancels.",
                id="confirm-explain",
                markup=False,
            )
            for block in self.blocks:
                yield Label(f"{block.name} ({hint_of(block)})", classes="gold-field-name", markup=False)
                value = self.expected.get(block.id)
                yield OrderedInput(
                    "" if value is None else to_cell(value), id=f"gold-expect-{block.id}", compact=True
                )
            yield Static("", id="gold-expect-problems", markup=False)

    def on_mount(self) -> None:
        fields = list(self.query(OrderedInput).results(OrderedInput))
        if fields:
            fields[0].focus()

    def action_save(self) -> None:
        self.after_keys(self._save)

    def _save(self) -> None:
        cells = {b.id: self.query_one(f"#gold-expect-{b.id}", OrderedInput).value for b in self.blocks}
        expected, problems = read_fields(self.blocks, cells)
        if problems:
            self.query_one("#gold-expect-problems", Static).update("\n".join(problems))
            return
        self._close(expected)

    def action_cancel(self) -> None:
        self._close(None)

    def _close(self, expected: dict[str, Any] | None) -> None:
        if not self.closing:
            self.closing = True
            self.dismiss(expected)
