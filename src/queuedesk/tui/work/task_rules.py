"""The rules of the work screen's keys and words, without a screen: which key applies when, what a key
refused says, the double-`enter` guard, and what the status line says of the last submission.

The screen (`screens/work.py`) keeps one `TaskRules` and asks it; the review screen's own rules are
beside `ReviewSession` (`tui/review/review_rules.py`). Nothing here reads Textual: what the screen
shows is asked through `TaskView`, so each rule is tested in the fast tier (`tests/unit/test_task_rules.py`).

The double `enter`: a second `enter` within `DOUBLE_ENTER_SECONDS` of a submit is refused, though the
next task may already be there: it was meant for the task just sent. So is one with no key between it
and the submit's, read within `UNSEEN_SECONDS` of the next task being shown: an app starved of the
processor reads a double `enter` typed 80 ms apart further apart than that window, and the task would
go unseen and empty; a third `enter` sends it as it is.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from queuedesk.tui.keys.keys_read import KeysRead

DOUBLE_ENTER_SECONDS = 0.3
# Shorter than anyone reads a task and decides to send it untouched; longer than a loaded machine
# keeps a key typed after a submit's enter from the app (the typing fuzzer saw more than 0.3 s).
UNSEEN_SECONDS = 1.0
NOT_SENT = "Not sent:"
SELECTION_TYPES = ("single_selection", "multiple_selection", "binary")
CHOICE_KEYS = (*"1234567890", "y", "n")
# Keys that act on no task on screen (leave, undo the last submission, help, quit): never refused.
KEYS_FOR_NO_TASK = frozenset(
    {"escape", "u", "f7", "f1", "question_mark", "ctrl+q", "ctrl+c", "f2", "ctrl+up", "ctrl+down"}
)
# The single-letter actions: letters are text inside a field (f6 to f9 do the same from anywhere).
LETTER_ACTIONS = ("skip", "undo", "zoom", "open_image")
IMAGE_ACTIONS = ("zoom", "open_image")

SecondEnter = Literal["double", "unseen"]
OutboxState = Literal["held", "unsent", "failed"] | str | None


def held_message(task_id: int) -> str:
    return f"Task {task_id} sent in 5 s — u undoes."


def recorded_message(task_id: int) -> str:
    """A submission in a consensus queue (B21) reached the server and the task still collects answers."""
    return f"Task {task_id}: answer recorded. It is done once enough workers agree."


def retried_message(task_id: int) -> str:
    return f"Task {task_id} not sent yet: the server did not answer; it is retried."


def not_applied(key: str) -> str:
    """A key for the task on screen while there is none: said out loud, never dropped silently."""
    return f"{key} was not applied: no task was on screen yet."


def not_sent(missing: list[str]) -> str:
    """Why a submit was refused on this side: the required blocks left empty, else the red ones."""
    if not missing:
        return f"{NOT_SENT} fix the fields marked in red."
    return f"{NOT_SENT} {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} required."


def undo_refused(last_task_id: int | None) -> str:
    return (
        "Nothing to undo."
        if last_task_id is None
        else f"Too late to undo: task {last_task_id} was already sent."
    )


def enter_refused(kind: SecondEnter, task_id: int) -> str:
    if kind == "double":
        return f"Enter again within {DOUBLE_ENTER_SECONDS:g} s of a submit: not applied to task {task_id}."
    return (
        f"Enter right after a submit, before task {task_id} could be read: not applied; "
        "press enter again to send it as it is."
    )


class TaskView(Protocol):
    """What the rules ask of the screen: what has the focus and what the task on screen holds."""

    def focus_kind(self) -> Literal["text", "multiline", "option_filter", "other"]:
        """A one-line field, a multi-line field, the options' filter, or anything else (or nothing)."""
        ...

    def one_selection(self) -> bool:
        """The form has a single field, and it is a selection."""
        ...

    def has_images(self) -> bool: ...

    def has_instructions(self) -> bool: ...

    def choice_takes(self, key: str) -> bool:
        """The focused selection would take `key` as a choice that submits (see `TaskRules.choice_editor`)."""
        ...


@dataclass
class TaskRules:
    """The screen's state for its keys and words: whether the task on screen takes keys, the last thing
    said and the last key refused, the submit a second `enter` is measured from."""

    ready: bool = False  # the task on screen was painted: keys are for it
    message: str = ""
    refusal: str = ""  # the last key refused, until the next decision
    submitted_at: datetime | None = None
    submit_key: tuple[str, float] | None = None  # the key read (KeysRead's own entry) that submitted last
    shown_at: float = 0.0  # when the task on screen was put there (on the keys' clock)
    submit_on_choice: bool = False
    choice_by_key: bool = False  # a choice key submits: its `Chosen` message is no second submit
    needs_another_tool: bool = False  # a block no editor here can fill: only back (and help) apply

    # --- keys refused ------------------------------------------------------------------------------

    def refuses_read_key(self, key: str, typed_by: float, *, on_task: bool) -> bool:
        """A key read (`typed_by` at the latest) before the task on screen was put there was meant for
        the one before: refused and said, unless it acts on no task, or no task is on screen
        (`on_task`: one is, and the worker is not leaving)."""
        if not on_task or typed_by >= self.shown_at or key in KEYS_FOR_NO_TASK:
            return False
        self.refusal = not_applied(f"“{key}”")
        return True

    def refuses_unready_key(self, key: str, *, printable: bool, leaving: bool) -> bool:
        """A key that reached the screen itself while no task takes keys (no field has the focus)."""
        if self.ready or leaving or not (printable or key == "enter"):
            return False
        self.refusal = not_applied(f"“{key}”")
        return True

    def not_applied(self, key: str) -> None:
        self.refusal = not_applied(key)

    def decided(self) -> None:
        """A decision key was read: the word about a key refused before it goes."""
        self.refusal = ""
        self.ready = False

    # --- the double enter ----------------------------------------------------------------------------

    def second_enter(self, keys: KeysRead) -> SecondEnter | None:
        """What the `enter` just read is: "double" when it follows the enter of a submit with no key
        between, within `DOUBLE_ENTER_SECONDS` of it, or of this task being put on screen (after a
        stall both come at once, whatever time the worker left between them), or with the app stopped
        between the two (read apart by the stop, however close they were typed); "unseen" when it
        follows it so within `UNSEEN_SECONDS` of this task being shown. An enter that submitted nothing
        here (it kept a note in a dialog, say) is no first enter."""
        if self.submitted_at is None or not keys.repeated("enter") or keys.before is not self.submit_key:
            return None
        if (
            keys.repeated_within("enter", DOUBLE_ENTER_SECONDS)
            or keys.read_within(DOUBLE_ENTER_SECONDS, self.shown_at)
            or keys.stopped_between()
        ):
            return "double"
        return "unseen" if keys.read_within(UNSEEN_SECONDS, self.shown_at) else None

    def refuses_enter(self, keys: KeysRead, task_id: int) -> bool:
        """`enter` on task `task_id`: refused (and said) when it is a second one (`second_enter`)."""
        second = self.second_enter(keys)
        if second is None:
            return False
        self.message = enter_refused(second, task_id)
        return True

    def submitting(self, now: datetime, keys: KeysRead) -> None:
        self.submitted_at = now
        self.submit_key = keys.last

    def submit_refused(self, message: str) -> None:
        """The submit did not go (values refused here): the next `enter` is a first one again."""
        self.submitted_at = None
        self.message = message

    # --- which action applies ----------------------------------------------------------------------

    def applies(self, action: str, parameters: tuple[object, ...], view: TaskView) -> bool:
        """Whether the work screen's `action` applies now (the footer shows it; its key acts)."""
        if self.needs_another_tool and action not in ("escape", "toggle_instructions"):
            return False
        if action == "toggle_submit_on_choice":
            return view.one_selection()
        if action == "toggle_instructions":
            return view.has_instructions()
        if action == "choice_key":
            return self.submits_on_choice(view) and view.choice_takes(str(parameters[0]))
        focus = view.focus_kind()
        if action == "submit" and focus != "other":
            # A new line in a multi-line field; the options' filter picks with enter. (ctrl+j submits.)
            return focus == "text"
        if (
            action in IMAGE_ACTIONS
            or (action == "anywhere" and parameters and parameters[0] in IMAGE_ACTIONS)
        ) and (not view.has_images()):
            return False
        return not (action in LETTER_ACTIONS and focus in ("text", "multiline", "option_filter"))

    def submits_on_choice(self, view: TaskView) -> bool:
        """A choice submits the task: "submit on choice" is on and the form's one field is a selection."""
        return self.ready and self.submit_on_choice and view.one_selection()

    # --- what the status line says -----------------------------------------------------------------

    def outbox_said(self, task_id: int, state: OutboxState, outcome: str | None = None) -> None:
        """ "sent in 5 s — u undoes" holds only while the last submission (of `task_id`, in the outbox
        as `state`: None once sent) waits for its grace. Once sent, an answer that left its task open
        (`outcome`, B21: waiting for other workers' answers) is said to be recorded, not done."""
        if self.message not in (held_message(task_id), retried_message(task_id)):
            return
        if state is None:
            self.message = recorded_message(task_id) if outcome == "open" else f"Task {task_id} sent."
        elif state == "unsent":
            self.message = retried_message(task_id)
        elif state == "failed":
            self.message = ""  # the refusal is its own notification, with the values typed

    def typed(self, problems: Callable[[], object]) -> bool:
        """The worker changed a value: the word about what was wrong goes once it is fixed (`problems`
        asked only then: it reads every field). Whether it went."""
        if self.message.startswith(NOT_SENT) and not problems():
            self.message = ""
            return True
        return False

    def said(self, message: str | None = None) -> str:
        """The status line's second line: the last thing said (or `message` in its place) and the key refused."""
        return " ".join(part for part in (self.message if message is None else message, self.refusal) if part)
