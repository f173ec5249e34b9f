"""Gold tasks (B22) for supervisors and admins, against a real `queuedesk serve`: the queue editor
sets a queue's gold share and says what it means, a bad share said under its field and never sent;
the Stats tab shows each worker's gold accuracy (correct of answered), sortable, and the queue's.

While the test server does not list B22 these skip (`needs_b22`); once it does, they run."""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.block_type_picker import BlockTypePicker
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.widgets.block_settings import BlockSettings
from tests.api.test_client_gold import needs_b22
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import app_for, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, plain, shows
from tests.tui.test_queue_editor import open_editor, queues_named, set_field
from tests.tui.test_work import CATEGORY, MESSAGE, qpath

SIZE = (120, 40)


def answer_gold(client: httpx.Client, path: str, data: dict[str, Any]) -> int:
    """`client`'s worker claims the next task (a gold one: the queue holds only those) and answers it."""
    claimed = client.post(f"{path}/tasks/next")
    assert claimed.status_code == 200, claimed.text
    task_id = int(claimed.json()["id"])
    done = client.post(f"{path}/tasks/{task_id}/complete", json={"data": data})
    assert done.status_code == 200, done.text
    return task_id


async def test_the_editor_sets_the_gold_share_and_says_what_it_means(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs_b22(server)
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Gold share")
    path = qpath(org_id, queue)
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        assert shows(app, "No gold tasks are given")
        await set_field(app, pilot, "#gold-percent", "60")
        problem = screen.query_one("#gold-problem")
        assert problem.display and "from 0 to 50" in plain(problem)  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: app.focused is screen.query_one("#gold-percent"), "its field")
        assert admin.get(path).json()["gold_percent"] == 0  # nothing sent
        await set_field(app, pilot, "#gold-percent", "10")
        await set_field(app, pilot, "#queue-description", "With a gold share")
        assert not problem.display
        said = plain(screen.query_one("#gold-meaning"))  # type: ignore[arg-type]
        assert said.startswith("About 1 in 10 tasks a worker is given is a gold task with a known answer")
        assert "10% gold" in plain(screen.query_one("#editor-status"))  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved")
        assert admin.get(path).json()["gold_percent"] == 10
        # One B13 for the description and the share: one audit event names both.
        audit = {"queue_id": queue["id"], "action": "queue.update"}
        (event,) = admin.get(f"/orgs/{org_id}/audit", params=audit).json()["events"]
        assert set(event["detail"]["fields"]) == {"description", "gold_percent"}

        screen = await open_editor(app, pilot, "E", queue["id"])
        assert screen.edit.gold.text == "10"
        await set_field(app, pilot, "#gold-percent", "0")
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved again")
    assert admin.get(path).json()["gold_percent"] == 0


async def test_a_new_queue_is_made_with_its_gold_share(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs_b22(server)
    name = f"Gold made {uuid.uuid4().hex[:6]}"
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_editor(app, pilot, "N")
        await set_field(app, pilot, "#queue-name", name)
        await pilot.press("ctrl+n")
        await until(app, pilot, lambda: isinstance(app.screen, BlockTypePicker), "the type picker")
        await pilot.press("enter")  # the first type: text
        await until(app, pilot, lambda: screen.query(BlockSettings), "the block's settings")
        await set_field(app, pilot, "#gold-percent", "25")
        assert plain(screen.query_one("#gold-meaning")).startswith("About 1 in 4 tasks")  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "created")
    (made,) = queues_named(admin, org_id, name)
    assert admin.get(f"/orgs/{org_id}/queues/{made['id']}").json()["gold_percent"] == 25
    # Made with its share by B12 alone: no B13 followed.
    audit = {"queue_id": made["id"], "action": "queue.update"}
    assert admin.get(f"/orgs/{org_id}/audit", params=audit).json()["events"] == []


async def test_stats_show_each_workers_gold_accuracy_sortable(
    server: ServerProcess, admin: httpx.Client, clients: dict[str, httpx.Client], org_id: int
) -> None:
    needs_b22(server)
    queue = make_queue(admin, org_id, [MESSAGE, CATEGORY], label="Gold stats", gold_percent=50)
    path = qpath(org_id, queue)
    for text in ("one", "two"):
        body = {"data": {"message": text}, "gold": {"category": "red"}}
        assert admin.post(f"{path}/tasks/create", json=body).status_code == 200
    answer_gold(clients["worker"], path, {"category": "red"})  # Wes: one right, one wrong
    answer_gold(clients["worker"], path, {"category": "green"})
    answer_gold(clients["worker2"], path, {"category": "red"})  # Wyn: one of one
    # The server counts its period up to its own, real now: the app's clock stands there too.
    now = ManualClock(datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30))
    app: QueueDeskApp = app_for(server, "supervisor", clock=now)
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await until(app, pilot, lambda: any(q.id == queue["id"] for q in screen.queues), "listed")
        screen.table.move_cursor(row=screen.table.get_row_index(str(queue["id"])))
        await pilot.press("enter", "4")
        summary = lambda: plain(app.screen.query_one("#stats-summary"))  # type: ignore[arg-type]  # noqa: E731
        await until(app, pilot, lambda: "gold" in summary(), "stats with gold")
        assert "gold 67% correct of 3" in summary(), summary()
        table: Any = app.screen.query_one("#stats-workers")

        def shown() -> list[dict[str, str]]:
            keys = [str(c.value) for c in table.columns]
            return [dict(zip(keys, map(str, table.get_row(k)), strict=True)) for k in table.rows]

        rows = {row["email"]: row for row in shown()}
        wes, wyn = rows["wes@acme.test"], rows["wyn@acme.test"]
        assert (wes["gold_answered"], wes["gold"], wyn["gold_answered"], wyn["gold"]) == (
            "1/2",
            "50%",
            "1/1",
            "100%",
        )
        assert wes["completed"] == "0"  # gold answers complete nothing
        table.focus()
        for _ in range(6):  # s: the next sortable column, until the gold accuracy
            if app.screen.query_one(StatsView).sort == "gold":
                break
            await pilot.press("s")
        await until(app, pilot, lambda: "▼" in str(table.columns["gold"].label), "sorted by gold")  # type: ignore[index]
        assert [row["email"] for row in shown()][:2] == ["wyn@acme.test", "wes@acme.test"]
