"""A suggested value in a field (B23): pre-filled, and said so, so it never passes for what the
worker typed.

The line under a suggested field's name says whose it is and how sure: "✦ suggested by model-a ·
92%". Once the worker changes the value it says so, with the suggestion and the key that puts it
back first (a narrow form cuts the end): "✎ changed · suggested “Red” · ctrl+r restores · by
model-a". The editor carries the
classes `-suggested` (holding the suggestion) or `-changed` (not any more) for the look
(`styles/forms.tcss`).
"""

from typing import Any

from queuedesk.api.models import Suggestion
from queuedesk.api.terminal_text import shown

RESTORE_KEY = "ctrl+r"
NOTHING = "Nothing to put back"
ALREADY = "{name} holds its suggestion already."
SHOWN_VALUE = 40  # characters of a suggested value the changed line quotes


def score_words(score: float | None) -> str:
    """A score as people read it: "92%"; "" when the agent gave none."""
    return "" if score is None else f"{score:.0%}"


def quoted(value: Any) -> str:
    """A suggested value in a line: its text on one line, cut at `SHOWN_VALUE` characters."""
    if isinstance(value, list):
        text = ", ".join(str(item) for item in value)
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_VALUE else text[: SHOWN_VALUE - 1] + "…"


def mark(suggestion: Suggestion, *, changed: bool, shown_as: str | None = None) -> str:
    """The line under a suggested field: whose suggestion and how sure, or that it was changed.
    `shown_as`: the suggestion as the field names it (an option's name), else its value."""
    agent = shown(suggestion.agent)
    score = score_words(suggestion.score)
    if not changed:
        return f"✦ suggested by {agent}" + (f" · {score}" if score else "")
    said = shown(shown_as if shown_as is not None else quoted(suggestion.value))
    return f"✎ changed · suggested “{said}” · {RESTORE_KEY} restores · by {agent}"


def same(left: Any, right: Any) -> bool:
    """Whether two values an editor gives are the same answer (a list of choices as a set)."""
    if isinstance(left, list) and isinstance(right, list):
        try:
            return sorted(map(str, left)) == sorted(map(str, right))
        except TypeError:
            return left == right
    return bool(left == right) and type(left) is type(right)
