"""People and what they did: users, their keys, the audit log (admins)."""

from datetime import datetime
from typing import Any, Literal

from queuedesk.api import models
from queuedesk.api.client.core import ClientCore
from queuedesk.api.client.results import AuditSort
from queuedesk.api.client.transport import body_of
from queuedesk.api.timestamps import format_timestamp


class PeopleMixin(ClientCore):
    """B17 and B20."""

    async def _users_path(self, what: str) -> str:
        await self._require_extensions(what)
        return f"/orgs/{await self.org()}/users"

    async def users(self) -> list[models.User]:
        """B17. The organization's users, in id order."""
        what = "Listing users"
        return self._parse_list(models.User, await self._get(await self._users_path(what), what), what)

    async def create_user(self, email: str, name: str, role: str) -> models.User:
        """B17. Never retried: a repeated add is a 409 for the duplicate email."""
        what = f"Adding user {email}"
        body = {"email": email, "name": name, "role": role}
        response = await self._request(
            "POST", await self._users_path(what), what, json=body, idempotent=False
        )
        return self._parse(models.User, body_of(response, what), what)

    async def update_user(
        self, user_id: int, *, name: str | None = None, role: str | None = None, disabled: bool | None = None
    ) -> models.User:
        """B17. Changes only what is given; demoting or disabling the last active admin is a 409
        `last_admin`."""
        what = f"Changing user {user_id}"
        body = {k: v for k, v in {"name": name, "role": role, "disabled": disabled}.items() if v is not None}
        path = f"{await self._users_path(what)}/{user_id}"
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.User, body_of(response, what), what)

    async def user_keys(self, user_id: int) -> list[models.ApiKey]:
        """B17. The user's keys in force, by prefix."""
        what = f"Listing the keys of user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys"
        return self._parse_list(models.ApiKey, await self._get(path, what), what)

    async def issue_key(self, user_id: int) -> models.IssuedKey:
        """B17. The new key is in the answer only: never retried, a retry would issue a second one."""
        what = f"Issuing a key for user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.IssuedKey, body_of(response, what), what)

    async def revoke_key(self, user_id: int, key_id: int) -> None:
        """B17. Refused at once by every server on the database."""
        what = f"Revoking key {key_id} of user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys/{key_id}"
        await self._request("DELETE", path, what, idempotent=False)  # a retry would answer 404

    # --- the audit log (B20, admins) ---------------------------------------------------------------

    async def audit(
        self,
        *,
        action: str | None = None,
        actor: str | None = None,
        queue_id: int | None = None,
        since: datetime | None = None,
        offset: int = 0,
        limit: int = 100,
        order: Literal["asc", "desc"] | None = None,
        sort: AuditSort | None = None,
    ) -> models.AuditPage:
        """B20. What people did, newest first (`order="asc"`: oldest first; `sort` by action or
        actor); filtered by action, actor's email, queue, time."""
        what = "Reading the audit log"
        await self._require_extensions(what)
        params: dict[str, Any] = {"offset": offset, "limit": limit}
        for name, value in (
            ("action", action),
            ("actor", actor),
            ("queue_id", queue_id),
            ("order", order),
            ("sort", sort),
        ):
            if value is not None:
                params[name] = value
        if since is not None:
            params["since"] = format_timestamp(since)
        path = f"/orgs/{await self.org()}/audit"
        return self._parse(models.AuditPage, await self._get(path, what, params), what)
