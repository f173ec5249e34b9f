"""A headless typing fuzzer for every editor the work screen has: queues built with each editable
block type as the first field (a note and another type after it), keys for each task typed as one
burst in the app's queue, mixing the editors' own keys (`ctrl+n`, list `enter`, the entity keys,
digits, letters) with `tab` and `shift+tab`, and ending with a decision (`ctrl+j`, `ctrl+s`, `f6`)
or `escape`. Against a real `queuedesk serve`.

A frozen app is found on its own: after each burst the task on screen (its marker) must change, and
the focus must be on a widget still on the screen; at the end `ctrl+q` must end the app. Before the
fix of issue 42 a `list`, `text_sequence` or `form_sequence` first field froze the app on the second
task. The seed is printed; `QD_FUZZ_SEED=<n>` replays a run, `QD_FUZZ_TASKS=<n>` makes it longer.
"""

import os
import random
from typing import Any

import httpx

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.screens.work import WorkScreen
from tests.conftest import make_queue
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_work import NOTE, OPTIONS, SIZE, add_tasks, open_work, shown_task, start_work, work
from tests.tui.test_work_bursts import burst
from tests.tui.test_work_first_field import ENTITY_TEXT, LABELS, block

MARKER = {"id": "marker", "name": "Marker", "type": "text", "text": {"read_only": True}}
LETTERS = ["a", "b", "c", "x", " "]
COMMON = ["tab", "shift+tab", "ctrl+n", "backspace", *LETTERS]
# Each editable type: its block, the value a new task brings, and the keys its editor offers.
EDITORS: dict[str, tuple[dict[str, Any], Any, list[str]]] = {
    "list": (block("list"), None, ["enter", *LETTERS]),
    "text_sequence": (block("text_sequence"), None, ["enter", *LETTERS]),
    "form_sequence": (block("form_sequence"), None, ["{", "}", "enter"]),
    "text": (block("text"), None, ["ctrl+n", *LETTERS]),
    "number": (block("number"), None, ["1", "2", "backspace"]),
    "email": (block("email"), None, ["a", "@", ".", "b"]),
    "date": (block("date"), None, ["2", "0", "-"]),
    "binary": (block("binary"), None, ["y", "n", "space"]),
    "single_selection": (block("single_selection", options=OPTIONS), None, ["1", "2", "3", "down", "space"]),
    "multiple_selection": (block("multiple_selection", options=OPTIONS), None, ["1", "3", "space", "down"]),
    "named_entity_recognition": (
        block("named_entity_recognition", **LABELS),
        {"text": ENTITY_TEXT, "entities": []},
        ["right", "left", "shift+right", "1", "backspace", "end", "home"],
    ),
}
# Last, as nothing typed after a way out of the screen is for it (`escape` leaves the queue unless it
# only left a text field: the task then stays, and `f6` skips it).
DECISIONS = ["ctrl+j", "ctrl+j", "ctrl+s", "f6", "escape"]


def second_block(type_name: str) -> dict[str, Any]:
    return {**EDITORS[type_name][0], "id": "second", "name": "Second"}


def task_keys(rng: random.Random, first: str, second: str) -> list[str]:
    offered = [*EDITORS[first][2], *EDITORS[second][2], *COMMON]
    return [rng.choice(offered) for _ in range(rng.randint(0, 12))] + [rng.choice(DECISIONS)]


def focus_on_screen(app: QueueDeskApp) -> bool:
    focused = app.screen.focused
    return focused is None or focused.is_attached


async def test_every_editor_first_with_random_keys_never_freezes_the_app(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    seed = int(os.environ.get("QD_FUZZ_SEED", random.randrange(1_000_000)))
    tasks_each = int(os.environ.get("QD_FUZZ_TASKS", 3))
    print(f"editor fuzz seed {seed} (QD_FUZZ_SEED={seed} replays it)")
    rng = random.Random(seed)
    types = list(EDITORS)
    rng.shuffle(types)
    shapes = [(first, rng.choice(types)) for first in types]
    queues = []  # all made before the app starts: its queue list shows them without a refresh
    for first, second in shapes:
        blocks = [MARKER, EDITORS[first][0], NOTE, second_block(second)]
        queue = make_queue(admin, org_id, blocks, label=f"Fuzz {first}")
        items = [
            {"marker": f"FUZZ-{n}", "first": EDITORS[first][1], "second": EDITORS[second][1]}
            for n in range(tasks_each)
        ]
        queues.append((first, second, queue, add_tasks(admin, org_id, queue, items)))
    app = make_app("worker")
    typed_for = 0
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for first, second, queue, ids in queues:
            shown = await start_work(app, pilot, queue)
            for _ in ids:
                keys = task_keys(rng, first, second)
                burst(app, *keys)
                await settle(app, pilot)
                where = f"seed {seed}, {first} first, {second} after, task {shown}, keys {keys}"
                assert focus_on_screen(app), f"the focus is on a widget gone from the screen: {where}"
                if not isinstance(app.screen, WorkScreen):  # `escape` out of the fields left the queue
                    await open_work(app, pilot, queue)
                    await until(app, pilot, lambda: isinstance(app.screen, WorkScreen), f"back: {where}")
                    await until(app, pilot, lambda: work(app).ready or work(app).current is None, where)
                    typed_for += 1
                    if work(app).current is None:
                        break
                    shown = await shown_task(app, pilot)
                    continue
                if work(app).current is not None and work(app).current.id == shown and work(app).ready:
                    burst(app, "f6")  # values the block refused: the task stays, skip leaves it
                await until(
                    app,
                    pilot,
                    lambda shown=shown: work(app).current is None or work(app).current.id != shown,
                    f"the app to take the next task (frozen?): {where}",
                )
                typed_for += 1
                if work(app).current is None:
                    break
                shown = await shown_task(app, pilot)
            for _ in range(3):  # out of a text field, then out of the queue
                if isinstance(app.screen, WorkScreen):
                    burst(app, "escape")
                    await settle(app, pilot)
            await until(app, pilot, lambda: not isinstance(app.screen, WorkScreen), f"leaving, seed {seed}")
        burst(app, "ctrl+q")
        await until(app, pilot, lambda: app.return_code is not None, f"ctrl+q to end the app, seed {seed}")
    print(f"editor fuzz seed {seed}: {typed_for} tasks typed for over {len(shapes)} queue shapes")
    assert typed_for >= len(shapes)
