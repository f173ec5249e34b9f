"""B17: an admin lists, adds, changes and disables the organization's users, and issues and revokes
their keys. A disabled user's keys and a revoked key stop working at once in every process: both
changes move the access version (see store/access_version.py)."""

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.api.user_rules import user_problems
from queuedesk.server.access import UserCaller
from queuedesk.server.http.http_errors import invalid
from queuedesk.server.http.plumbing import JSONResponse, empty, json_object, read_json
from queuedesk.server.http.serialize import ts
from queuedesk.server.routes import db_of
from queuedesk.server.rules.refusals import EmailTaken
from queuedesk.server.store import audit, users
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

    def add(conn: Connection) -> UserRecord:
        user = users.add_user(conn, principal.organization_id, email, name, body["role"], utcnow())
        audit.record(
            conn, principal, "user.create", None, _subject(user), {"name": user.name, "role": user.role}
        )
        return user

    try:
        user = await db_of(request).write(add)
    except IntegrityError:  # the same email added by another request meanwhile
        raise EmailTaken(email) from None
    return JSONResponse(_user(user))


async def update_user(request: Request, caller: UserCaller) -> Response:
    body = json_object(await read_json(request), allowed=CHANGEABLE_FIELDS)
    problems = user_problems(body)
    if problems:
        raise invalid(problems)
    changes = {field: value.strip() if field == "name" else value for field, value in body.items()}

    def change(conn: Connection) -> UserRecord:
        before = users.find_user(conn, caller.principal.organization_id, caller.user.id) or caller.user
        user = users.change_user(conn, caller.principal.organization_id, caller.user.id, changes)
        detail = {
            field: {"from": getattr(before, field), "to": getattr(user, field)}
            for field in CHANGEABLE_FIELDS
            if getattr(before, field) != getattr(user, field)
        }
        if detail:
            audit.record(conn, caller.principal, "user.update", None, _subject(user), detail)
        return user

    user = await db_of(request).write(change)
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
    def issue(conn: Connection) -> users.IssuedKey:
        issued = users.issue_key(conn, caller.user, utcnow())
        subject = {**_subject(caller.user), "key_id": issued.id, "prefix": issued.prefix}
        audit.record(conn, caller.principal, "key.create", None, subject, {})
        return issued

    issued = await db_of(request).write(issue)
    return JSONResponse({"id": issued.id, "prefix": issued.prefix, "key": issued.key})


async def revoke_key(request: Request, caller: UserCaller) -> Response:
    key_id = request.path_params["key"]

    def revoke(conn: Connection) -> None:
        # The route found the key in force; revoking one revoked meanwhile changes nothing.
        if users.revoke_key(conn, caller.user.id, key_id, utcnow()):
            subject = {**_subject(caller.user), "key_id": key_id, "prefix": users.key_prefix(conn, key_id)}
            audit.record(conn, caller.principal, "key.revoke", None, subject, {})

    await db_of(request).write(revoke)
    return empty()


def _subject(user: UserRecord) -> dict[str, Any]:
    return {"user_id": user.id, "email": user.email}
