"""Blocks beyond the core three, worked by keyboard against a real `queuedesk serve` (issue 27):
named entities marked in the task's text, lists typed one item per line, a form sequence as JSON.

The keys go in as bursts (`burst`, all queued before the app reads one), the way a fast worker or
a terminal after a stall delivers them.
"""

import httpx
from textual import events

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.forms.named_entities import NamedEntityEditor
from queuedesk.tui.modals.keys import KeysScreen
from tests.conftest import make_queue
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import shows
from tests.tui.test_work import (
    MESSAGE,
    PAST_GRACE,
    add_tasks,
    advance,
    completed,
    form_of,
    start_work,
    work,
)

TEXT = "Alice met Bob at ACME, Inc. today"
ENTITIES = {
    "id": "entities",
    "name": "Entities",
    "type": "named_entity_recognition",
    "named_entity_recognition": {
        "labels": [{"id": "PER", "name": "Person"}, {"id": "ORG", "name": "Company"}]
    },
}
TAGS = {"id": "tags", "name": "Tags", "type": "list"}
STEPS = {"id": "steps", "name": "Steps", "type": "form_sequence"}


def burst(app: object, *keys: str) -> None:
    """Every key queued for the app at once (named keys, or one character each)."""
    named = {"enter": "\r", "backspace": "\x7f", "tab": "\t", "ctrl+j": "\n"}
    for key in keys:
        character = named.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))  # type: ignore[attr-defined]


async def test_entities_are_marked_by_keyboard_in_a_burst_and_stored_as_spans_of_the_text(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, ENTITIES], label="Work")
    (task_id,) = add_tasks(
        admin, org_id, queue, [{"message": "tag the names", "entities": {"text": TEXT, "entities": []}}]
    )
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        editor = form_of(app).query_one(NamedEntityEditor)
        assert app.focused is editor
        assert shows(app, "1 Person  2 Company   0 marked"), screen_text(app)
        assert shows(app, "←→ ⇧←→ span · ⌫ unmark"), screen_text(app)
        # Alice: 1. Bob (two words on): 1. "ACME, Inc." (three tokens more): 2. A label past the
        # block's: refused in words. Back to Bob (up) and unmark him. Then submit.
        burst(app, "1", "right", "right", "1", "right", "right", "shift+right", "shift+right")
        burst(app, "shift+right", "2", "3")
        await settle(app, pilot)
        assert editor.shown_problem == "no label 3 (1\u20132)"
        assert shows(app, "Alice[Person] met Bob[Person] at ACME,"), screen_text(app)
        assert shows(app, "Inc.[Company] today") and shows(app, "3 marked"), screen_text(app)
        await pilot.press("f1")  # every key of the field, with its labels' numbers
        await until(app, pilot, lambda: isinstance(app.screen, KeysScreen), "f1 shows the keys")
        assert shows(app, "shift+←→ extend the span · 1\u20132 label it"), screen_text(app)
        await pilot.press("escape")
        await until(app, pilot, lambda: not isinstance(app.screen, KeysScreen), "the keys are closed")
        burst(app, "up", "backspace", "enter")
        await settle(app, pilot)
        await advance(app, pilot, clock, PAST_GRACE)
        await until(app, pilot, lambda: task_id in completed(admin, org_id, queue), "the task is sent")
    stored = completed(admin, org_id, queue)[task_id]["data"]["entities"]
    assert stored == {
        "text": TEXT,
        "entities": [{"start": 0, "end": 5, "label": "PER"}, {"start": 17, "end": 27, "label": "ORG"}],
    }
    assert TEXT[0:5] == "Alice" and TEXT[17:27] == "ACME, Inc."


async def test_a_list_is_typed_one_item_per_line_and_a_form_sequence_as_json(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id, [MESSAGE, TAGS, STEPS], label="Work")
    (task_id,) = add_tasks(admin, org_id, queue, [{"message": "list what you see", "tags": ["given"]}])
    app = make_app("worker")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        assert form_of(app).editor("tags").value() == ["given"]
        assert shows(app, "enter next item"), screen_text(app)
        # In the list, enter is the next item; tab goes on to the sequence; ctrl+j submits.
        burst(app, "enter", *"red ", "enter", "enter", *" blue", "tab", *'{"steps": [1, 2]}')
        await settle(app, pilot)
        assert form_of(app).values()["tags"] == ["given", "red", "blue"]
        burst(app, "ctrl+j")
        await settle(app, pilot)
        await advance(app, pilot, clock, PAST_GRACE)
        await until(app, pilot, lambda: task_id in completed(admin, org_id, queue), "the task is sent")
        assert work(app).current is None or work(app).current.id != task_id
    data = completed(admin, org_id, queue)[task_id]["data"]
    assert data["tags"] == ["given", "red", "blue"]
    assert data["steps"] == {"steps": [1, 2]}


async def test_a_long_text_scrolls_in_its_window_with_the_cursor_and_the_labels_stay_in_view(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    long_text = " ".join(f"Sentence {n}: Alice wrote to ACME." for n in range(1, 80))
    queue = make_queue(admin, org_id, [MESSAGE, ENTITIES], label="Work")
    add_tasks(admin, org_id, queue, [{"message": "m", "entities": {"text": long_text, "entities": []}}])
    app = make_app("worker")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await start_work(app, pilot, queue)
        assert shows(app, "Sentence 1:") and not shows(app, "Sentence 79:")
        burst(app, "end", "shift+left", "2")  # "ACME." at the very end: a company
        await settle(app, pilot)
        assert shows(app, "Sentence 79:") and shows(app, "1 Person  2 Company"), screen_text(app)
        assert not shows(app, "Sentence 1:")
        burst(app, "home")
        await settle(app, pilot)
        assert shows(app, "Sentence 1:") and shows(app, "1 Person  2 Company"), screen_text(app)
        value = form_of(app).values()["entities"]
        assert value["entities"] == [{"start": len(long_text) - 5, "end": len(long_text), "label": "ORG"}]
