"""A queue's consensus (B21) in the editor: on or off, the answers per task, at most how many while
they disagree, the agreement that settles a task and the blocks compared; under them, what the
settings mean in words (`admin/consensus_draft.py`), and each problem under its field.

Each change goes into the `ConsensusDraft` it was given and is posted as `Changed`.
"""

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, SelectionList, Static
from textual.widgets.selection_list import Selection

from queuedesk.tui.admin.consensus_draft import FIELDS, ConsensusDraft, comparable
from queuedesk.tui.admin.queue_draft import BlockDraft
from queuedesk.tui.nodes.lifecycle import Lifecycle
from queuedesk.tui.widgets.block_settings import row


class ConsensusFields(Lifecycle, Vertical):
    class Changed(Message):
        """A consensus setting changed (the draft holds the new value)."""

    def __init__(self, draft: ConsensusDraft, drafts: Sequence[BlockDraft], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.draft = draft
        self._offered: list[tuple[str, str]] = []  # the comparable blocks listed: (id, name)
        self._drafts = list(drafts)

    def compose(self) -> ComposeResult:
        draft = self.draft
        yield Checkbox(
            "Consensus: answers must agree",
            draft.on,
            id="consensus-on",
            classes="qe-check",
            compact=True,
        )
        with Vertical(id="consensus-settings"):
            yield row("Answers", _digits(draft.answers, "answers"))
            yield _problem("answers")
            yield row("At most", _digits(draft.max_answers, "max_answers", "as many as the answers"))
            yield _problem("max_answers")
            hint = "0.5: a majority"
            agreement = Input(draft.agreement, placeholder=hint, id="consensus-agreement", compact=True)
            yield row("Agreement", agreement)
            yield _problem("agreement")
            yield Static("Compared blocks (space chooses)", classes="qe-label")
            yield SelectionList[str](id="consensus-blocks", compact=True)
            yield _problem("blocks")
        yield Static("", id="consensus-meaning", classes="qe-note", markup=False)

    def on_mount(self) -> None:
        self.show_blocks(self._drafts)

    def show_blocks(self, drafts: Sequence[BlockDraft]) -> None:
        """The blocks as they are now: the comparable ones listed (again, when they changed), the
        compared ones chosen, and the meaning said again."""
        self._drafts = list(drafts)
        self.query_one("#consensus-settings").display = self.draft.on
        offered = [(d.id, d.name or d.id) for d in comparable(drafts)]
        listing = self.query_one("#consensus-blocks", SelectionList)
        if offered != self._offered:
            self._offered = offered
            chosen = set(self.draft.compared(drafts))
            listing.clear_options()
            listing.add_options(
                [
                    Selection(f"{name} ({block_id})", block_id, block_id in chosen)
                    for block_id, name in offered
                ]
            )
        self.query_one("#consensus-meaning", Static).update(self.draft.meaning(drafts))

    def show_problems(self, problems: dict[str, str]) -> None:
        """`problems` by field (`consensus.answers`, ...): each under its own, the others cleared."""
        for key in FIELDS:
            line = self.query_one(f"#consensus-problem-{key}", Static)
            message = problems.get(f"consensus.{key}")
            line.update(message or "")
            line.display = message is not None

    def focus_field(self, field: str) -> bool:
        """Focus the field of a problem (`consensus.answers`, ...); False when it is not one of these."""
        key = field.removeprefix("consensus.")
        if not field.startswith("consensus") or not self.draft.on:
            return False
        found = self.query(f"#consensus-{key}" if key in FIELDS else "#consensus-on")
        if found:
            found.first().focus()
        return bool(found)

    def _changed(self) -> None:
        self.show_blocks(self._drafts)
        self.post_message(self.Changed())

    @on(Checkbox.Changed, "#consensus-on")
    def _turned(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.draft.on = event.value
        self._changed()

    @on(Input.Changed, "#consensus-settings Input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        key = (event.input.id or "").removeprefix("consensus-")
        if key in ("answers", "max_answers", "agreement"):
            setattr(self.draft, key, event.value)
            self._changed()

    @on(SelectionList.SelectedChanged, "#consensus-blocks")
    def _chosen(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        chosen = [block_id for block_id, _ in self._offered if block_id in set(event.selection_list.selected)]
        if chosen != self.draft.compared(self._drafts):  # (listing the blocks again says the same)
            self.draft.blocks = chosen
            self._changed()


def _digits(value: str, key: str, placeholder: str = "") -> Input:
    return Input(
        value, placeholder=placeholder, id=f"consensus-{key}", restrict=r"[0-9]*", max_length=2, compact=True
    )


def _problem(key: str) -> Static:
    line = Static("", id=f"consensus-problem-{key}", classes="qe-problem", markup=False)
    line.display = False
    return line
