"""The work screen's rules without a screen (`tui/work/task_rules.py`): keys refused before a task is
painted, the double `enter`, which action applies when, what the status line says. No server, no Textual."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import pytest

from queuedesk.tui.keys.keys_read import KeysRead
from queuedesk.tui.work import task_rules
from queuedesk.tui.work.task_rules import (
    KEYS_FOR_NO_TASK,
    TaskRules,
    held_message,
    not_sent,
    retried_message,
    undo_refused,
)

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)
Focus = Literal["text", "multiline", "option_filter", "other"]


@dataclass
class View:
    focus: Focus = "other"
    selection_only: bool = False
    images: bool = False
    instructions: bool = False
    choices: set[str] = field(default_factory=set)

    def focus_kind(self) -> Focus:
        return self.focus

    def one_selection(self) -> bool:
        return self.selection_only

    def has_images(self) -> bool:
        return self.images

    def has_instructions(self) -> bool:
        return self.instructions

    def choice_takes(self, key: str) -> bool:
        return key in self.choices


# --- keys read before the task on screen was put there ------------------------------------------------


@pytest.mark.parametrize(
    ("key", "typed_by", "on_task", "refused"),
    [
        ("1", 9.0, True, True),  # typed before the task was shown: meant for the one before
        ("1", 10.0, True, False),  # typed as it was shown
        ("1", 11.0, True, False),
        ("1", 9.0, False, False),  # no task on screen, or leaving: nothing to protect
        ("enter", 9.0, True, True),
        *[(key, 9.0, True, False) for key in sorted(KEYS_FOR_NO_TASK)],  # they act on no task
    ],
)
def test_a_key_read_before_the_task_was_shown_is_refused_and_named(
    key: str, typed_by: float, on_task: bool, refused: bool
) -> None:
    rules = TaskRules(shown_at=10.0)
    assert rules.refuses_read_key(key, typed_by, on_task=on_task) is refused
    assert rules.refusal == (f"“{key}” was not applied: no task was on screen yet." if refused else "")


@pytest.mark.parametrize(
    ("ready", "key", "printable", "leaving", "refused"),
    [
        (False, "a", True, False, True),
        (False, "enter", False, False, True),
        (False, "down", False, False, False),  # not a key for a field: goes its way
        (False, "a", True, True, False),  # leaving: no word
        (True, "a", True, False, False),  # a task takes keys
    ],
)
def test_a_key_reaching_the_screen_while_no_task_takes_keys_is_refused(
    ready: bool, key: str, printable: bool, leaving: bool, refused: bool
) -> None:
    rules = TaskRules(ready=ready)
    assert rules.refuses_unready_key(key, printable=printable, leaving=leaving) is refused
    assert bool(rules.refusal) is refused


def test_a_decision_clears_the_key_refused_before_it_and_takes_keys_away() -> None:
    rules = TaskRules(ready=True)
    rules.not_applied("Enter")
    assert rules.said() == "Enter was not applied: no task was on screen yet."
    rules.decided()
    assert (rules.refusal, rules.ready) == ("", False)


# --- the double enter ----------------------------------------------------------------------------------


def submitted(first_at: float, *, shown_at: float) -> tuple[TaskRules, KeysRead]:
    keys = KeysRead()
    keys.read("enter", first_at)
    rules = TaskRules(shown_at=shown_at)
    rules.submitting(NOW, keys)
    return rules, keys


@pytest.mark.parametrize(
    ("second_at", "shown_at", "kind"),
    [
        (10.1, 10.05, "double"),  # within 0.3 s of the submit's enter
        (10.5, 10.4, "double"),  # late after the enter, but within 0.3 s of the task being shown (a stall)
        (10.8, 10.2, "unseen"),  # more than 0.3 s after both, but the task was shown 0.6 s ago
        (12.0, 10.2, None),  # the task was there long enough to be read
    ],
)
def test_a_second_enter_after_a_submit(second_at: float, shown_at: float, kind: str | None) -> None:
    rules, keys = submitted(10.0, shown_at=shown_at)
    keys.read("enter", second_at)
    assert rules.second_enter(keys) == kind
    assert rules.refuses_enter(keys, 42) is (kind is not None)
    if kind == "double":
        assert rules.message == "Enter again within 0.3 s of a submit: not applied to task 42."
    elif kind == "unseen":
        assert rules.message.startswith("Enter right after a submit, before task 42 could be read")


def test_a_second_enter_with_the_app_stopped_between_is_a_double_however_late() -> None:
    rules, keys = submitted(10.0, shown_at=10.1)
    keys.continued(15.0)
    keys.read("enter", 15.0)
    assert rules.second_enter(keys) == "double"


@pytest.mark.parametrize("between", ["a", "tab"])
def test_an_enter_after_another_key_is_a_first_enter(between: str) -> None:
    rules, keys = submitted(10.0, shown_at=10.05)
    keys.read(between, 10.06)
    keys.read("enter", 10.1)
    assert rules.second_enter(keys) is None


def test_an_enter_after_one_that_submitted_nothing_here_is_a_first_enter() -> None:
    keys = KeysRead()
    keys.read("enter", 10.0)  # it kept a note in a dialog, say
    rules = TaskRules(shown_at=10.05)
    rules.submitting(NOW, keys)
    keys.read("enter", 10.1)  # the enter that submits, then ...
    rules.submitting(NOW, keys)
    keys.read("enter", 10.2)  # ... its double
    assert rules.second_enter(keys) == "double"
    rules.submit_refused("Not sent: Category is required.")  # that submit did not go
    assert rules.second_enter(keys) is None


def test_the_windows_are_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task_rules, "UNSEEN_SECONDS", 60.0)
    rules, keys = submitted(10.0, shown_at=10.2)
    keys.read("enter", 30.0)
    assert rules.second_enter(keys) == "unseen"


# --- which action applies ------------------------------------------------------------------------------

LETTERS = ["skip", "undo", "zoom", "open_image"]


@pytest.mark.parametrize(
    ("action", "parameters", "view", "applies"),
    [
        ("submit", (), View(), True),
        ("submit", (), View(focus="text"), True),  # enter in a one-line field submits
        ("submit", (), View(focus="multiline"), False),  # a new line (ctrl+j submits)
        ("submit", (), View(focus="option_filter"), False),  # the filter picks with enter
        ("submit_anywhere", (), View(focus="multiline"), True),
        *[(letter, (), View(focus="text", images=True), False) for letter in LETTERS],
        *[(letter, (), View(focus="multiline", images=True), False) for letter in LETTERS],
        *[(letter, (), View(images=True), True) for letter in LETTERS],
        ("zoom", (), View(), False),  # no picture on this task
        ("open_image", (), View(), False),
        ("anywhere", ("zoom",), View(focus="text"), False),
        ("anywhere", ("zoom",), View(focus="text", images=True), True),  # f8 from inside a field
        ("anywhere", ("skip",), View(focus="text"), True),
        ("toggle_instructions", (), View(), False),
        ("toggle_instructions", (), View(instructions=True), True),
        ("toggle_submit_on_choice", (), View(), False),
        ("toggle_submit_on_choice", (), View(selection_only=True), True),
        ("escape", (), View(focus="text"), True),
        ("release_draft", (), View(focus="text"), True),
    ],
)
def test_which_action_applies(action: str, parameters: tuple[object, ...], view: View, applies: bool) -> None:
    assert TaskRules(ready=True).applies(action, parameters, view) is applies


@pytest.mark.parametrize(
    ("ready", "on", "selection_only", "key", "applies"),
    [
        (True, True, True, "1", True),
        (True, True, True, "7", False),  # the selection takes no 7
        (True, False, True, "1", False),  # submit on choice is off: the digit is the field's
        (True, True, False, "1", False),  # more than the one selection to fill
        (False, True, True, "1", False),  # no task takes keys
    ],
)
def test_a_choice_key_submits_only_with_submit_on_choice_on_a_lone_selection(
    ready: bool, on: bool, selection_only: bool, key: str, applies: bool
) -> None:
    rules = TaskRules(ready=ready, submit_on_choice=on)
    view = View(selection_only=selection_only, choices={"1", "2"})
    assert rules.applies("choice_key", (key,), view) is applies


@pytest.mark.parametrize(
    ("action", "applies"),
    [("escape", True), ("toggle_instructions", True), ("submit", False), ("skip", False), ("undo", False)],
)
def test_a_queue_that_needs_another_tool_leaves_only_back_and_the_instructions(
    action: str, applies: bool
) -> None:
    rules = TaskRules(ready=True, needs_another_tool=True)
    assert rules.applies(action, (), View(instructions=True)) is applies


# --- what the status line says -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("held", held_message(7)),
        (None, "Task 7 sent."),
        ("unsent", retried_message(7)),
        ("failed", ""),  # the refusal is its own notification
    ],
)
def test_the_held_submission_is_followed_to_the_server(state: str | None, said: str) -> None:
    rules = TaskRules(message=held_message(7))
    rules.outbox_said(7, state)
    assert rules.message == said


def test_a_retried_submission_is_said_sent_once_it_is_and_other_words_stay() -> None:
    rules = TaskRules(message=retried_message(7))
    rules.outbox_said(7, None)
    assert rules.message == "Task 7 sent."
    rules = TaskRules(message="Skipped task 8: it goes back to the queue.")
    rules.outbox_said(7, None)
    assert rules.message == "Skipped task 8: it goes back to the queue."


def test_why_a_submit_was_not_sent_and_when_the_word_goes() -> None:
    assert not_sent(["Category"]) == "Not sent: Category is required."
    assert not_sent(["Category", "Comment"]) == "Not sent: Category, Comment are required."
    assert not_sent([]) == "Not sent: fix the fields marked in red."
    rules = TaskRules()
    rules.submit_refused(not_sent(["Category"]))
    assert not rules.typed(lambda: {"category": "required"})  # still wrong: the word stays
    assert rules.message.startswith("Not sent:")
    assert rules.typed(dict)  # fixed
    assert rules.message == ""
    asked: list[int] = []
    rules.message = held_message(3)
    assert not rules.typed(lambda: asked.append(1))  # another word: the fields are not read
    assert asked == []


def test_undo_refused_says_why() -> None:
    assert undo_refused(None) == "Nothing to undo."
    assert undo_refused(5) == "Too late to undo: task 5 was already sent."


def test_the_second_line_holds_the_word_and_the_key_refused() -> None:
    rules = TaskRules(message=held_message(2))
    assert rules.said() == held_message(2)
    rules.not_applied("“s”")
    assert rules.said() == f"{held_message(2)} “s” was not applied: no task was on screen yet."
    assert rules.said("") == "“s” was not applied: no task was on screen yet."
