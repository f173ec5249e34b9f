"""The rules of the review screen's keys and words, without a screen: which verdict key applies when
(read-only, editing, in a field), what changed against the worker's answers, and what the lines above
the form and the status line say. The work screen's rules (`tui/work/task_rules.py`) apply beneath.
Tested in the fast tier (`tests/unit/test_review_rules.py`)."""

from typing import Any, Protocol

from queuedesk.api.models import Block
from queuedesk.api.terminal_text import shown_on_one_line
from queuedesk.tui.present import block_value
from queuedesk.tui.review.dispute_rules import ANSWER_KEYS, keys_said
from queuedesk.tui.review.review_session import Verdict
from queuedesk.tui.work.task_rules import TaskRules, TaskView, held_message

CHANGED = "-review-changed"  # the class of a field whose answer the reviewer changed
VERDICT_KEYS = {"accept": "“a”", "redo": "“x”", "edit": "“e”", "note": "“n”"}
SAID: dict[Verdict, str] = {
    "accept": "accepted",
    "correct": "corrected",
    "redo": "sent back to be redone",
    "decide": "decided",
}
NOTHING_CHANGED = "Nothing changed: e edits the answers, a accepts them as they are."
NOT_CORRECTED = "Not corrected: fix the fields marked in red."
CHANGED_BEFORE_ACCEPT = "You changed answers: enter corrects them; undo your edits to accept."
REDO_NEEDS_A_NOTE = "Not sent back: a redo needs a note for the worker."
NOT_DECIDED = "Not decided: fix the fields marked in red."
# On a disputed task (B21) there is no worker's answer to accept or send back: it is decided.
NOT_ON_A_DISPUTE = ("accept", "redo")
# The work screen's actions a review has no use for: it keeps no draft, and a digit picks an option.
NOT_IN_REVIEW = ("release_draft", "toggle_submit_on_choice", "choice_key")


def empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def changes(values: dict[str, Any], original: dict[str, Any]) -> list[str]:
    """The block ids whose value on screen differs from the worker's (an empty text is no change)."""
    return [
        block_id
        for block_id, value in values.items()
        if not (empty(value) and empty(original.get(block_id))) and value != original.get(block_id)
    ]


class ReviewView(TaskView, Protocol):
    def options_take(self, key: str) -> bool:
        """The focused selection takes `key` (a digit, a letter of its own) as a choice."""
        ...


def review_applies(
    rules: TaskRules,
    action: str,
    parameters: tuple[object, ...],
    view: ReviewView,
    *,
    editing: bool,
    answers: int = 0,
) -> bool:
    """Whether the review screen's `action` applies now. Read-only, the verdict keys act; editing, a
    letter is text in a field (and an option's own key there), else a verdict again; `e` is then a letter.
    On a disputed task (`answers`: how many it has) accept and redo do not apply, and a capital letter
    takes an answer whole (as a verdict key does, out of the fields)."""
    if action in NOT_IN_REVIEW:
        return False
    if action == "verdict" and answers and parameters and parameters[0] in NOT_ON_A_DISPUTE:
        return False
    if action == "take_answer":
        key = str(parameters[0]) if parameters else ""
        if key not in ANSWER_KEYS[:answers]:
            return False
        return not editing or (view.focus_kind() == "other" and not view.options_take(key))
    if action in ("verdict", "edit", "note"):
        if not editing:
            return True
        if action == "edit":
            return False
        key = "a" if parameters == ("accept",) else "x" if parameters == ("redo",) else "n"
        return view.focus_kind() == "other" and not view.options_take(key)
    return rules.applies(action, parameters, view)


def verdict_values(
    verdict: Verdict, values: dict[str, Any], original: dict[str, Any]
) -> dict[str, Any] | None:
    """What is kept with a verdict: the values on screen for a correction, the worker's otherwise
    (an undo shows them again); None for an accept with answers changed (it would drop the changes)."""
    if verdict == "accept" and changes(values, original):
        return None
    if verdict in ("correct", "decide"):
        return values
    return {block_id: original.get(block_id) for block_id in values}


def verdict_said(rules: TaskRules, last_verdict: tuple[int, Verdict] | None) -> str:
    """The status line's second line: "sent in 5 s" says which verdict was held."""
    message = rules.message
    if last_verdict is not None and message == held_message(last_verdict[0]):
        task_id, verdict = last_verdict
        message = f"Task {task_id} {SAID[verdict]}: sent in 5 s — u undoes."
    return rules.said(message)


def read_only_refusal(key: str) -> str:
    return f"“{key}” does nothing on a read-only review: e edits."


def keys_line(*, editing: bool, in_a_field: bool, answers: int = 0) -> str:
    """What the keys do now, said above the form (`answers`: a disputed task's)."""
    if answers:
        take = keys_said(answers)
        if editing and in_a_field:
            return "Editing: enter decides (ctrl+j in a long text) · escape leaves the field"
        if editing:
            return f"Out of the fields: {take} · enter decides · tab goes back in"
        return f"Disputed: {take} · e edits · enter decides · s skips"
    if editing and not in_a_field:
        return "Out of the fields: enter corrects · a, x and n act · tab goes back in."
    if editing:
        return "Editing: enter corrects (ctrl+j in a long text) · escape leaves the field."
    return "Read-only: a accept · x redo (with a note) · e or tab edit · n note · s skip"


def note_dialog(then: Verdict | None) -> tuple[str, str]:
    """The note dialog's title and explanation: for a redo (the note is its reason), or any verdict."""
    if then == "redo":
        return "Send back to be redone", "Why? The worker reads this with the task. Enter sends it."
    return "Note on this review", "The worker reads it with the verdict. Enter keeps it."


def details(
    task_line: str,
    *,
    editing: bool,
    in_a_field: bool,
    note: str | None,
    blocks: list[Block],
    values: dict[str, Any],
    original: dict[str, Any],
    answers: int = 0,
) -> str:
    """The lines above the form: who did the task (`task_line`), what the keys do now, the note
    written, and each answer changed beside the worker's (text from outside shown on its own lines)."""
    lines = [task_line, keys_line(editing=editing, in_a_field=in_a_field, answers=answers)]
    if note:
        lines.append(f"Note: {note}")
    by_id = {block.id: block for block in blocks}
    for block_id in changes(values, original):
        block = by_id[block_id]
        now, was = block_value(block, values[block_id]), block_value(block, original.get(block_id))
        lines.append(f"Changed {block.name}: {now} (" + ("most answers: " if answers else "was ") + f"{was})")
    return shown_on_one_line("\n".join(lines)).replace("␊", "\n")
