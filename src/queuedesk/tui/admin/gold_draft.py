"""A queue's gold share (B22) while it is edited: as typed, what is wrong with it, and what it means
in words.

`gold_percent` (0-50) is the share of each worker's claims served from the gold tasks they have not
answered yet: tasks with a known answer, which score the worker and are never completed.
"""

from dataclasses import dataclass

MAX_GOLD_PERCENT = 50


def gold_percent(text: str) -> int | None:
    """The share as typed: a whole number from 0 to 50 (blank is 0), else None."""
    text = text.strip()
    if not text:
        return 0
    if not text.isdigit():
        return None
    value = int(text)
    return value if value <= MAX_GOLD_PERCENT else None


def about_one_in(percent: int) -> str:
    """`10` -> "about 1 in 10"; a share that is not one in a whole number is said as it is."""
    every = 100 / percent
    if abs(every - round(every)) < 0.05 * every:
        return "1 in 2" if round(every) == 2 else f"about 1 in {round(every)}"
    return f"about {percent} in 100"


@dataclass
class GoldDraft:
    """The share as typed (`text`), and whether the server has gold tasks at all (`offered`)."""

    text: str = "0"
    offered: bool = False

    @property
    def value(self) -> int | None:
        return gold_percent(self.text)

    def state(self) -> str | None:
        """What is compared to tell a change: the number typed (None where the server has no gold)."""
        if not self.offered:
            return None
        value = self.value
        return self.text.strip() if value is None else str(value)

    def problem(self) -> str | None:
        """What is wrong with the share typed, in words that say what to write; None when nothing."""
        if not self.offered or self.value is not None:
            return None
        return f"gold share: a whole number from 0 to {MAX_GOLD_PERCENT} (percent of the tasks given), or 0 for none"

    def meaning(self) -> str:
        """What the share does, in a sentence."""
        value = self.value
        if value is None:
            return "Gold tasks have known answers and measure each worker: fix the share marked in red."
        if value == 0:
            return "No gold tasks are given: workers get only the queue's ordinary work."
        return (
            f"{about_one_in(value).capitalize()} tasks a worker is given is a gold task with a known "
            f"answer ({value}%), while gold tasks they have not answered remain; their answers measure "
            "each worker's accuracy, and gold tasks are never completed."
        )
