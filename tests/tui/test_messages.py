"""The palette's "Messages": a notification can be read again after its toast has gone."""

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.modals.messages import MessagesScreen
from queuedesk.tui.settings import Target
from tests.support import KEYS, ServerProcess
from tests.support.pilot import screen_text, settle, until
from tests.tui.test_app import home, shows


async def test_a_notification_gone_from_the_screen_is_read_again_from_the_palette(
    server: ServerProcess,
) -> None:
    # A theme the config names that does not exist is said once, as a toast, at the start.
    app = QueueDeskApp(
        Target(server.url, KEYS["admin"], None, "test"),
        settings=AppSettings(theme="no-such-theme"),
        clock=ManualClock(),
    )
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await home(app, pilot)
        await settle(app, pilot)
        app.clear_notifications()  # the toast has gone, as it does after a few seconds
        await settle(app, pilot)
        assert not shows(app, "is not a theme"), screen_text(app)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await pilot.press(*"Messages")
        await settle(app, pilot)
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, MessagesScreen), "the messages open")
        await settle(app, pilot)
        assert shows(app, "'no-such-theme' is not a theme"), screen_text(app)
        await pilot.press("escape")
        await until(app, pilot, lambda: not isinstance(app.screen, MessagesScreen), "escape closes them")
