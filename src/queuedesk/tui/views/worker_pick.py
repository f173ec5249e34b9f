"""The history's worker filter for supervisors and admins: the organization's people offered as the
field is typed (any case; those who worked in the queue lately first), and what was typed read as
one of them: an email or a name in any case gives that person's email as the server stores it (its
filter is exact)."""

import contextlib
from dataclasses import dataclass
from datetime import datetime

from textual.suggester import SuggestFromList

from queuedesk.api.client import QueueDeskClient
from queuedesk.api.models import User


@dataclass(frozen=True)
class Picked:
    email: str | None  # the person's email as stored; None when nobody matches
    problem: str | None = None


class WorkerPick:
    def __init__(self, users: list[User], worked_here: set[str] | None = None) -> None:
        """`worked_here`: emails of the people who completed tasks of this queue lately; they are
        offered first."""
        self.worked_here = {email.casefold() for email in worked_here or set()}
        self.users = sorted(
            users,
            key=lambda user: (
                user.email.casefold() not in self.worked_here,
                user.name.casefold(),
                user.email.casefold(),
            ),
        )

    def has_worked_here(self, user: User) -> bool:
        return user.email.casefold() in self.worked_here

    def matching(self, typed: str, at_most: int = 8) -> list[User]:
        """The people whose name or email holds what was typed, in any case (everyone when empty)."""
        wanted = typed.strip().casefold()
        found = [u for u in self.users if wanted in u.name.casefold() or wanted in u.email.casefold()]
        return found[:at_most]

    def suggester(self) -> SuggestFromList:
        return SuggestFromList([user.email for user in self.users], case_sensitive=False)

    def listing(self, at_most: int = 6) -> str:
        names = [user.email for user in self.users[:at_most]]
        more = len(self.users) - len(names)
        return ", ".join(names) + (f" and {more} more" if more > 0 else "")

    def read(self, typed: str) -> Picked:
        wanted = typed.strip().casefold()
        by_email = [user for user in self.users if user.email.casefold() == wanted]
        if by_email:
            return Picked(by_email[0].email)
        by_name = [user for user in self.users if user.name.casefold() == wanted]
        if len(by_name) == 1:
            return Picked(by_name[0].email)
        if len(by_name) > 1:
            return Picked(None, f"{len(by_name)} people are named so: type the email")
        starting = [user for user in self.users if user.email.casefold().startswith(wanted)]
        if len(starting) == 1:
            return Picked(starting[0].email)
        return Picked(None, f"nobody here: {self.listing()}")


async def read_worker_pick(client: QueueDeskClient, queue_id: int, since: datetime) -> WorkerPick | None:
    """The organization's people, those who completed tasks of the queue since `since` first; None
    when the people cannot be read (an older server, a refusal: the field takes an email as typed)."""
    try:
        users = await client.users()
    except Exception:
        return None
    worked: set[str] = set()
    with contextlib.suppress(Exception):  # without the stats, everyone is offered alike
        stats = await client.stats(queue_id, since=since, bucket_minutes=24 * 60)
        worked = {worker.email for worker in stats.by_worker}
    return WorkerPick(users, worked)
