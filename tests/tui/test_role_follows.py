"""A role changed by an admin reaches an open app within one refresh, whatever it shows: no 403 is
needed to notice it (issue 40, finding 3). A worker promoted sees "(supervisor)", the Stats and
Webhook tabs and the Reviews tab; a supervisor demoted loses them, on the queue list too."""

from textual.widgets import TabbedContent

from queuedesk.tui.clock import ManualClock
from queuedesk.tui.panes.feedback_view import FeedbackView
from tests.conftest import make_queue
from tests.support import Organization
from tests.tui.conftest import MakeApp
from tests.tui.test_access_changes import no_bug_said, user_id
from tests.tui.test_app import SIZE, header, home, notes, open_queue, settle

REFRESH = 5.0  # the app's default refresh interval


async def one_refresh(app, pilot, clock: ManualClock) -> None:  # type: ignore[no-untyped-def]
    clock.advance(REFRESH)
    for _ in range(3):
        await settle(app, pilot)


def tab_titles(app) -> list[str]:  # type: ignore[no-untyped-def]
    tabs = app.screen.query_one(TabbedContent)
    return [str(tabs.get_tab(pane.id).label) for pane in tabs.query("TabPane")]


async def test_a_worker_promoted_with_a_queue_open_sees_it_within_one_refresh(
    make_app: MakeApp, clock: ManualClock, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id, review_percent=10)
    app = make_app(token=own_org.key("worker"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        assert "(worker)" in header(app)
        assert "Stats" not in tab_titles(app) and "Feedback" in tab_titles(app), tab_titles(app)
        admin.patch(
            f"{own_org.path}/users/{user_id(admin, own_org, 'worker')}", json={"role": "supervisor"}
        ).raise_for_status()
        await one_refresh(app, pilot, clock)
        assert "(supervisor)" in header(app), header(app)
        assert screen.session.role == "supervisor"
        titles = tab_titles(app)
        assert "Stats" in titles and "Webhook" in titles and "Reviews" in titles, titles
        assert not screen.query_one(FeedbackView).own
        assert sum("your role is now supervisor" in n.lower() for n in notes(app)) == 1, notes(app)
        await one_refresh(app, pilot, clock)
        assert sum("your role is now" in n.lower() for n in notes(app)) == 1, notes(app)
        no_bug_said(notes(app))


async def test_a_supervisor_demoted_on_the_queue_list_sees_it_within_one_refresh(
    make_app: MakeApp, clock: ManualClock, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    queue = make_queue(admin, own_org.id, review_percent=10)
    app = make_app(token=own_org.key("supervisor"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await home(app, pilot)
        assert "(supervisor)" in header(app)
        admin.patch(
            f"{own_org.path}/users/{user_id(admin, own_org, 'supervisor')}", json={"role": "worker"}
        ).raise_for_status()
        await one_refresh(app, pilot, clock)
        assert "(worker)" in header(app), header(app)
        screen = await open_queue(app, pilot, queue["id"])
        titles = tab_titles(app)
        assert "Reviews" not in titles and "Stats" not in titles and "Feedback" in titles, titles
        assert screen.query_one(FeedbackView).own
        no_bug_said(notes(app))
