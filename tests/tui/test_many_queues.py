"""With 1,001 queues the list keeps its count line and footer on screen, and `end` puts the cursor on
the last queue where it can be seen (the table scrolls inside the space left to it)."""

from queuedesk.tui.screens.queues import QueuesScreen
from tests.support import Organization
from tests.support.pilot import screen_text, settle, until
from tests.tui.conftest import MakeApp

MANY = 1_001


async def test_end_shows_the_last_of_1001_queues_and_the_count_line(
    make_app: MakeApp, own_org: Organization
) -> None:
    admin = own_org.client("admin")
    for n in range(MANY):
        made = admin.post(f"{own_org.path}/queues", json={"name": f"Q{n:04d}", "data": []})
        assert made.status_code == 200, made.text
    app = make_app(token=own_org.key("admin"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(
            app, pilot, lambda: isinstance(app.screen, QueuesScreen) and app.screen.loaded, "the list"
        )
        await pilot.press("end")
        await settle(app, pilot)
        lines = screen_text(app).splitlines()
        assert any("Q1000" in line for line in lines), "the last queue is on screen"
        assert any("1,001 queues" in line for line in lines), "the count line is on screen"
        assert "Quit" in lines[-1] or "palette" in lines[-1]  # the footer too
