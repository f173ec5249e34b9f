"""The People screen's dialogs: add a user, choose a role, and a new key shown this once.

Adding checks the fields with the server's own rules (`api/user_rules.py`) before sending, and stays
open when the server refuses (a duplicate email), so nothing typed is lost.
"""

import asyncio
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from queuedesk.api import errors
from queuedesk.api.models import IssuedKey, User
from queuedesk.api.user_rules import ROLES, email_problem, name_problem
from queuedesk.tui.base import NEXT_ON_ENTER, AppAccess, AppModal
from queuedesk.tui.keys.ordered_keys import OrderedInput, OrderedOptionList

ROLE_MEANINGS = {
    "admin": "everything, including people, keys and queues",
    "supervisor": "reads every queue, history, stats, webhook",
    "worker": "claims and completes tasks",
}

MODAL_CSS = """
AddUserScreen, RoleScreen, IssuedKeyScreen { align: center middle; }
.people-box { width: 72; max-width: 100%; height: auto; border: thick $primary; padding: 0 2; }
#new-user-email, #new-user-name, #new-user-role { border-title-color: $text-muted; border-title-style: bold; }
.people-title { text-style: bold; padding-bottom: 1; }
.people-note { color: $text-muted; }
.people-problem { color: $error; height: auto; }
.people-actions { height: auto; padding-top: 1; }
.people-actions Button { margin-right: 2; }
#new-user-role { height: auto; max-height: 5; }
#role-choices { height: auto; }
#issued-key { text-style: bold; padding: 1 0; }
"""


class RoleList(OrderedOptionList):
    """The roles, one marked as chosen (●) in bold: up stops at the first, down at the last (an admin
    was once made by a down too many that wrapped from worker to admin). Its moving keys act in the
    order typed, as every field's do (`OrderedOptionList`)."""

    DEFAULT_CSS = """
    RoleList > .option-list--option-highlighted { text-style: bold reverse; }
    """

    def __init__(self, chosen: str, *, id: str | None = None) -> None:
        super().__init__(*[Option(self._prompt(role, role == chosen), id=role) for role in ROLES], id=id)
        self._chosen = chosen

    @staticmethod
    def _prompt(role: str, chosen: bool) -> str:
        return f"{'●' if chosen else '○'} {role:<11} {ROLE_MEANINGS[role]}"

    @property
    def role(self) -> str:
        return ROLES[self.highlighted] if self.highlighted is not None else self._chosen

    def on_mount(self) -> None:
        self.highlighted = ROLES.index(self._chosen)

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted > 0:
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted < len(ROLES) - 1:
            super().action_cursor_down()

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        for index, role in enumerate(ROLES):
            self.replace_option_prompt_at_index(index, self._prompt(role, index == highlighted))
        if self.border_title is not None:
            self.border_title = f"Role: {self.role}"


SELECT_TO_COPY = (
    "Not confirmed as copied: select the key above with the mouse (shift+drag in tmux and most "
    "terminals) and copy it with the terminal's own copy."
)


def refusal_title(exc: errors.QueueDeskError) -> str:
    """Names the refusals people meet here by what they are, not by their status."""
    if exc.code == "last_admin":
        return "The last admin"
    if isinstance(exc, errors.Conflict) and "already has a user" in exc.message:
        return "Email taken"
    return ""


def tell_refusal(access: AppAccess, exc: BaseException, doing: str) -> None:
    """A refusal as a notification that says what to do; anything else as the app reports it."""
    title = refusal_title(exc) if isinstance(exc, errors.QueueDeskError) else ""
    if title:
        access.qd.notify(str(exc), title=title, severity="warning", timeout=10)
    else:
        access.qd.report(exc, doing=doing)


def labelled(field: Input, label: str) -> Input:
    """The field's name in its border, still there once the placeholder is typed over."""
    field.border_title = label
    return field


class AddUserScreen(AppModal[User | None]):
    """Dismisses with the user the server added, or None."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="people.add.cancel"),
        Binding("ctrl+s", "save", "Add", id="people.add.save", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="people-box"):
            yield Label("Add a user", classes="people-title")
            # enter moves on (email, name, role) as tab does: as the key is read, not after it.
            yield labelled(
                OrderedInput(
                    placeholder="email, e.g. kim@example.com", id="new-user-email", classes=NEXT_ON_ENTER
                ),
                "Email",
            )
            yield labelled(
                OrderedInput(placeholder="name, e.g. Kim Lee", id="new-user-name", classes=NEXT_ON_ENTER),
                "Name",
            )
            roles = RoleList("worker", id="new-user-role")
            roles.border_title = "Role: worker"
            yield roles
            yield Static("", id="new-user-problem", classes="people-problem", markup=False)
            yield Static(
                "ctrl+s adds · escape cancels · then k issues their key",
                classes="people-note",
            )
            with Horizontal(classes="people-actions"):
                yield Button("Cancel", id="new-user-cancel")
                yield Button("Add", variant="primary", id="new-user-add")

    def on_mount(self) -> None:
        self.query_one("#new-user-email", Input).focus()

    @property
    def role(self) -> str:
        return self.query_one("#new-user-role", RoleList).role

    def problems(self) -> list[str]:
        email = self.query_one("#new-user-email", Input).value.strip()
        name = self.query_one("#new-user-name", Input).value
        found = [f"Email: {p}" for p in [email_problem(email)] if p]
        found += [f"Name: {p}" for p in [name_problem(name)] if p]
        return found

    @on(OptionList.OptionSelected, "#new-user-role")
    @on(Button.Pressed, "#new-user-add")
    def action_save(self) -> None:
        self.after_keys(self._save)  # with the fields as every key typed before this one left them

    def _save(self) -> None:
        problems = self.problems()
        self.query_one("#new-user-problem", Static).update("\n".join(problems))
        if not problems:
            self._add()

    @work(exclusive=True, group="people-add")
    async def _add(self) -> None:
        email = self.query_one("#new-user-email", Input).value.strip()
        name = self.query_one("#new-user-name", Input).value.strip()
        try:
            user = await self.session.client.create_user(email, name, self.role)
        except errors.QueueDeskError as exc:
            self.query_one("#new-user-problem", Static).update(exc.message)
            tell_refusal(self, exc, "Adding a user")
            return
        self.dismiss(user)

    @on(Button.Pressed, "#new-user-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class RoleScreen(AppModal[str | None]):
    """Dismisses with the role chosen (the current one highlighted), or None."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="people.role.cancel")]

    def __init__(self, user: User) -> None:
        super().__init__()
        self.user = user

    def compose(self) -> ComposeResult:
        with Vertical(classes="people-box"):
            yield Label(f"Role of {self.user.name} ({self.user.email})", classes="people-title", markup=False)
            yield RoleList(self.user.role if self.user.role in ROLES else "worker", id="role-choices")
            yield Static("enter chooses · escape cancels", classes="people-note")

    def on_mount(self) -> None:
        self.query_one("#role-choices", OptionList).focus()

    @on(OptionList.OptionSelected, "#role-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class IssuedKeyScreen(AppModal[None]):
    """A new key, shown this once; `c` copies it through the terminal's clipboard."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy", id="people.key.copy"),
        Binding("escape,enter", "close", "Close", id="people.key.close"),
    ]

    def __init__(self, user: User, issued: IssuedKey) -> None:
        super().__init__()
        self.user = user
        self.issued = issued

    def compose(self) -> ComposeResult:
        with Vertical(classes="people-box"):
            yield Label(f"New key for {self.user.email}", classes="people-title", markup=False)
            yield Static(self.issued.key, id="issued-key", markup=False)
            yield Static("", id="issued-key-hint", classes="people-problem", markup=False)
            yield Static(
                "This is the only time the key is shown: copy it now and give it to its owner. "
                f"Later it is listed as {self.issued.prefix}… only.",
                classes="people-note",
            )
            with Horizontal(classes="people-actions"):
                yield Button("Copy (c)", variant="primary", id="issued-copy")
                yield Button("Close", id="issued-close")

    def on_mount(self) -> None:
        self.query_one("#issued-copy", Button).focus()

    @on(Button.Pressed, "#issued-copy")
    @work(exclusive=True, group="copy-key")
    async def action_copy(self) -> None:
        from queuedesk.tui.settings import web_session
        from queuedesk.tui.terminal.clipboard import IN_THE_BROWSER, copy_confirmed

        where = await asyncio.to_thread(copy_confirmed, self.issued.key)
        self.app.copy_to_clipboard(self.issued.key)  # the terminal's clipboard too, where it takes it
        if where is not None:
            self.notify(f"The key is in {where}.", title="Copied", timeout=6)
            return
        self.query_one("#issued-key-hint", Static).update(SELECT_TO_COPY)
        if web_session():
            self.notify(IN_THE_BROWSER, title="Copied to the browser", timeout=10)
            return
        self.notify(
            "The key was handed to the terminal's clipboard, which cannot say whether it took it (tmux "
            "and many terminals drop it). If pasting gives nothing, select the key shown here to copy it.",
            title="Copy not confirmed",
            severity="warning",
            timeout=15,
        )

    @on(Button.Pressed, "#issued-close")
    def action_close(self) -> None:
        self.dismiss(None)
