"""B17: an admin lists, adds, changes and disables the organization's users, and issues and revokes
their keys. A disabled user's keys and a revoked key stop working at once in every process: both
changes move the access version (see store/access_version.py)."""

from typing import Any

from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.api.user_rules import user_problems
from queuedesk.server.access import UserCaller
from queuedesk.server.http import JSONResponse, empty, json_object, read_json
from queuedesk.server.http_errors import invalid
from queuedesk.server.refusals import EmailTaken
from queuedesk.server.routes import db_of
from queuedesk.server.serialize import ts
from queuedesk.server.store import users
from queuedesk.server.store.records import Principal
from queuedesk.server.store.users import UserRecord

NEW_USER_FIELDS = ("email", "name", "role")
CHANGEABLE_FIELDS = ("name", "role", "disabled")


def _user(user: UserRecord) -> dict[str, Any]:
    return {
        "id": user.id,
        "email": user.email,
        "name": user.name,
        "role": user.role,
        "disabled": user.disabled,
        "created_at": ts(user.created_at),
        "last_seen_at": ts(user.last_seen_at),
    }


async def list_users(request: Request, principal: Principal) -> Response:
    found = await db_of(request).read(users.list_users, principal.organization_id)
    return JSONResponse([_user(user) for user in found])


async def create_user(request: Request, principal: Principal) -> Response:
    body = json_object(await read_json(request), allowed=NEW_USER_FIELDS, required=NEW_USER_FIELDS)
    problems = user_problems(body)
    if problems:
        raise invalid(problems)
    email, name = body["email"], body["name"].strip()
    try:
        user = await db_of(request).write(
            users.add_user, principal.organization_id, email, name, body["role"], utcnow()
        )
    except IntegrityError:  # the same email added by another request meanwhile
        raise EmailTaken(email) from None
    return JSONResponse(_user(user))


async def update_user(request: Request, caller: UserCaller) -> Response:
    body = json_object(await read_json(request), allowed=CHANGEABLE_FIELDS)
    problems = user_problems(body)
    if problems:
        raise invalid(problems)
    changes = {field: value.strip() if field == "name" else value for field, value in body.items()}
    user = await db_of(request).write(
        users.change_user, caller.principal.organization_id, caller.user.id, changes
    )
    return JSONResponse(_user(user))


async def list_keys(request: Request, caller: UserCaller) -> Response:
    keys = await db_of(request).read(users.list_keys, caller.user.id)
    return JSONResponse(
        [
            {
                "id": key["id"],
                "prefix": key["prefix"],
                "created_at": ts(key["created_at"]),
                "last_used_at": ts(key["last_used_at"]),
            }
            for key in keys
        ]
    )


async def create_key(request: Request, caller: UserCaller) -> Response:
    issued = await db_of(request).write(users.issue_key, caller.user, utcnow())
    return JSONResponse({"id": issued.id, "prefix": issued.prefix, "key": issued.key})


async def revoke_key(request: Request, caller: UserCaller) -> Response:
    # The route found the key in force; revoking one revoked meanwhile changes nothing.
    await db_of(request).write(users.revoke_key, caller.user.id, request.path_params["key"], utcnow())
    return empty()
