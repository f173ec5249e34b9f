"""One connection to a server as the app uses it: the client, who we are, what the server offers."""

from dataclasses import dataclass

from queuedesk.api import errors
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.models import Me
from queuedesk.api.setting_names import APP

ROLES_THAT_WORK = frozenset({"admin", "worker"})


class NeedsOrganization(errors.QueueDeskError):
    """The server has no /me, so it cannot tell which organization the key belongs to."""


class KeyNotInOrganization(errors.QueueDeskError):
    hint = "Check the organization id you connected with (the profile's org)."


class SessionEnded(errors.QueueDeskError):
    """Asked for the session after the server stopped accepting the key (the app says that itself)."""


@dataclass
class Session:
    client: QueueDeskClient
    url: str
    organization_id: int
    me: Me | None  # None: the server speaks only the documented Task Queue API

    @property
    def extensions(self) -> bool:
        return self.me is not None

    @property
    def role(self) -> str | None:
        return self.me.role if self.me else None

    @property
    def is_admin(self) -> bool:
        # A basic server does not tell roles: offer its actions and let it refuse.
        return self.me is None or self.me.role == "admin"

    @property
    def can_work(self) -> bool:
        return self.me is not None and self.me.role in ROLES_THAT_WORK

    @property
    def can_watch(self) -> bool:
        """Supervisors and admins see other people's work (history of everyone, webhook)."""
        return self.me is None or self.me.role in ("admin", "supervisor")

    @property
    def manages_people(self) -> bool:
        """Admins of a QueueDesk server (a basic one has no users endpoints)."""
        return self.me is not None and self.me.role == "admin"

    @property
    def who(self) -> str:
        if self.me is None:
            return "basic API"
        return f"{self.me.name} ({self.me.role})"

    @property
    def organization(self) -> str:
        return self.me.organization if self.me else f"organization {self.organization_id}"

    async def close(self) -> None:
        await self.client.aclose()


async def open_session(url: str, token: str, org: int | None, *, timeout: float = 10.0) -> Session:
    """Connect and check the key and organization, or raise an error that says which is wrong."""
    client = QueueDeskClient(url, token, org, timeout=timeout, setting_names=APP)
    try:
        try:
            me: Me | None = await client.me()
        except errors.NotSupported:
            me = None
        if me is not None:
            if org is not None and org != me.organization_id:
                raise KeyNotInOrganization(
                    f"This key belongs to {me.organization} (organization {me.organization_id}), "
                    f"not to organization {org}."
                )
            org = me.organization_id
            client.organization_id = org
        elif org is None:
            raise NeedsOrganization(
                "This server does not tell which organization a key belongs to: enter its id. "
                "(If it is a QueueDesk server, check the address instead: nothing after the port.)"
            )
        else:
            try:
                await client.queues()
            except errors.Forbidden:  # a Task Queue server answers 403 for an organization not the key's
                raise KeyNotInOrganization(f"The key has no access to organization {org}.") from None
        return Session(client=client, url=client.base_url, organization_id=org, me=me)
    except BaseException:
        await client.aclose()
        raise
