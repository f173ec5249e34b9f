"""`o` reads the Pending list, the history and the delivery log from either end (the order the server
can page them in), and the time column's header marks the order: ▲ oldest first, ▼ newest first."""

import httpx

from queuedesk.tui.clock import ManualClock
from tests.receiver import Receiver
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import claim, complete, create, open_queue, show_tab
from tests.tui.test_webhook_tab import hook, refreshed_until, rows


def ids(table) -> list[int]:
    return [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]


async def test_o_flips_pending_history_and_delivery_log_with_the_order_marked(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    receiver = Receiver().start()
    try:
        queue = fresh("Ordered")
        hook(admin, org_id, queue, receiver.url)
        made = create(admin, org_id, queue, 6)
        done = [complete(worker, org_id, queue)["id"] for _ in range(3)]
        receiver.wait_for(3)
        waiting = [task for task in made if task not in done]
        app = make_app("admin")
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_queue(app, pilot, queue["id"])
            await until(app, pilot, lambda: ids(screen.pending) == waiting, "oldest first")
            assert "Created UTC ▲" in screen_text(app)
            await pilot.press("o")
            await until(app, pilot, lambda: ids(screen.pending) == waiting[::-1], "newest first")
            assert "Created UTC ▼" in screen_text(app)

            await show_tab(app, pilot, "tab-completed")
            await until(app, pilot, lambda: ids(screen.history) == done[::-1], "the history newest first")
            assert "Completed UTC ▼" in screen_text(app)
            await pilot.press("o")
            await until(app, pilot, lambda: ids(screen.history) == done, "the history oldest first")
            assert "Completed UTC ▲" in screen_text(app)

            await pilot.press("5")
            await settle(app, pilot)
            view = screen.query_one("#webhook")
            await refreshed_until(app, pilot, clock, lambda: len(rows(view)) == 3, "the deliveries")
            assert [int(row[0]) for row in rows(view)] == done[::-1] and "Created UTC ▼" in screen_text(app)
            await pilot.press("o")
            await until(app, pilot, lambda: [int(r[0]) for r in rows(view)] == done, "the log oldest first")
            assert "Created UTC ▲" in screen_text(app) and "oldest first" in screen_text(app)
            await pilot.press("l")  # the log sorted by status, then by tries, then by task
            await until(app, pilot, lambda: "by status, a to z" in screen_text(app), "by status")
            assert "Status ▲" in screen_text(app) and "Created UTC ▲" not in screen_text(app)
            await pilot.press("l")
            await until(app, pilot, lambda: "most tries first" in screen_text(app), "by tries")
            await pilot.press("l")
            await until(app, pilot, lambda: [int(r[0]) for r in rows(view)] == done[::-1], "by task")
            assert "Task ▼" in screen_text(app)
    finally:
        receiver.stop()


async def test_s_sorts_pending_by_status_and_holder_and_the_history_by_who_with_the_column_marked(
    make_app: MakeApp,
    admin: httpx.Client,
    worker: httpx.Client,
    clients: dict[str, httpx.Client],
    org_id: int,
    fresh,
) -> None:
    worker2 = clients["worker2"]
    queue = fresh("Sorted")
    made = create(admin, org_id, queue, 8)
    by_wyn = [complete(worker2, org_id, queue)["id"] for _ in range(2)]
    by_wes = [complete(worker, org_id, queue)["id"] for _ in range(2)]
    held = {claim(worker2, org_id, queue)["id"]: "Wyn", claim(worker, org_id, queue)["id"]: "Wes"}
    free = [task for task in made if task not in held and task not in by_wyn + by_wes]
    app = make_app("admin")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await until(app, pilot, lambda: ids(screen.pending) == sorted([*held, *free]), "by creation")
        await pilot.press("s")  # by status: the held ones (in_progress) before the new ones
        await until(app, pilot, lambda: ids(screen.pending) == sorted(held) + free, "by status")
        assert "Status ▲" in screen_text(app) and "Created UTC ▲" not in screen_text(app)
        await pilot.press("s")  # by holder: Wes, Wyn, then nobody
        await until(app, pilot, lambda: ids(screen.pending) == sorted(held, key=held.get) + free, "by holder")
        assert "Held by ▲" in screen_text(app)
        await pilot.press("s")
        await until(app, pilot, lambda: "Created UTC ▲" in screen_text(app), "by creation again")

        await show_tab(app, pilot, "tab-completed")
        await until(app, pilot, lambda: ids(screen.history) == (by_wyn + by_wes)[::-1], "newest first")
        await pilot.press("s")  # by who: A to Z (wes before wyn), oldest first within each
        await until(app, pilot, lambda: ids(screen.history) == by_wes + by_wyn, "by who")
        assert "By ▲" in screen_text(app) and "by who completed them, A to Z" in screen_text(app)
        await pilot.press("o")
        await until(app, pilot, lambda: ids(screen.history) == by_wyn[::-1] + by_wes[::-1], "by who, Z to A")
        assert "By ▼" in screen_text(app)
        await pilot.press("s")  # by task id, highest first
        await until(app, pilot, lambda: ids(screen.history) == sorted(by_wyn + by_wes, reverse=True), "by id")
        assert "Task ▼" in screen_text(app)
