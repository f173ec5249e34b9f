"""A wrong address that still reaches a web server: the Connect screen says to check the address,
never that the key or the organization is wrong (both may be right)."""

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import KEYS, ServerProcess
from tests.tui.test_app import SIZE, connect_problem


async def test_a_path_after_the_port_is_blamed_on_the_address(
    server: ServerProcess, clock: ManualClock
) -> None:
    typo = f"{server.url}/orgs"  # a path pasted with the address
    app = QueueDeskApp(Target(typo, KEYS["admin"], None, "test"), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        first = await connect_problem(app, pilot, "enter its id")
        assert "check the address" in first.lower(), first
        await pilot.press("1", "enter")
        said = await connect_problem(app, pilot, "does not answer like a task queue server")
        assert "no access to organization" not in said, said
        assert "Check the address" in said, said
