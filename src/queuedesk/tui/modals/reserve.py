"""Reserving a task for a person (B25, supervisors and admins): the organization's enabled workers
and admins, "nobody" first (lifts a reservation), filtered as a name or email is typed; `enter`
picks the highlighted one, `escape` leaves it as it was. The people are read as the dialog opens,
by the dialog's own work (gone with it)."""

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from queuedesk.api import errors
from queuedesk.api.client.assign import reservable
from queuedesk.api.models import AssignedTask, User
from queuedesk.tui.base import AppModal
from queuedesk.tui.keys.ordered_keys import OrderedInput, OrderedOptionList

NOBODY = "-nobody-"  # the option that lifts the reservation (no email starts with "-")


@dataclass(frozen=True)
class Reservation:
    """What the dialog chose: a person's email, or None (nobody: the reservation lifted)."""

    email: str | None
    name: str | None = None


class ReserveScreen(AppModal[Reservation | None]):
    """Dismisses with the `Reservation` chosen, or None when left as it was."""

    DEFAULT_CSS = """
    ReserveScreen { align: center middle; }
    #reserve-box { width: 72; max-width: 100%; height: auto; max-height: 100%; border: thick $primary; padding: 0 2; }
    #reserve-title { text-style: bold; padding-bottom: 1; }
    #reserve-note { color: $text-muted; }
    #reserve-people { height: auto; max-height: 10; }
    #reserve-problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="reserve.cancel"),
        Binding("down", "move(1)", "Next person", show=False),
        Binding("up", "move(-1)", "Previous person", show=False),
    ]

    def __init__(self, task: AssignedTask) -> None:
        super().__init__()
        self.for_task = task
        self.people: list[User] | None = None  # once read

    def compose(self) -> ComposeResult:
        now = self.for_task.reserved_for
        with Vertical(id="reserve-box"):
            yield Label(f"Reserve task {self.for_task.id} for", id="reserve-title", markup=False)
            yield Static(
                f"Reserved for {now} now. " if now else "Reserved for nobody now. ",
                id="reserve-now",
                markup=False,
            )
            yield OrderedInput(placeholder="a name or email (↑/↓ choose)", id="reserve-filter", compact=True)
            yield OrderedOptionList(id="reserve-people")
            yield Static("", id="reserve-problem", markup=False)
            yield Static(
                "The task reaches them before other work, and nobody else; a claim already held "
                "keeps the task until it ends. enter reserves · escape leaves it as it is.",
                id="reserve-note",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one("#reserve-people", OptionList).can_focus = False  # ↑/↓ in the field move it
        self.query_one("#reserve-filter", Input).focus()
        self._offer()
        self._read_people()

    @work(exclusive=True, group="reserve-people")
    async def _read_people(self) -> None:
        try:
            people = reservable(await self.session.client.users())
        except errors.QueueDeskError as exc:
            self.query_one("#reserve-problem", Static).update(
                f"The people could not be read: {exc.message} Type an email and press enter."
            )
            self.qd.report(exc, doing="Reading the people a task may be reserved for")
            return
        self.people = people
        self._offer()

    def _offer(self) -> None:
        typed = self.query_one("#reserve-filter", Input).value.strip().casefold()
        options = [Option(Content.assemble(("Nobody", "bold"), "  lift the reservation"), id=NOBODY)]
        if self.people is None:
            options.append(Option(Content("reading the people…"), id="-reading-", disabled=True))
        for user in self.people or []:
            if typed and typed not in user.name.casefold() and typed not in user.email.casefold():
                continue
            mark = " (reserved now)" if user.email == self.for_task.reserved_for else ""
            options.append(
                Option(
                    Content.assemble((user.name, "bold"), f"  {user.email}  {user.role}{mark}"),
                    id=user.email,
                )
            )
        listing = self.query_one("#reserve-people", OptionList)
        listing.set_options(options)
        # Typing a name highlights the first person who matches, not "Nobody".
        listing.highlighted = 1 if typed and len(options) > 1 and self.people else 0

    @on(Input.Changed, "#reserve-filter")
    def _typed(self) -> None:
        self._offer()

    def action_move(self, step: int) -> None:
        listing = self.query_one("#reserve-people", OptionList)
        if step > 0:
            listing.action_cursor_down()
        else:
            listing.action_cursor_up()

    @on(Input.Submitted, "#reserve-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.after_keys(self._pick)

    def _pick(self) -> None:
        listing = self.query_one("#reserve-people", OptionList)
        typed = self.query_one("#reserve-filter", Input).value.strip()
        option = None if listing.highlighted is None else listing.get_option_at_index(listing.highlighted)
        if option is None or option.disabled:
            if "@" not in typed:
                self.query_one("#reserve-problem", Static).update(
                    "Nobody matches: choose a person with ↑/↓, or type their email."
                )
                return
            self.dismiss(Reservation(typed))  # the server says whether they may have it
            return
        if option.id == NOBODY:
            self.dismiss(Reservation(None))
            return
        user = next((u for u in self.people or [] if u.email == option.id), None)
        self.dismiss(Reservation(option.id, user.name if user else None))

    @on(OptionList.OptionSelected, "#reserve-people")
    def _clicked(self) -> None:
        self._pick()

    def action_cancel(self) -> None:
        self.dismiss(None)
