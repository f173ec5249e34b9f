"""Connect: the server's address and an API key (masked); the organization only when the server cannot tell."""

from typing import TYPE_CHECKING, ClassVar, cast

from pydantic import SecretStr
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, LoadingIndicator, Static

from queuedesk.api import errors
from queuedesk.api.numbers import plain_int
from queuedesk.tui.base import KeysInOrder, styles
from queuedesk.tui.explanations import explain
from queuedesk.tui.keys.ordered_keys import OrderedInput
from queuedesk.tui.session import KeyNotInOrganization, NeedsOrganization
from queuedesk.tui.settings import Target, web_session
from queuedesk.tui.terminal.browser_rules import ServerNotAllowed
from queuedesk.tui.widgets.app_footer import AppFooter

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost


def why_not(exc: BaseException, url: str) -> str:
    """What failed and what to check, in the words of someone connecting."""
    if isinstance(exc, errors.AuthenticationError):
        return "The server refused this API key. Check it for typos, or ask an admin for a new one."
    if isinstance(exc, errors.PlainHTTPPort):
        return f"{exc.message.split(' failed: ', 1)[-1]} Change the address, then connect again."
    if isinstance(exc, errors.Timeout):
        return f"{url} did not answer in time. Check the address, or try again when the server is less busy."
    if isinstance(exc, errors.ConnectionFailed):
        return f"Cannot reach {url}. Is the server running, and is the address right (scheme, host, port)?"
    if isinstance(exc, KeyNotInOrganization | NeedsOrganization | ServerNotAllowed):
        return str(exc)
    if isinstance(exc, errors.UnexpectedResponse | errors.NotFound):
        if web_session():  # what another server answered is never shown to whoever drives the page
            return f"{url} does not answer like a task queue server. Check the address."
        return f"{url} does not answer like a task queue server. Check the address. ({exc})"
    return explain(exc).message


def _intro() -> str:
    if web_session():
        return (
            "Paste the address of the server and your API key. This is a web session: nothing is saved "
            "on the machine serving it (no profile; work not yet sent is kept only while this page is open)."
        )
    return (
        "Paste the address of the server and your API key. They are saved in a profile "
        "(readable by you only), so next time the app opens straight away."
    )


class ConnectScreen(KeysInOrder[None]):
    """Asks for the connection, checks it, saves it as a profile; also shown when a key stops working."""

    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    AUTO_FOCUS = ""  # `on_mount` chooses the first empty field: keys typed meanwhile wait for it
    BINDINGS: ClassVar = [Binding("enter", "connect", "Connect", id="connect.submit", priority=True)]

    def __init__(self, target: Target | None, *, connect_now: bool = False, problem: str = "") -> None:
        super().__init__()
        self.target = target
        self.connect_now = connect_now
        self.problem = problem
        self.needs_org = target is not None and target.org is not None and connect_now is False

    @property
    def qd(self) -> "AppHost":
        return cast("AppHost", self.app)

    def compose(self) -> ComposeResult:
        target = self.target
        with Vertical(id="connect-box"):
            yield Label("Connect to a QueueDesk server", id="connect-title")
            yield Static(_intro(), id="connect-intro")
            yield Label("Server address")
            yield OrderedInput(
                target.url if target else "",
                placeholder="http://127.0.0.1:8000",
                id="url",
                compact=True,
            )
            yield Label("API key")
            yield OrderedInput(
                target.token.get_secret_value() if target and target.token else "",
                placeholder="your API key",
                password=True,
                id="token",
                compact=True,
            )
            with Vertical(id="org-row"):
                yield Label("Organization id (needed only where the server cannot tell it from the key)")
                yield OrderedInput(
                    str(target.org) if target and target.org else "",
                    placeholder="e.g. 1",
                    type="integer",
                    id="org",
                    compact=True,
                )
            with Vertical(id="profile-row"):
                yield Label("Save as profile")
                yield OrderedInput(self.qd.profile_name, id="profile", compact=True)
            yield Static(self.problem, id="connect-problem", markup=False)
            with Horizontal(id="connect-actions"):
                yield Button("Connect", variant="primary", id="connect")
                yield LoadingIndicator(id="connect-waiting")
        yield AppFooter()

    def on_mount(self) -> None:
        self.query_one("#org-row").display = self.needs_org
        self.query_one("#profile-row").display = not web_session()
        self.query_one("#connect-waiting").display = False
        if self.connect_now and self.target is not None:
            self.query_one("#connect-box").display = False
            self._connect(self.target, save=False)
        else:
            self._focus_first_empty()

    def _focus_first_empty(self) -> None:
        for field_id in ("url", "token", "org"):
            field = self.query_one(f"#{field_id}", Input)
            if field.display and field.parent is not None and field.parent.display and not field.value:
                field.focus()
                return
        self.query_one("#connect", Button).focus()

    @on(Button.Pressed, "#connect")
    def action_connect(self) -> None:
        # With the fields as every key typed before this one left them (a burst: the key's last letters
        # may not have reached the field yet).
        self.after_keys(self._connect_with_fields)

    def _connect_with_fields(self) -> None:
        url = self.query_one("#url", Input).value.strip()
        token = self.query_one("#token", Input).value.strip()
        org_text = self.query_one("#org", Input).value.strip()
        if not url:
            self._show_problem("Enter the server's address, e.g. http://127.0.0.1:8000.")
            return
        if not url.startswith(("http://", "https://")):
            self._show_problem("The address starts with http:// or https://.")
            return
        if not token:
            self._show_problem("Enter your API key (an admin can issue one).")
            return
        org = plain_int(org_text) if self.needs_org else None
        self._connect(Target(url.rstrip("/"), SecretStr(token), org, "the connect screen"), save=True)

    def _show_problem(self, text: str) -> None:
        self.query_one("#connect-box").display = True
        self.query_one("#connect-problem", Static).update(text)
        self._focus_first_empty()

    def _field_at_fault(self, exc: BaseException) -> str:
        """The field to change after a failed connect: the key, the organization, else the address."""
        if isinstance(exc, errors.AuthenticationError):
            return "token"
        if self.needs_org and isinstance(exc, errors.WrongOrganization | KeyNotInOrganization):
            return "org"
        return "url"

    @work(exclusive=True, group="connect")
    async def _connect(self, target: Target, *, save: bool) -> None:
        self.query_one("#connect-waiting").display = True
        self.query_one("#connect", Button).disabled = True
        self.query_one("#connect-problem", Static).update(f"Connecting to {target.url}…")
        try:
            session = await self.qd.connect(target)
        except NeedsOrganization as exc:
            self.needs_org = True
            self.query_one("#org-row").display = True
            self._show_problem(str(exc))
            self.query_one("#org", Input).focus()
            return
        except Exception as exc:
            self._show_problem(why_not(exc, target.url))
            self.query_one(f"#{self._field_at_fault(exc)}", Input).focus()  # the one thing to change
            return
        finally:
            self.query_one("#connect-waiting").display = False
            self.query_one("#connect", Button).disabled = False
        if save and self.qd.save_profile is not None and target.token:
            name = self.query_one("#profile", Input).value.strip() or "default"
            try:
                self.qd.save_profile(
                    name,
                    target.url,
                    target.token.get_secret_value(),
                    None if session.extensions else session.organization_id,
                )
            except OSError as exc:
                self.qd.notify(f"Connected, but the profile could not be saved: {exc}", severity="warning")
        # Not awaited here: switching screens removes this screen, and with it this worker.
        self.app.call_later(self.qd.start_session, session)
