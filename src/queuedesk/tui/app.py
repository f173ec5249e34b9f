"""The QueueDesk terminal app: connects, then opens the live queue list; errors are reported here."""

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import App, InvalidThemeError, SystemCommand
from textual.binding import Binding, BindingType
from textual.messages import ExitApp
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal

from queuedesk import collector
from queuedesk.api import errors
from queuedesk.api.config import AppSettings
from queuedesk.api.models import Queue
from queuedesk.api.terminal_text import shown
from queuedesk.tui.app_parts.ended_from_outside import EndedFromOutside
from queuedesk.tui.app_parts.navigation import Navigation
from queuedesk.tui.app_parts.quitting import Quitting
from queuedesk.tui.app_parts.screen_shapes import FollowsRole, LimitedByRole, RefusesEarlyKeys
from queuedesk.tui.app_parts.unsent_work import UnsentWork
from queuedesk.tui.clock import Clock, SystemClock
from queuedesk.tui.commands import QueueCommands
from queuedesk.tui.keys import escape_prefix
from queuedesk.tui.keys.keys_read import KeysRead, key_time
from queuedesk.tui.said import Said, SaidLog
from queuedesk.tui.session import Session, SessionEnded, open_session
from queuedesk.tui.settings import SaveProfile, Target, web_session
from queuedesk.tui.terminal import terminal_guard
from queuedesk.tui.terminal.browser_rules import check_allowed
from queuedesk.tui.work.outbox import Outbox

# What screens read by themselves (not a person's action): in an outage, said once for all of them.
LOADING = frozenset({"Refreshing", "Loading tasks", "Reading the webhook", "Reading the delivery log"})


class QueueDeskApp(App[None]):
    # Only what the first screen needs; each other screen brings its own (STYLE_FILES, below).
    CSS_PATH: ClassVar = ["styles/app.tcss"]
    TITLE = "QueueDesk"
    COMMANDS: ClassVar = App.COMMANDS | {QueueCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
        Binding("f1,question_mark", "keys", "Keys", id="app.keys"),
    ]

    def __init__(
        self,
        target: Target | None,
        *,
        settings: AppSettings | None = None,
        clock: Clock | None = None,
        save_profile: SaveProfile | None = None,
        profile_name: str = "default",
        config_file: str = "",
    ) -> None:
        """`profile_name`: the name the Connect screen offers for saving; `config_file`: where the
        settings were read, for messages about them."""
        super().__init__()
        terminal_guard.install()  # nothing painted reaches the terminal as a control sequence
        escape_prefix.install()  # `escape` then `tab` read together are two keys, not shift+tab
        self.target = target
        self.settings = settings or AppSettings()
        self.profile_name = profile_name
        self.config_file = config_file
        self.clock: Clock = clock or SystemClock(utc=self.settings.utc)
        self.save_profile = save_profile
        self.session: Session | None = None
        self.known_queues: list[Queue] = []  # the last list the queues screen saw (for the palette)
        self.outbox: Outbox | None = None  # submissions on their way (servers with claiming only)
        # What waits in the outbox changed: the widgets that show it subscribe (and are dropped
        # when they go), the outbox knows none of them.
        self.outbox_changed: Signal[None] = Signal(self, "outbox_changed")
        # The last two keys, as the app read them (the work screen's double enter).
        self.keys_read = KeysRead()
        self.said = SaidLog()  # every notification, for the palette's "Messages" after its toast went
        # Its parts, one job each (`tui/app_parts/`): where it goes, the work on its way, leaving.
        self.navigation = Navigation(self, self.said, self._outbox_changed)
        self.unsent_work = UnsentWork(self, self._outbox_changed)
        self.quitting = Quitting(self)
        self.ended_from_outside = EndedFromOutside(self, self.action_quit)  # a browser tab closed
        self._failed_at_start: tuple[Target, Exception] | None = None
        self._losing_key = False  # going back to Connect after a 401: said once
        self._checking_role = False  # reading /me again (after a 403, or once a refresh)
        self._role_read_at: datetime | None = None  # when /me was last read for a changed role
        self._unreachable_said = False  # "Server unreachable" said, until the server answers again
        self._theme_problem = ""
        if self.settings.theme:
            try:
                self.theme = self.settings.theme
            except InvalidThemeError:  # `queuedesk` refuses it before; here for other callers
                self._theme_problem = f"{self.settings.theme!r} is not a theme; the default theme is used."
        if self.settings.keys:
            self.set_keymap(self.settings.keys)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification as written: they carry queue and block names, addresses, values and
        servers' words, and one "[/b]" among them raised MarkupError (then again in the report of it).
        No notification of the app's uses markup; a widget's `notify` comes here too."""
        self.said.add(Said(self.clock.now(), severity, shown(title), shown(message)))
        super().notify(shown(message), title=shown(title), severity=severity, timeout=timeout, markup=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Messages", "Every notification of this session again, newest first", self.navigation.show_said
        )

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.keys_read.read(event.key, event.time)  # before any binding acts on it
            screen = self.screen
            if isinstance(screen, RefusesEarlyKeys) and screen.refuses_key(event):
                return  # typed before what it would act on was shown (the work screen says so)
        await super().on_event(event)

    def _load_screen_css(self, screen: Screen[Any]) -> None:
        """Also add a screen's own style files (its `STYLE_FILES`) the first time it is shown.

        The first screen needs only styles/app.tcss; each other screen brings its rules. Textual's
        way, a screen's CSS_PATH, parses every style source again from scratch and restyles every
        node on the screen's first visit (21-35 ms of CPU each); these files style only their own
        screen's widgets, so each is parsed alone when it arrives and the rest stays as it is.
        A private method of Textual's, listed in compat/textual_private.py.
        """
        added = [path for path in getattr(screen, "STYLE_FILES", ()) if not self.stylesheet.has_source(path)]
        for path in added:
            self.stylesheet.read(path)
        if added:
            self.stylesheet.parse()  # the new file; the others' rules come from the parse cache
        super()._load_screen_css(screen)

    def on_mount(self) -> None:
        from queuedesk.tui.terminal.sigcont_guard import guard_sigcont, terminal_input_waiting

        # A SIGSTOP/SIGCONT must not start a second terminal reader; keys read across it were typed
        # at times the app cannot tell (the work screen's double enter).
        guard_sigcont(
            when_continued=lambda: self.keys_read.continued(key_time(), keys_waiting=terminal_input_waiting())
        )
        collector.app_mounted(self.set_timer)
        if self._theme_problem:
            self.notify(self._theme_problem, title="Unknown theme", severity="warning", timeout=15)
        if self.settings.keys:
            self._check_keymap()
        if self.target is None or not self.target.token:
            from queuedesk.tui.screens.connect import ConnectScreen

            self.push_screen(ConnectScreen(self.target))
        else:
            # A saved connection goes straight to the queue list, on a blank screen meanwhile: the
            # connect screen (a form and a footer, a tenth of a second to build) only if it fails.
            self.push_screen(Screen())
            self._connect_at_start(self.target)

    @work(thread=True, group="keymap")
    def _check_keymap(self) -> None:
        """A mistyped binding id in the file would be ignored without a word: say which."""
        from queuedesk.tui.keys.keymap import suggestions, unknown_ids

        unknown = unknown_ids(self.settings.keys)
        if unknown:
            where = self.config_file or "the configuration file"
            self.call_from_thread(
                self.notify,
                f"{where}: keys: no key binding has the id {', '.join(unknown)}, so nothing was remapped "
                f"for it. {suggestions(unknown)}",
                title="Unknown key binding",
                severity="warning",
                timeout=20,
            )

    @work(exclusive=True, group="connect")
    async def _connect_at_start(self, target: Target) -> None:
        try:
            session = await self.connect(target)
        except Exception as exc:
            # Imported only now: a start that connects never needs it.
            from queuedesk.tui.screens.connect import ConnectScreen

            self._failed_at_start = (target, exc)  # what the connect screen's own attempt gets
            await self.switch_screen(ConnectScreen(target, connect_now=True))
            return
        await self.start_session(session)

    async def start_session(self, session: Session) -> None:
        from queuedesk.tui.screens.queues import QueuesScreen

        old, self.session = self.session, session
        if old is not None and old is not session:
            await old.close()
        if self.outbox is not None:
            self.outbox.close()
        self.outbox = None
        if session.me is not None:
            self.outbox = self.unsent_work.open_outbox(session)
        await self.switch_screen(QueuesScreen())

    def _outbox_changed(self) -> None:
        self.outbox_changed.publish(None)

    def outbox_task_ids(self, queue_id: int) -> list[int]:
        return self.outbox.task_ids(queue_id) if self.outbox is not None else []

    def exit(
        self, result: None = None, return_code: int = 0, message: "RenderableType | None" = None
    ) -> None:
        self.ended_from_outside.asked_to_exit()
        super().exit(result, return_code, message)

    @on(ExitApp)
    def _ended_from_outside(self, event: ExitApp) -> None:
        self.ended_from_outside.on_exit_app(event)  # the browser tab closed: quit as ctrl+q does

    async def action_quit(self) -> None:
        """Quitting sends what waits and gives claims back; work the server did not take is not
        left behind without a word (`app_parts/quitting.py`)."""
        await self.quitting.quit()

    async def connect(self, target: Target) -> Session:
        """Open a session for `target`; raises the client's errors (the connect screen explains them)."""
        failed, self._failed_at_start = self._failed_at_start, None
        if failed is not None and failed[0] == target:
            raise failed[1]  # the start's attempt just failed: say why without asking the server again
        assert target.token is not None
        if web_session():
            check_allowed(target.url)  # before any request leaves the serving machine
        return await open_session(target.url, target.token.get_secret_value(), target.org)

    def report(self, exc: BaseException, *, doing: str = "") -> None:
        """The one place failures become notifications; a refused key goes back to Connect, a refusal
        by role first asks the server who we are now (the role may have changed meanwhile)."""
        if isinstance(exc, SessionEnded):
            return  # the key was refused meanwhile: `lost_key` says so, once
        if isinstance(exc, errors.AuthenticationError) and self.session is not None:
            if not self._losing_key:
                self._losing_key = True
                self.call_later(self.lost_key, str(exc))
            return
        if isinstance(exc, errors.Forbidden) and self.session is not None and self.session.extensions:
            if not self._checking_role:
                self._checking_role = True
                self.run_worker(self._check_role(exc, doing), group="role", exit_on_error=False)
            return
        self._tell(exc, doing)

    def server_answered(self) -> None:
        """A refresh got an answer: the next outage is said again, and the role is read again once
        a refresh interval (an admin may have changed it: no 403 tells of a promotion)."""
        self._unreachable_said = False
        session = self.session
        if session is None or not session.extensions or self._checking_role:
            return
        now = self.clock.now()
        last = self._role_read_at
        if last is not None and (now - last).total_seconds() < self.settings.refresh_seconds:
            return
        self._role_read_at = now
        self._checking_role = True
        self.run_worker(self._check_role(None, "Refreshing"), group="role", exit_on_error=False)

    def _tell(self, exc: BaseException, doing: str) -> None:
        if isinstance(exc, errors.ConnectionFailed) and doing in LOADING:
            # A screen's parts fail together when the server is down (counts, pending, history):
            # one notification says it for the outage, not one per part (r says it tried again).
            if self._unreachable_said:
                return
            self._unreachable_said = True
        from queuedesk.tui.explanations import explain  # only when something failed

        explanation = explain(exc)
        title = f"{doing}: {explanation.title}" if doing else explanation.title
        self.notify(explanation.message, title=title, severity=explanation.severity, timeout=8)  # type: ignore[arg-type]

    async def _check_role(self, refused: errors.Forbidden | None, doing: str) -> None:
        """Read /me again (after the 403 `refused`, or once a refresh); a changed role is said and the
        open screens follow it."""
        session = self.session
        try:
            if session is None:
                return
            try:
                me = await session.client.me_again()
            except errors.AuthenticationError as exc:
                self.report(exc)
                return
            except errors.QueueDeskError:
                if refused is not None:
                    self._tell(refused, doing)
                return  # a refresh's own read: the refresh says what is wrong with the server
            if session is not self.session:
                return
            before = session.me
            session.me = me
            if before is not None and before.role == me.role:
                if refused is not None:
                    self._tell(refused, doing)
                return
            self.notify(
                f"Your role is now {me.role} (an admin changed it): the screens show what a {me.role} may do.",
                title="Role changed",
                severity="warning",
                timeout=15,
            )
            await self.role_changed()
        finally:
            self._checking_role = False

    async def role_changed(self) -> None:
        """Every open screen follows the session's role: headers, tabs, keys; screens it may no longer
        use close (top first)."""
        from queuedesk.tui.widgets.context_bar import ContextBar

        for screen in reversed(self.screen_stack):
            gone = isinstance(screen, LimitedByRole) and not screen.allowed_for_role()
            if gone and screen is self.screen and len(self.screen_stack) > 2:
                await self.pop_screen()
                continue
            if isinstance(screen, FollowsRole):
                await screen.follow_role()
            for bar in screen.query(ContextBar):
                bar.render_bar()
            screen.refresh_bindings()

    async def lost_key(self, message: str) -> None:
        from queuedesk.tui.screens.connect import ConnectScreen

        target = self.target
        session = self.session
        try:
            if session is not None:
                target = Target(session.url, None, session.organization_id, "the lost session")
            # The screens go before the session: what they still run meets no missing session.
            while len(self.screen_stack) > 2:
                await self.pop_screen()
            await self.switch_screen(
                ConnectScreen(
                    target,
                    problem="The server no longer accepts the key: it was revoked, or the account was "
                    f"disabled. Ask an admin, then connect with a key in force. ({message})",
                )
            )
            self.session = None
            if session is not None:
                await session.close()
        finally:
            self._losing_key = False

    # --- navigation: one place, so the palette and every screen open things the same way ----------

    def open_queue(self, queue: Queue) -> None:
        self.navigation.open_queue(queue)

    def open_work(self, queue: Queue) -> None:
        self.navigation.open_work(queue)

    def open_review(self, queue: Queue) -> None:
        self.navigation.open_review(queue)

    def open_flush(self, queue: Queue, on_done: Callable[[], None]) -> None:
        self.navigation.open_flush(queue, on_done)

    def open_create_task(self, queue: Queue) -> None:
        self.navigation.open_create_task(queue)

    def open_queue_editor(self, queue: Queue | None) -> None:
        self.navigation.open_queue_editor(queue)

    def open_refused(self) -> None:
        self.navigation.open_refused()

    def open_people(self) -> None:
        self.navigation.open_people()

    def action_keys(self) -> None:
        self.navigation.show_keys()

    def remember(self, key: str, value: object) -> None:
        """An app setting changed in the app (`submit_on_choice`): in force now, and kept in the
        configuration file for the next start (not in a browser session: nothing is written there)."""
        from queuedesk.api.config import ConfigError, remember_app_setting

        self.settings = self.settings.model_copy(update={key: value})
        if web_session():
            return
        try:
            remember_app_setting(self.profile_name, key, value)
        except (ConfigError, OSError) as exc:
            self.notify(
                f"Not kept for the next start: {exc}",
                title="Setting not saved",
                severity="warning",
                timeout=10,
            )

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()


if TYPE_CHECKING:
    from rich.console import RenderableType

    from queuedesk.tui.app_parts.holds_work import HoldsWork
    from queuedesk.tui.host import AppHost
    from queuedesk.tui.screens.review import ReviewScreen
    from queuedesk.tui.screens.work import WorkScreen

    def _hosts_the_screens(app: QueueDeskApp) -> AppHost:
        return app  # mypy checks here that the app has all the screens ask of it

    def _screens_hold_work(work: WorkScreen, review: ReviewScreen) -> list[HoldsWork]:
        return [work, review]  # and here that the screens holding a task offer what the app asks


__all__ = ["QueueDeskApp"]
