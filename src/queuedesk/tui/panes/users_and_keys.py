"""People (admins): the organization's users with role and last seen, and one user's keys.

Users: `a` adds one, `r` changes the role, `d` disables (after a confirmation) or enables again,
`enter` shows the user's keys and `k` issues one. Keys: `k` issues, `x` or `delete` revokes (after
a confirmation), `escape` goes back to the users. Refusals (the last admin, an email taken) are
notifications that say what to do.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from queuedesk.api.models import ApiKey, User
from queuedesk.tui.base import AppAccess
from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.modals.user_dialogs import AddUserScreen, IssuedKeyScreen, RoleScreen, tell_refusal
from queuedesk.tui.views.sort_cycle import next_sort
from queuedesk.tui.widgets.row_table import RowTable

# Fixed widths (they fit 80 columns): a table refilled on every load never shifts its columns.
USER_COLUMNS = [
    ("email", "Email", 24),
    ("name", "Name", 16),
    ("role", "Role", 10),
    ("status", "Status", 8),
    ("seen", "Last seen", 11),
]
# The users' order per column: text in any case, the most recently seen first, never-seen last.
USER_SORTS: dict[str, Callable[[User], Any]] = {
    "email": lambda user: user.email.casefold(),
    "name": lambda user: (user.name.casefold(), user.email.casefold()),
    "role": lambda user: (user.role, user.email.casefold()),
    "status": lambda user: (user.disabled, user.email.casefold()),
    "seen": lambda user: (
        user.last_seen_at is None,
        -(user.last_seen_at.timestamp() if user.last_seen_at else 0),
    ),
}
KEY_COLUMNS = [
    ("id", "Key", 6),
    ("prefix", "Prefix", 10),
    ("created", "Created", 10),
    ("used", "Last used", 10),
]


def ago(moment: datetime | None, now: datetime) -> str:
    """How long ago, in the largest whole unit: "never", "just now", "12 min ago", "3 d ago"."""
    if moment is None:
        return "never"
    seconds = (now - moment).total_seconds()
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


class PeopleView(AppAccess, Vertical):
    DEFAULT_CSS = """
    PeopleView { height: 1fr; }
    #people-users { height: auto; max-height: 70%; }
    #people-keys-title { padding: 1 1 0 1; text-style: bold; }
    #people-keys { height: auto; max-height: 12; }
    #people-status { padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="people.add"),
        Binding("r", "role", "Role", id="people.role"),
        Binding("d", "disable", "Disable/enable", id="people.disable"),
        Binding("k", "issue", "New key", id="people.issue"),
        Binding("x,delete", "revoke", "Revoke", id="people.revoke"),
        Binding("escape", "users", "Users", id="people.users"),
        Binding("s", "sort", "Sort", id="people.sort"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.users: list[User] = []
        self.keys: list[ApiKey] = []
        self.keys_of: User | None = None  # whose keys are shown
        self.sort: str | None = None  # the users' column they are ordered by (s); None: as listed

    def compose(self) -> ComposeResult:
        users = RowTable(id="people-users", cursor_type="row", zebra_stripes=True)
        for key, label, width in USER_COLUMNS:
            users.add_column(label, width=width, key=key)
        yield users
        yield Static("", id="people-keys-title", markup=False)
        keys = RowTable(id="people-keys", cursor_type="row")
        for key, label, width in KEY_COLUMNS:
            keys.add_column(label, width=width, key=key)
        yield keys
        yield Static("", id="people-status")

    def on_mount(self) -> None:
        self._show_keys_part(False)
        self.users_table.loading = True
        self.users_table.focus()
        self.load()

    @property
    def users_table(self) -> DataTable[str]:
        return self.query_one("#people-users", DataTable)

    @property
    def keys_table(self) -> DataTable[str]:
        return self.query_one("#people-keys", DataTable)

    @property
    def on_keys(self) -> bool:
        return self.keys_of is not None and self.screen.focused is self.keys_table

    def _show_keys_part(self, shown: bool) -> None:
        self.query_one("#people-keys-title").display = shown
        self.keys_table.display = shown

    # --- data --------------------------------------------------------------------------------------

    @work(exclusive=True, group="people-load")
    async def load(self, select: int | None = None) -> None:
        """Read the users (and the keys shown), keeping the cursor on the same user, or on `select`."""
        try:
            users = await self.session.client.users()
            keys = await self.session.client.user_keys(self.keys_of.id) if self.keys_of else []
        except Exception as exc:
            self.users_table.loading = False
            tell_refusal(self, exc, "Reading the users")
            return
        chosen = select if select is not None else self._selected_id()
        self.users = users
        self.users_table.loading = False
        self._fill_users(chosen)
        if self.keys_of is None:  # a table that was loading could not take the focus when shown
            self.users_table.focus()
        if self.keys_of is not None:
            self.keys_of = next((u for u in users if u.id == self.keys_of.id), None)
            self._fill_keys(keys)

    def _selected_id(self) -> int | None:
        user = self.selected_user()
        return user.id if user else None

    def _fill_users(self, select: int | None) -> None:
        table = self.users_table
        now = self.clock.now()
        if self.sort is not None:
            self.users.sort(key=USER_SORTS[self.sort])
        for key, label, _width in USER_COLUMNS:
            table.columns[ColumnKey(key)].label = Text(f"{label} ▲" if key == self.sort else label)
        table.clear()
        for user in self.users:
            status = "disabled" if user.disabled else "active"
            table.add_row(
                user.email, user.name, user.role, status, ago(user.last_seen_at, now), key=str(user.id)
            )
        ids = [u.id for u in self.users]
        if select in ids:
            table.move_cursor(row=ids.index(select))
        disabled = sum(u.disabled for u in self.users)
        admins = sum(u.role == "admin" and not u.disabled for u in self.users)
        self.query_one("#people-status", Static).update(
            f"{len(self.users)} users · {admins} active admin{'s' if admins != 1 else ''} · {disabled} disabled"
            + (" · read only: admins add people, change roles and issue keys" if self.read_only else "")
        )

    def _fill_keys(self, keys: list[ApiKey]) -> None:
        self.keys = keys
        now = self.clock.now()
        table = self.keys_table
        table.clear()
        for key in keys:
            table.add_row(
                str(key.id),
                key.prefix + "…",
                ago(key.created_at, now),
                ago(key.last_used_at, now),
                key=str(key.id),
            )
        user = self.keys_of
        if user is not None:
            count = f"{len(keys)} key{'s' if len(keys) != 1 else ''} in force" if keys else "no keys in force"
            self.query_one("#people-keys-title", Static).update(
                f"Keys of {user.email}: {count} · k new · x revoke · escape back"
            )

    def selected_user(self) -> User | None:
        if self.on_keys and self.keys_of is not None:
            return self.keys_of
        row = self.users_table.cursor_row
        return self.users[row] if 0 <= row < len(self.users) else None

    def selected_key(self) -> ApiKey | None:
        row = self.keys_table.cursor_row
        return self.keys[row] if self.on_keys and 0 <= row < len(self.keys) else None

    # --- actions -----------------------------------------------------------------------------------

    @property
    def read_only(self) -> bool:
        """Supervisors read the users (B17's listing) and change nothing; keys are for admins only."""
        session = self.qd.session
        return session is None or not session.manages_people

    def action_sort(self) -> None:
        """Each press orders the users by the next column (marked ▲ in its header), then as listed."""
        keys = [None, *(key for key, _label, _width in USER_COLUMNS)]
        self.sort = next_sort(keys, self.sort)
        if self.sort is None:
            self.users.sort(key=lambda user: user.id)
        self._fill_users(self._selected_id())
        self.users_table.refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sort":
            return not self.on_keys
        if self.read_only and action in ("add", "role", "disable", "issue", "revoke"):
            return False
        if action == "revoke":
            return self.on_keys
        if action == "users":
            return self.on_keys
        if action in ("role", "disable", "add"):
            return not self.on_keys
        return True

    @on(DataTable.RowSelected, "#people-users")
    def _open_keys(self) -> None:
        user = self.selected_user()
        if user is None or self.read_only:
            return
        self.keys_of = user
        self._show_keys_part(True)
        self._fill_keys([])
        self.keys_table.focus()
        self.refresh_bindings()
        self.load()

    def action_users(self) -> None:
        self.users_table.focus()
        self.refresh_bindings()

    def action_add(self) -> None:
        def added(user: User | None) -> None:
            if user is not None:
                self.notify(
                    f"{user.email} was added as {user.role}. k issues their key.",
                    title="User added",
                    timeout=6,
                )
                self.load(select=user.id)

        self.app.push_screen(AddUserScreen(), added)

    def action_role(self) -> None:
        user = self.selected_user()
        if user is None:
            return

        def chosen(role: str | None) -> None:
            if role is not None and role != user.role:
                self._change(user, f"{user.email} is now {role}.", role=role)

        self.app.push_screen(RoleScreen(user), chosen)

    def action_disable(self) -> None:
        user = self.selected_user()
        if user is None:
            return
        if user.disabled:
            self._change(user, f"{user.email} is enabled again; their keys work again.", disabled=False)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._change(user, f"{user.email} is disabled; their keys no longer work.", disabled=True)

        self.app.push_screen(
            ConfirmScreen(
                f"Disable {user.name} ({user.email})?",
                "Every key of theirs stops working at once, on every server. Nothing of theirs is "
                "deleted: d enables them again.",
                "Disable",
            ),
            confirmed,
        )

    @work(group="people-change")
    async def _change(
        self, user: User, done: str, *, role: str | None = None, disabled: bool | None = None
    ) -> None:
        try:
            await self.session.client.update_user(user.id, role=role, disabled=disabled)
        except Exception as exc:
            tell_refusal(self, exc, f"Changing {user.email}")
            return
        self.notify(done, title="Saved", timeout=5)
        self.load()

    @work(group="people-change")
    async def action_issue(self) -> None:
        user = self.selected_user()
        if user is None:
            return
        try:
            issued = await self.session.client.issue_key(user.id)
        except Exception as exc:
            tell_refusal(self, exc, f"Issuing a key for {user.email}")
            return
        self.app.push_screen(IssuedKeyScreen(user, issued))
        if self.keys_of is not None and self.keys_of.id == user.id:
            self.load()

    def action_revoke(self) -> None:
        user, key = self.keys_of, self.selected_key()
        if user is None or key is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._revoke(user, key)

        self.app.push_screen(
            ConfirmScreen(
                f"Revoke key {key.prefix}… of {user.email}?",
                "Whoever uses this key is refused from their next request on, on every server. "
                "This cannot be undone: k issues a new key.",
                "Revoke",
            ),
            confirmed,
        )

    @work(group="people-change")
    async def _revoke(self, user: User, key: ApiKey) -> None:
        try:
            await self.session.client.revoke_key(user.id, key.id)
        except Exception as exc:
            tell_refusal(self, exc, f"Revoking key {key.prefix}…")
            return
        self.notify(f"Key {key.prefix}… of {user.email} is revoked.", title="Revoked", timeout=5)
        self.load()
