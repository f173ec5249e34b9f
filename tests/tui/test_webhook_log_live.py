"""The Webhook tab's delivery log is live: deliveries made while it is shown appear at its top, as
the rows painted, without `home` (issue 40, finding 2). The log followed at its head (the cursor on
its first row) stays at its head, however many arrive; a cursor put on a row below keeps its row."""

import httpx

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.panes.webhook_view import WebhookView
from tests.receiver import Receiver
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, create
from tests.tui.test_webhook_tab import SIZE, hook, open_webhook, refreshed_until, rows


def painted_task_ids(view: WebhookView) -> list[str]:
    """The task ids of the log's rows as painted now (the first cell of each line under the header)."""
    table = view.deliveries
    lines = [table.render_line(y).text for y in range(1, table.scrollable_content_region.height)]
    return [line.split()[0] for line in lines if line.strip()]


async def test_new_deliveries_appear_at_the_top_of_the_log_shown(
    make_app: MakeApp,
    clock: ManualClock,
    admin: httpx.Client,
    worker: httpx.Client,
    org_id: int,
    fresh,
    receiver: Receiver,
) -> None:
    queue = fresh("Live log")
    hook(admin, org_id, queue, receiver.url)
    create(admin, org_id, queue, n=30)
    first = complete(worker, org_id, queue)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_webhook(app, pilot, queue["id"])
        await refreshed_until(app, pilot, clock, lambda: rows(view), "the first delivery is listed")
        assert painted_task_ids(view)[0] == str(first["id"])
        # More than the rows the log shows, one refresh each (as they come in a live queue).
        for _ in range(view.deliveries.scrollable_content_region.height + 3):
            newest = str(complete(worker, org_id, queue)["id"])
            await refreshed_until(app, pilot, clock, lambda: rows(view)[0][0] == newest, "read")  # noqa: B023
            assert painted_task_ids(view)[0] == newest, (painted_task_ids(view), newest)
            assert view.deliveries.cursor_row == 0

        # A row chosen below the head keeps its place: what arrives goes above it, out of the way.
        await pilot.press("down", "down")
        chosen = view.deliveries.item_at_cursor()
        complete(worker, org_id, queue)
        count = len(rows(view))
        await refreshed_until(app, pilot, clock, lambda: len(rows(view)) == count + 1, "one more read")
        assert view.deliveries.item_at_cursor() == chosen
