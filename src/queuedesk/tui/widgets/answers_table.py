"""A task's answers in a queue with consensus (B21), side by side per block: who gave each (and how
long it took them), the value each gave, the agreement on each compared block, and how the task
stands (collecting, settled, disputed, decided and by whom). Text from outside is shown literally."""

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from queuedesk.api.models import Block, Consensus
from queuedesk.api.terminal_text import shown_on_one_line
from queuedesk.tui.clock import duration
from queuedesk.tui.review.dispute_rules import in_order, side_by_side

STATES = {
    "collecting": "collecting answers",
    "settled": "settled: the answers agreed",
    "disputed": "disputed: the answers did not agree; it waits for a decision in review",
    "decided": "decided in review",
}


def consensus_heading(consensus: Consensus) -> Text:
    count = len(consensus.answers)
    text = Text(f"Answers ({count}): ", style="bold")
    text.append(STATES.get(consensus.state, consensus.state))
    if consensus.decided_by:
        text.append(f" by {shown_on_one_line(consensus.decided_by)}")
    return text


def answers_table(blocks: Sequence[Block], consensus: Consensus, *, keys: bool = False) -> Group | Table:
    """The heading, then one row per block a worker fills and one column per answer, earliest first
    (`keys`: for the review of a dispute, whose lines above say how it stands: no heading, each
    column headed by the key that takes it). A value that differs from the most common one is marked."""
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1), expand=False)
    table.add_column("Block", no_wrap=True)
    ordered = in_order(consensus.answers)
    sides = side_by_side(blocks, ordered, consensus.agreement)
    for column, answer in zip(sides.columns, ordered, strict=True):
        took = "" if answer.seconds is None else f" · {duration(answer.seconds)}"
        head = f"{column.key} {column.who}" if keys else f"{column.who}{took}"
        table.add_column(Text(head), overflow="fold")
    for row, name in enumerate(sides.rows):
        cells = [Text(name)]
        for column in sides.columns:
            agrees = column.agrees[row]
            cells.append(Text(column.values[row], style="" if agrees else "bold yellow"))
        table.add_row(*cells)
    return table if keys else Group(consensus_heading(consensus), table)
