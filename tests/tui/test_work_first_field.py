"""Every editor as a task's first field, the task before left from another field, with the keys in
the app's queue at once: the app never freezes, and the next task's keys reach its first field.

Before the fix, a `list`, `text_sequence` or `form_sequence` first field froze the whole app on the
second task: its `set_value` recomposed, removing the text area the new task had just focused.
Against a real `queuedesk serve`; helpers from `test_work`.
"""

from typing import Any

import httpx
import pytest
from textual.content import Content
from textual.widgets import Static

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from tests.conftest import make_queue
from tests.support.pilot import until
from tests.tui.conftest import MakeApp
from tests.tui.test_work import (
    MESSAGE,
    NOTE,
    OPTIONS,
    PAST_GRACE,
    SIZE,
    add_tasks,
    advance,
    completed,
    form_of,
    shown_task,
    start_work,
    work,
)
from tests.tui.test_work_bursts import burst

ENTITY_TEXT = "Alice met Bob"
LABELS = {"labels": [{"id": "PER", "name": "Person"}]}


def block(type_name: str, **settings: Any) -> dict[str, Any]:
    return {"id": "first", "name": "First", "type": type_name, **({type_name: settings} if settings else {})}


# Each block type a worker fills: the block, its value in a new task, the keys that give it a value
# there, and that value.
FIRST_FIELDS: dict[str, tuple[dict[str, Any], Any, list[str], Any]] = {
    "list": (block("list"), None, ["a", "enter", "b"], ["a", "b"]),
    "text_sequence": (block("text_sequence"), None, ["x"], ["x"]),
    "form_sequence": (block("form_sequence"), None, ["{", "}"], {}),
    "text": (block("text"), None, ["h", "i"], "hi"),
    "number": (block("number"), None, ["4", "2"], 42),
    "email": (block("email"), None, [*"a@b.co"], "a@b.co"),
    "date": (block("date"), None, [*"2026-01-02"], "2026-01-02"),
    "binary": (block("binary"), None, ["y"], True),
    "single_selection": (block("single_selection", options=OPTIONS), None, ["2"], "blue"),
    "multiple_selection": (block("multiple_selection", options=OPTIONS), None, ["1", "3"], ["red", "green"]),
    "named_entity_recognition": (
        block("named_entity_recognition", **LABELS),
        {"text": ENTITY_TEXT, "entities": []},
        ["1"],
        {"text": ENTITY_TEXT, "entities": [{"start": 0, "end": 5, "label": "PER"}]},
    ),
}


@pytest.mark.parametrize("type_name", FIRST_FIELDS)
async def test_every_editor_as_first_field_takes_the_next_tasks_keys_after_a_submit_from_another_field(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int, type_name: str
) -> None:
    first, new_value, keys, expected = FIRST_FIELDS[type_name]
    queue = make_queue(admin, org_id, [MESSAGE, first, NOTE], label="First field")
    one, two = add_tasks(admin, org_id, queue, [{"message": m, "first": new_value} for m in "ab"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == one
        burst(app, "tab", "h", "i", "ctrl+j")  # left from the note: submitted from the field after it
        assert await shown_task(app, pilot, two) == two
        burst(app, *keys, "ctrl+j")  # a frozen app never sends this one
        await until(app, pilot, lambda: work(app).current is None, "the second task is sent")
        await advance(app, pilot, clock, PAST_GRACE)
        done = completed(admin, org_id, queue)
        assert done.keys() == {one, two}, done
    assert (done[one]["data"]["note"], done[one]["data"]["first"]) == ("hi", new_value)
    assert done[two]["data"]["first"] == expected


async def test_ctrl_n_in_a_burst_breaks_the_line_where_it_was_typed_and_only_on_its_task(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """`ab ctrl+n cd` in one burst was "abcd\\n" (the keys after `ctrl+n` reached the one-line field
    before it became the area); and the area stayed on the next tasks, where `enter` then added a
    line break instead of submitting ("single\\n" recorded)."""
    queue = make_queue(admin, org_id, [MESSAGE, NOTE], label="New lines")
    one, two, three = add_tasks(admin, org_id, queue, [{"message": m} for m in "abc"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == one
        burst(app, "a", "b", "ctrl+n", "c", "d", "ctrl+n", "ctrl+n", "e", "ctrl+j")
        assert await shown_task(app, pilot, two) == two
        burst(app, *"single", "enter")  # one line again: enter submits
        assert await shown_task(app, pilot, three) == three
        await advance(app, pilot, clock, PAST_GRACE)
        done = completed(admin, org_id, queue)
    assert {task_id: done[task_id]["data"]["note"] for task_id in done} == {one: "ab\ncd\n\ne", two: "single"}


def cursor_shown(app: QueueDeskApp) -> bool:
    """Whether the entity editor's text shows its word cursor (the span in reverse)."""
    text = form_of(app).query_one(".ner-text", Static).visual
    return isinstance(text, Content) and any("reverse" in str(span.style) for span in text.spans)


async def test_the_entity_cursor_shows_at_once_and_starts_on_each_tasks_first_word(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, org_id: int
) -> None:
    """The word cursor was drawn only once moved, and two tasks in a row with the same text kept it
    where the first left it: `1` labelled "Bob" instead of "Alice"."""
    first = FIRST_FIELDS["named_entity_recognition"][0]
    queue = make_queue(admin, org_id, [MESSAGE, first], label="Entities")
    value = {"text": ENTITY_TEXT, "entities": []}
    one, two = add_tasks(admin, org_id, queue, [{"message": m, "first": value} for m in "ab"])
    app = make_app("worker")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await start_work(app, pilot, queue) == one
        await until(app, pilot, lambda: cursor_shown(app), "the word cursor is shown")
        burst(app, "right", "right", "1", "ctrl+j")  # Bob
        assert await shown_task(app, pilot, two) == two
        await until(app, pilot, lambda: cursor_shown(app), "the word cursor is shown")
        burst(app, "1", "ctrl+j")  # Alice: the first word of this task
        await until(app, pilot, lambda: work(app).current is None, "the second task is sent")
        await advance(app, pilot, clock, PAST_GRACE)
        done = completed(admin, org_id, queue)
    assert [done[task_id]["data"]["first"]["entities"] for task_id in (one, two)] == [
        [{"start": 10, "end": 13, "label": "PER"}],
        [{"start": 0, "end": 5, "label": "PER"}],
    ]
