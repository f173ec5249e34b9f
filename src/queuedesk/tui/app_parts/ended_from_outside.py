"""The app ended from outside without its quit action: the browser tab closing (textual-serve
sends its web driver `quit`), or the web driver's SIGTERM or SIGINT. Textual's driver posts
`ExitApp`, which ends the app at once: the typing on the open task was lost and its claims held for
the whole lease. Here that `ExitApp` runs the quit action unattended instead, as SIGHUP does
(`terminal/terminal_session.py`): the typing kept as the task's draft, claims given back, then the
app ends. A second one, or the quit taking longer than `DEADLINE_SECONDS` (a server that does not
answer), ends it at once.
"""

from collections.abc import Awaitable, Callable

from textual.app import App
from textual.messages import ExitApp

from queuedesk.tui.terminal.terminal_session import quit_unattended

DEADLINE_SECONDS = 15.0  # textual-serve waits for the app's process without a limit of its own


class EndedFromOutside:
    def __init__(self, app: App[None], quit_action: Callable[[], Awaitable[object]]) -> None:
        self.app = app
        self.quit_action = quit_action
        self.exit_asked = False  # the app's own exit: its ExitApp ends the app as Textual does
        self.quitting = False

    def asked_to_exit(self) -> None:
        """The app's `exit` was called (by its quit, or by anything else inside it)."""
        self.exit_asked = True

    def on_exit_app(self, event: ExitApp) -> None:
        if self.exit_asked:
            return
        if self.quitting:  # asked twice: at once
            self.app.exit()
            return
        event.prevent_default()
        self.quitting = True
        self.app.set_timer(DEADLINE_SECONDS, self.app.exit)
        self.app.call_later(quit_unattended, self.app, self.quit_action)
