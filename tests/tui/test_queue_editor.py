"""The queue editor (admins) against a real `queuedesk serve`: create a queue with a selection block
end to end, reorder blocks, a duplicate block id refused on its field before anything is sent, the
confirmation before changing the blocks of a queue with tasks, and discarding changes."""

import itertools

import httpx
from textual.widgets import Input, TextArea

from queuedesk.tui.admin.queue_edit import who_is_affected
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.modals.block_type_picker import BlockTypePicker
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.queue_editor import QueueEditorScreen
from queuedesk.tui.screens.queues import QueuesScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.widgets.block_list import BlockList
from queuedesk.tui.widgets.block_settings import BlockSettings
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.conftest import make_queue
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, home, notes, shows

SIZE = (120, 40)
_names = itertools.count(1)


def editor(app: QueueDeskApp) -> QueueEditorScreen:
    assert isinstance(app.screen, QueueEditorScreen), type(app.screen)
    return app.screen


async def open_editor(app: QueueDeskApp, pilot, key: str, queue_id: int | None = None) -> QueueEditorScreen:
    screen = await home(app, pilot)
    if queue_id is not None:
        await until(app, pilot, lambda: any(q.id == queue_id for q in screen.queues), "the queue listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue_id)))
    await pilot.press(key)
    await until(
        app,
        pilot,
        lambda: isinstance(app.screen, QueueEditorScreen) and app.screen.edit.saved_state is not None,
        "the editor loaded",
    )
    await pilot.pause()
    return editor(app)


async def set_field(app: QueueDeskApp, pilot, selector: str, value: str) -> None:
    field = app.screen.query_one(selector)
    if isinstance(field, TextArea):
        field.load_text(value)
    else:
        assert isinstance(field, Input)
        field.value = value
    await pilot.pause()


def queues_named(admin: httpx.Client, org_id: int, name: str) -> list[dict]:
    return [q for q in admin.get(f"/orgs/{org_id}/queues").json() if q["name"] == name]


async def test_create_a_queue_with_a_selection_block(make_app: MakeApp, admin, org_id) -> None:
    name = f"Editor made {next(_names)}"
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_editor(app, pilot, "N")
        assert shows(app, "No blocks yet: ctrl+n adds one.")
        await set_field(app, pilot, "#queue-name", name)
        await set_field(app, pilot, "#queue-description", "Sorted by the editor's test")

        await pilot.press("ctrl+n")
        await until(app, pilot, lambda: isinstance(app.screen, BlockTypePicker), "the type picker")
        await pilot.press("down", "enter")  # the second type: single_selection
        await until(app, pilot, lambda: isinstance(app.screen, QueueEditorScreen), "back in the editor")
        await until(app, pilot, lambda: screen.query(BlockSettings), "the block's settings")
        assert screen.edit.drafts[0].type == "single_selection"
        await set_field(app, pilot, "#block-id", "verdict")
        await set_field(app, pilot, "#block-name", "Verdict")
        await set_field(app, pilot, "#setting-options", "ok: Fine\nRemove\nescalate: Ask a lead")
        screen.query_one("#setting-is_required").toggle()  # type: ignore[attr-defined]
        await pilot.pause()
        await until(app, pilot, lambda: screen.query("#preview-form"), "the preview")
        preview = screen_text(app)
        assert "Verdict" in preview and "Ask a lead" in preview  # the worker's form shows the options

        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen), "back on the queue list")
        (made,) = queues_named(admin, org_id, name)
        stored = admin.get(f"/orgs/{org_id}/queues/{made['id']}").json()
        assert stored["description"] == "Sorted by the editor's test"
        assert stored["data"] == [
            {
                "id": "verdict",
                "name": "Verdict",
                "type": "single_selection",
                "single_selection": {
                    "options": [
                        {"id": "ok", "name": "Fine"},
                        {"id": "remove", "name": "Remove"},
                        {"id": "escalate", "name": "Ask a lead"},
                    ],
                    "is_required": True,
                },
            }
        ]


async def test_reorder_blocks_with_brackets_and_ctrl_arrows(make_app: MakeApp, admin, org_id) -> None:
    """`]` and `ctrl+down` move the block under the cursor down, `[` up; saved in the new order."""
    queue = make_queue(admin, org_id)  # paragraph, category, photo
    before = [b["id"] for b in queue["data"]]
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        screen.query_one(BlockList).focus()
        await pilot.press("]")  # paragraph goes down one
        assert [d.id for d in screen.edit.drafts] == [before[1], before[0], before[2]]
        assert screen.edit.selected == 1  # the moved block stays under the cursor
        await pilot.press("ctrl+down")
        assert [d.id for d in screen.edit.drafts] == [before[1], before[2], before[0]]
        await pilot.press("[")
        expected = [before[1], before[0], before[2]]
        assert [d.id for d in screen.edit.drafts] == expected and screen.edit.selected == 1
        assert screen.query_one(BlockSettings).draft.id == before[0]  # its settings still shown
        await pilot.press("ctrl+s")  # no tasks: no question
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen), "saved")
    stored = admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()
    assert [b["id"] for b in stored["data"]] == expected


async def test_a_duplicate_block_id_is_shown_on_its_field_and_nothing_is_sent(
    make_app: MakeApp, admin, org_id
) -> None:
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        screen.query_one(BlockList).highlighted = 1
        await until(app, pilot, lambda: screen.edit.selected == 1, "the second block chosen")
        await set_field(app, pilot, "#block-id", "paragraph")
        problem = screen.query_one("#problem-id")
        assert problem.display and "block id 'paragraph' is used twice" in str(problem.render())
        assert "✗" in screen_text(app)  # marked in the block list
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QueueEditorScreen)
        assert shows(app, "Nothing was saved: fix the fields marked in red.")
        assert app.focused is screen.query_one("#block-id")
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["data"] == queue["data"]


async def test_changing_blocks_of_a_queue_with_tasks_asks_first(make_app: MakeApp, admin, org_id) -> None:
    queue = make_queue(admin, org_id)
    base = f"/orgs/{org_id}/queues/{queue['id']}"
    for text in ("one", "two"):
        admin.post(f"{base}/tasks/create", json={"data": {"paragraph": text}}).raise_for_status()
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        assert screen.edit.tasks_held == 2
        screen.query_one(BlockList).focus()
        await pilot.press("delete")  # the first block: paragraph
        assert [d.id for d in screen.edit.drafts] == [b["id"] for b in queue["data"][1:]]
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        text = " ".join(question.explain.split())
        assert "'" + queue["name"] + "': 2 pending tasks take the new blocks when they are completed." in text
        assert "Removed: Paragraph (paragraph)" in text and "no form shows or edits them" in text
        await pilot.press("enter")  # Cancel has the focus: nothing sent
        await until(app, pilot, lambda: isinstance(app.screen, QueueEditorScreen), "back in the editor")
        assert admin.get(base).json()["data"] == queue["data"]

        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen), "saved")
    assert [b["id"] for b in admin.get(base).json()["data"]] == [b["id"] for b in queue["data"][1:]]
    task = admin.get(f"{base}/tasks", params={"limit": 1}).json()["tasks"][0]
    assert task["data"]["paragraph"] == "one"  # the value stays in the task's data


async def test_the_question_counts_pending_tasks_and_says_completed_ones_keep_their_values(
    make_app: MakeApp, admin, org_id
) -> None:
    """Completed tasks are never completed again under the new blocks: they keep what they hold."""
    queue = make_queue(admin, org_id)
    base = f"/orgs/{org_id}/queues/{queue['id']}"
    for text in ("one", "two", "three"):
        admin.post(f"{base}/tasks/create", json={"data": {"paragraph": text}}).raise_for_status()
    for _ in range(2):
        complete(admin, org_id, queue)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        screen.query_one(BlockList).focus()
        await pilot.press("delete")  # the paragraph block
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        text = " ".join(question.explain.split())
        assert (
            "1 pending task takes the new blocks when it is completed; 2 completed tasks keep their values."
        ) in text
        assert "3 task" not in text  # the completed tasks are not counted as affected


def test_who_is_affected_by_a_change_of_blocks() -> None:
    assert who_is_affected(12, 340) == (
        "12 pending tasks take the new blocks when they are completed; 340 completed tasks keep their values."
    )
    assert who_is_affected(1, 1) == (
        "1 pending task takes the new blocks when it is completed; 1 completed task keeps its values."
    )
    assert who_is_affected(0, 5) == "No pending task is affected; 5 completed tasks keep their values."
    assert who_is_affected(2500, 0) == "2,500 pending tasks take the new blocks when they are completed."


async def test_escape_asks_before_discarding_and_E_opens_from_the_queue_screen(
    make_app: MakeApp, admin, org_id
) -> None:
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "the queue screen")
        await pilot.press("E")
        await until(
            app,
            pilot,
            lambda: isinstance(app.screen, QueueEditorScreen) and app.screen.edit.saved_state,
            "editor",
        )
        await set_field(app, pilot, "#queue-name", "Not kept")
        app.screen.query_one(BlockList).focus()
        await pilot.press("escape")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert shows(app, "Discard your changes?")
        await pilot.click("#confirm-run")
        await until(app, pilot, lambda: isinstance(app.screen, QueueScreen), "back on the queue")
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}").json()["name"] == queue["name"]


async def test_workers_and_supervisors_have_no_editor(make_app: MakeApp) -> None:
    for role in ("worker", "supervisor"):
        app = make_app(role)
        async with app.run_test(size=SIZE) as pilot:
            await home(app, pilot)
            await pilot.press("N", "E")
            await pilot.pause()
            assert isinstance(app.screen, QueuesScreen)


async def test_a_basic_server_says_it_cannot_create_queues(original: OriginalService, clock) -> None:  # noqa: F811
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        await pilot.press("N")
        await pilot.pause()
        assert isinstance(app.screen, QueuesScreen)
        assert any("queues are made and changed in its own interface" in n for n in notes(app)), notes(app)
    assert not [s for s in original.seen if s.method in ("POST", "PATCH") and s.path.endswith("/queues")]


async def test_a_missing_then_taken_name_is_shown_under_the_name(make_app: MakeApp, admin, org_id) -> None:
    before = len(admin.get(f"/orgs/{org_id}/queues").json())
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, "N")
        problem = screen.query_one("#queue-problem-name")
        assert not problem.display  # not a fault before anything was tried
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert problem.display and "a queue needs a name" in str(problem.render())
        assert app.focused is screen.query_one("#queue-name")

        await set_field(app, pilot, "#queue-name", "Categorization")  # the seed's queue
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: "already exists" in str(problem.render()), "the server's refusal")
        assert isinstance(app.screen, QueueEditorScreen)
    assert len(admin.get(f"/orgs/{org_id}/queues").json()) == before
