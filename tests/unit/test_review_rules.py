"""The review screen's rules without a screen (`tui/review/review_rules.py`): the verdict keys
read-only and while editing, what counts as a change, what the status line and the lines above the
form say. No server, no Textual."""

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from queuedesk.tui.review.review_rules import (
    changes,
    keys_line,
    note_dialog,
    review_applies,
    verdict_said,
)
from queuedesk.tui.review.review_session import Verdict
from queuedesk.tui.work.task_rules import TaskRules, held_message

Focus = Literal["text", "multiline", "option_filter", "other"]


@dataclass
class View:
    focus: Focus = "other"
    options: set[str] = field(default_factory=set)  # the keys the focused selection takes

    def focus_kind(self) -> Focus:
        return self.focus

    def one_selection(self) -> bool:
        return True

    def has_images(self) -> bool:
        return False

    def has_instructions(self) -> bool:
        return False

    def choice_takes(self, key: str) -> bool:
        return key in self.options

    def options_take(self, key: str) -> bool:
        return key in self.options


@pytest.mark.parametrize(
    ("action", "parameters", "editing", "view", "applies"),
    [
        # read-only: every verdict key acts
        ("verdict", ("accept",), False, View(), True),
        ("verdict", ("redo",), False, View(), True),
        ("edit", (), False, View(), True),
        ("note", (), False, View(), True),
        # editing, out of the fields: the verdicts act, `e` is no longer one
        ("verdict", ("accept",), True, View(), True),
        ("edit", (), True, View(), False),
        # editing in a text field: letters are text
        ("verdict", ("accept",), True, View(focus="text"), False),
        ("verdict", ("redo",), True, View(focus="multiline"), False),
        ("note", (), True, View(focus="option_filter"), False),
        # editing on a selection whose own keys include the letter: the option's
        ("verdict", ("accept",), True, View(options={"a"}), False),
        ("verdict", ("redo",), True, View(options={"a"}), True),
        ("note", (), True, View(options={"n"}), False),
        # a review keeps no draft, and a digit picks an option, never a verdict
        ("release_draft", (), False, View(), False),
        ("toggle_submit_on_choice", (), False, View(), False),
        ("choice_key", ("1",), False, View(options={"1"}), False),
        # the work screen's rules beneath
        ("submit", (), True, View(focus="multiline"), False),
        ("skip", (), False, View(), True),
        ("skip", (), True, View(focus="text"), False),
    ],
)
def test_which_review_action_applies(
    action: str, parameters: tuple[object, ...], editing: bool, view: View, applies: bool
) -> None:
    rules = TaskRules(ready=True, submit_on_choice=True)
    assert review_applies(rules, action, parameters, view, editing=editing) is applies


@pytest.mark.parametrize(
    ("values", "original", "changed"),
    [
        ({"a": "x"}, {"a": "x"}, []),
        ({"a": "y"}, {"a": "x"}, ["a"]),
        ({"a": ""}, {}, []),  # an empty text where nothing was is no change
        ({"a": None}, {"a": ""}, []),
        ({"a": []}, {"a": None}, []),
        ({"a": ["p"]}, {"a": []}, ["a"]),
        ({"a": "", "b": 2}, {"a": "x", "b": 1}, ["a", "b"]),
    ],
)
def test_what_counts_as_a_change(
    values: dict[str, Any], original: dict[str, Any], changed: list[str]
) -> None:
    assert changes(values, original) == changed


@pytest.mark.parametrize(
    ("verdict", "said"),
    [
        ("accept", "Task 4 accepted: sent in 5 s — u undoes."),
        ("correct", "Task 4 corrected: sent in 5 s — u undoes."),
        ("redo", "Task 4 sent back to be redone: sent in 5 s — u undoes."),
    ],
)
def test_the_held_verdict_is_named(verdict: Verdict, said: str) -> None:
    rules = TaskRules(message=held_message(4))
    assert verdict_said(rules, (4, verdict)) == said
    rules.message = "Task 4 sent."
    assert verdict_said(rules, (4, verdict)) == "Task 4 sent."
    assert verdict_said(TaskRules(message=held_message(4)), None) == held_message(4)


def test_the_keys_line_says_what_the_keys_do_now() -> None:
    assert keys_line(editing=False, in_a_field=False).startswith("Read-only: a accept")
    assert keys_line(editing=True, in_a_field=True).startswith("Editing: enter corrects")
    assert keys_line(editing=True, in_a_field=False).startswith("Out of the fields")


def test_a_redo_asks_why() -> None:
    assert note_dialog("redo")[0] == "Send back to be redone"
    assert note_dialog(None)[0] == "Note on this review"
