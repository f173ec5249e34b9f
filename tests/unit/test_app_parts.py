"""The app's parts (`tui/app_parts/`) on stand-ins for the app and its screens: no server, no terminal.

A screen holding a task is known by its shape (`HoldsWork`), so leaving work never imports the work
and review screens; what reached the server late is said once, in the words that fit."""

import asyncio
import subprocess
import sys
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from queuedesk.tui.app_parts.holds_work import HoldsWork
from queuedesk.tui.app_parts.quitting import Quitting
from queuedesk.tui.app_parts.screen_shapes import FollowsRole, LimitedByRole, RefusesEarlyKeys
from queuedesk.tui.app_parts.unsent_work import MAX_LISTED, UnsentWork
from queuedesk.tui.work.journal import Entry


@dataclass
class HoldingScreen:
    """What the work and review screens offer the app, as plain Python."""

    queue: Any
    last_submission: tuple[str, Any] | None = None
    left: list[bool] = field(default_factory=list)
    taken_back: list[str] = field(default_factory=list)

    def take_back(self, entry: Entry) -> None:
        self.taken_back.append(entry.id)

    async def leave(self, *, send: bool = True) -> None:
        self.left.append(send)


class ListScreen:
    """A screen with a queue but no task (the queue screen): it holds no work."""

    queue = SimpleNamespace(id=1)


class Notes:
    def __init__(self, *screens: object) -> None:
        self.screen_stack = list(screens)
        self.screen = self.screen_stack[-1]
        self.said: list[tuple[str, str]] = []

    def notify(self, message: str, *, title: str = "", **_: object) -> None:
        self.said.append((title, message))


def entry(n: int, queue_id: int = 1, **extra: object) -> Entry:
    return Entry(f"e{n}", queue_id, "Cats", 100 + n, {"label": "cat"}, extra=dict(extra))


def test_a_screen_holds_work_by_its_shape() -> None:
    assert isinstance(HoldingScreen(SimpleNamespace(id=1)), HoldsWork)
    assert not isinstance(ListScreen(), HoldsWork)
    assert not isinstance(object(), HoldsWork)


def test_leaving_work_leaves_every_screen_holding_a_task_and_only_those() -> None:
    below, top = HoldingScreen(SimpleNamespace(id=1)), HoldingScreen(SimpleNamespace(id=2))
    app: Any = Notes(ListScreen(), below, ListScreen(), top)
    asyncio.run(Quitting(app).leave_work(send=False))
    assert below.left == [False] and top.left == [False]


def test_leaving_work_from_the_queue_list_imports_no_work_or_review_screen() -> None:
    program = (
        "import asyncio, sys\n"
        "from types import SimpleNamespace\n"
        "from queuedesk.tui.app import QueueDeskApp\n"
        "from queuedesk.tui.app_parts.quitting import Quitting\n"
        "app = SimpleNamespace(screen_stack=[SimpleNamespace(queue=SimpleNamespace(id=1))])\n"
        "asyncio.run(Quitting(app).leave_work(send=True))\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    screens = {"queuedesk.tui.screens.work", "queuedesk.tui.screens.review", "queuedesk.tui.panes.task_pane"}
    assert screens.isdisjoint(loaded.stdout.split())


def test_a_refused_submission_goes_back_to_the_screens_of_its_queue_and_is_said() -> None:
    mine, other = HoldingScreen(SimpleNamespace(id=1)), HoldingScreen(SimpleNamespace(id=2))
    app: Any = Notes(ListScreen(), mine, other)
    refused = entry(1)
    refused.error = "label: not one of the options."
    UnsentWork(app, lambda: None).submission_refused(refused)
    assert mine.taken_back == ["e1"] and other.taken_back == []
    ((title, said),) = app.said
    assert title == "Submission refused"
    assert (
        "Task 101 in Cats was not accepted: label: not one of the options. What you entered: label='cat'."
        in said
    )


@pytest.mark.parametrize(
    ("left_before", "extra", "words"),
    [
        (True, {}, "Left unsent when QueueDesk last closed, now sent: "),
        (False, {}, "Sent now that the server answers again: "),
        (False, {"key_refused": True}, "Kept when the server refused the key, now sent with this one: "),
    ],
)
def test_work_sent_late_is_said_once_in_the_words_that_fit(
    left_before: bool, extra: dict[str, object], words: str
) -> None:
    app: Any = Notes(ListScreen())
    UnsentWork(app, lambda: None).sent_late([entry(1, **extra), entry(2, **extra)], left_before)
    assert app.said == [("Unsent work sent", f"{words}task 101 (Cats), task 102 (Cats).")]


def test_the_screen_that_says_its_own_last_submission_is_not_told_again() -> None:
    screen = HoldingScreen(SimpleNamespace(id=1), last_submission=("e1", None))
    app: Any = Notes(screen)
    UnsentWork(app, lambda: None).sent_late([entry(1)], False)
    assert app.said == []
    UnsentWork(app, lambda: None).sent_late([entry(1), entry(2)], False)
    assert app.said == [("Unsent work sent", "Sent now that the server answers again: task 102 (Cats).")]


def test_a_long_list_names_the_first_few_and_counts_the_rest() -> None:
    app: Any = Notes(ListScreen())
    UnsentWork(app, lambda: None).sent_late([entry(n) for n in range(MAX_LISTED + 3)], True)
    ((_, said),) = app.said
    assert said.count("task ") == MAX_LISTED and said.endswith(", 3 more.")


def test_the_screens_have_the_shapes_the_app_asks_of_them() -> None:
    """By shape, not by name: a screen whose method is renamed is no longer asked (and this fails)."""
    from queuedesk.tui.screens.people_screen import PeopleScreen
    from queuedesk.tui.screens.queue import QueueScreen
    from queuedesk.tui.screens.queues import QueuesScreen
    from queuedesk.tui.screens.review import ReviewScreen
    from queuedesk.tui.screens.work import WorkScreen

    assert issubclass(WorkScreen, RefusesEarlyKeys) and issubclass(ReviewScreen, RefusesEarlyKeys)
    assert issubclass(PeopleScreen, LimitedByRole) and issubclass(QueueScreen, FollowsRole)
    # Every screen holds keys in order (`AppScreen.refuses_key`); only some follow or are limited by the role.
    assert issubclass(QueuesScreen, RefusesEarlyKeys)
    assert not issubclass(QueuesScreen, LimitedByRole | FollowsRole)
