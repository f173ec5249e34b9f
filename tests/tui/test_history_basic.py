"""The completed history on a server without QueueDesk's extensions (the original service's stand-in):
a worker filter is applied by the app, the screen says so, and the filtered walk is made once per
filter, not once per page the table asks for."""

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.api.test_original_service import ORG as BASIC_ORG
from tests.api.test_original_service import QUEUE as BASIC_QUEUE
from tests.api.test_original_service import TOKEN as BASIC_TOKEN
from tests.api.test_original_service import OriginalService, original, service  # noqa: F401  (fixtures)
from tests.support.pilot import screen_text, settle, until
from tests.tui.test_app import plain
from tests.tui.test_history import SIZE, open_history, press_and_load, rows_note

QUEUE = 9
N = 250  # three table pages of 100; half by each worker


def filtered_walks(stand_in: OriginalService) -> list[dict[str, list[str]]]:
    """The history requests of the filtered walk (the polls ask for one task only)."""
    return [
        s.query
        for s in stand_in.seen
        if s.path.endswith(f"/{QUEUE}/tasks/completed") and s.query.get("limit") != ["1"]
    ]


async def test_a_worker_filter_on_a_basic_server_is_walked_once_and_said(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    with original.lock:
        original.add_queue(QUEUE, "Basic history", original.blocks(BASIC_QUEUE))
        for n in range(N):
            original.complete_now(
                QUEUE, {"category": "red"}, by="wyn@acme.test" if n % 2 else "wes@acme.test"
            )
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, QUEUE)
        assert rows_note(screen)[2] == N
        assert "filtered by the app" not in plain(screen.query_one("#history-note"))
        with original.lock:
            original.seen.clear()
        await pilot.press("f", *"wyn@acme.test")
        assert not screen.query_one("#filter-text").display  # no search in values on a basic server
        await pilot.press("enter")
        await until(
            app, pilot, lambda: not table.busy and rows_note(screen)[2] == N // 2, "the filtered history"
        )
        table.focus()
        for _ in range(3):
            await press_and_load(app, pilot, table, "ctrl+end")
        await settle(app, pilot)
        assert rows_note(screen)[1] == N // 2  # every page of the filtered history was shown ...
        assert {str(table.get_row_at(i)[2]) for i in range(table.row_count)} == {"wyn@acme.test"}
        assert len(filtered_walks(original)) == 1, filtered_walks(original)  # ... from one walk
        # Said where it is seen: on the note's line as painted at 100 columns.
        assert (
            "(completed by wyn@acme.test, filtered by the app: basic API, no worker filter)"
            in screen_text(app)
        )

        await pilot.press("r")  # a reload reads the server again
        await until(app, pilot, lambda: len(filtered_walks(original)) == 2, "a fresh walk")
        await settle(app, pilot)
        assert len(filtered_walks(original)) == 2


async def test_without_a_filter_a_basic_server_pages_on_the_server(
    original: OriginalService,  # noqa: F811
    clock: ManualClock,
) -> None:
    with original.lock:
        original.add_queue(QUEUE, "Basic history", original.blocks(BASIC_QUEUE))
        for _ in range(N):
            original.complete_now(QUEUE, {"category": "red"})
    app = QueueDeskApp(Target(original.url, BASIC_TOKEN, BASIC_ORG, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_history(app, pilot, QUEUE)
        await press_and_load(app, pilot, table, "ctrl+end")
        await settle(app, pilot)
        asked = filtered_walks(original)  # page by page, never the whole list at once
        assert len(asked) >= 2 and all(q["limit"] == ["100"] for q in asked), asked
        assert screen.completed.local_history is None
