"""Gold tasks (B22) in the app, against a real `queuedesk serve`: a worker's work screen never hints
at a gold task, their Feedback tab shows the miss once answered (the known value beside theirs);
the Gold tab lists the gold tasks with how many answered and how many right, and lets an admin
correct an expected answer and retire a task (confirmed). Without B22 the Gold tab is not there."""

import httpx
from textual.widgets import TabbedContent

from queuedesk.api.models import Block
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.gold_expect import read_fields
from queuedesk.tui.panes.feedback_view import FeedbackView
from queuedesk.tui.panes.gold_view import GoldView
from tests.api.test_client_gold import needs_b22
from tests.conftest import make_queue
from tests.support import Organization, ServerProcess
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, open_queue, settle
from tests.tui.test_role_follows import tab_titles

CATEGORY = Block.model_validate(
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}]},
    }
)
URGENT = Block.model_validate({"id": "urgent", "name": "Urgent", "type": "binary"})


def test_the_expected_answer_fields_read_as_csv_cells_and_are_checked() -> None:
    blocks = [CATEGORY, URGENT]
    assert read_fields(blocks, {"category": "blue", "urgent": "yes"}) == (
        {"category": "blue", "urgent": True},
        [],
    )
    assert read_fields(blocks, {"category": "", "urgent": "no"}) == ({"urgent": False}, [])
    _, wrong = read_fields(blocks, {"category": "purple"})
    assert wrong and "'purple' is not an option" in wrong[0]
    _, none = read_fields(blocks, {})
    assert none == ['name at least one expected value, e.g. {"category": "red"}']


async def test_without_b22_a_supervisor_has_no_gold_tab(
    make_app: MakeApp, own_org: Organization, server: ServerProcess
) -> None:
    features = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {own_org.key()}"}).json()
    if "B22" in features.get("features", []):
        return  # the server has gold: the tests below show the tab
    queue = make_queue(own_org.client("admin"), own_org.id, review_percent=10)
    app = make_app(token=own_org.key("supervisor"))
    async with app.run_test(size=SIZE) as pilot:
        await open_queue(app, pilot, queue["id"])
        assert "Gold" not in tab_titles(app) and "Stats" in tab_titles(app), tab_titles(app)


def gold_queue(
    own_org: Organization, expected: tuple[str, ...] = ("red", "blue")
) -> tuple[dict, str, list[int]]:
    """A queue with a gold share and a gold task per `expected` category, nothing else to do."""
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id, review_percent=10)
    base = f"{own_org.path}/queues/{queue['id']}"
    admin.patch(base, json={"gold_percent": 20}).raise_for_status()
    ids = []
    for n, category in enumerate(expected):
        made = admin.post(
            f"{base}/tasks/create",
            json={"data": {"paragraph": f"report {n}"}, "gold": {"category": category}},
        )
        made.raise_for_status()
        ids.append(made.json()["id"])
    return queue, base, ids


def answer(client: httpx.Client, base: str, category: str) -> int:
    claim = client.post(f"{base}/tasks/next")
    assert claim.status_code == 200, claim.text
    task = claim.json()
    done = client.post(f"{base}/tasks/{task['id']}/complete", json={"data": {"category": category}})
    assert done.status_code == 200, done.text
    return task["id"]


async def test_a_worker_reads_a_miss_only_after_answering(
    make_app: MakeApp, clock: ManualClock, own_org: Organization, server: ServerProcess
) -> None:
    needs_b22(server)
    queue, base, _ = gold_queue(own_org, ("red", "red"))
    app = make_app(token=own_org.key("worker"))
    async with app.run_test(size=SIZE) as pilot:
        await open_queue(app, pilot, queue["id"])
        await pilot.press("w")  # the work screen, with a gold task: nothing tells it apart
        await until(app, pilot, lambda: "report " in screen_text(app), "the task is shown")
        assert "gold" not in screen_text(app).lower() and "known answer" not in screen_text(app).lower()
        await pilot.press("escape")
        await settle(app, pilot)
    answer(own_org.client("worker"), base, "blue")  # its held claim, or the next gold: red is known
    app = make_app(token=own_org.key("worker"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        screen.query_one(TabbedContent).active = "tab-feedback"
        view = screen.query_one(FeedbackView)
        await until(app, pilot, lambda: view.misses, "the miss is listed")
        text = screen_text(app)
        assert "1 of your answers missed a known answer" in text, text
        assert "Category: Red  (yours: Blue)" in text, text


async def test_the_gold_tab_lists_corrects_and_retires(
    make_app: MakeApp, clock: ManualClock, own_org: Organization, server: ServerProcess
) -> None:
    needs_b22(server)
    queue, base, ids = gold_queue(own_org)
    answer(own_org.client("worker"), base, "blue")  # red expected: a miss
    app = make_app(token=own_org.key("admin"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        assert "Gold" in tab_titles(app), tab_titles(app)
        screen.query_one(TabbedContent).active = "tab-gold"
        view = screen.query_one(GoldView)
        await until(app, pilot, lambda: len(view.tasks) == 2, "the gold tasks are listed")
        text = screen_text(app)
        assert "0 of 1 (0%)" in text and "Category: Red  (theirs: Blue)" in text, text
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press("end", "backspace", "backspace", "backspace", *"blue", "ctrl+s")
        admin = own_org.client("admin")

        def expected_now() -> object:
            listed = admin.get(f"{base}/tasks", params={"gold": "true"}).json()["tasks"]
            return next(t["gold"] for t in listed if t["id"] == ids[0])

        await until(app, pilot, lambda: expected_now() == {"category": "blue"}, "the expected answer changed")
        await pilot.press("down", "R")
        await settle(app, pilot)
        await pilot.press("tab", "enter")  # from Cancel to Retire

        def retired() -> bool:
            listed = admin.get(f"{base}/tasks", params={"gold": "true"}).json()["tasks"]
            return any(t["id"] == ids[1] and t.get("retired") for t in listed)

        await until(app, pilot, retired, "the task is retired")
        await until(app, pilot, lambda: "retired" in screen_text(app), "the tab says it")
