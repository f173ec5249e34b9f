"""The people of an organization and their API keys, as admins manage them over the API (B17)."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, update

from queuedesk.server.rules.refusals import EmailTaken, LastAdmin, UserDisabled
from queuedesk.server.store.accounts import add_key, create_user, new_key
from queuedesk.server.store.sql import Sql, run
from queuedesk.server.store.tables import api_keys, organizations, users

USER_COLUMNS = (
    users.c.id,
    users.c.email,
    users.c.name,
    users.c.role,
    users.c.disabled,
    users.c.created_at,
    users.c.last_seen_at,
)


@dataclass(frozen=True)
class UserRecord:
    id: int
    email: str
    name: str
    role: str
    disabled: bool
    created_at: datetime
    last_seen_at: datetime | None


@dataclass(frozen=True)
class IssuedKey:
    """A new key: `key` is shown this once and never stored."""

    id: int
    prefix: str
    key: str


def _record(row: Any) -> UserRecord:
    user_id, email, name, role, disabled, created_at, last_seen_at = row
    return UserRecord(user_id, email, name, role, bool(disabled), created_at, last_seen_at)


def list_users(conn: Connection, organization_id: int) -> list[UserRecord]:
    query = select(*USER_COLUMNS).where(users.c.organization_id == organization_id).order_by(users.c.id)
    return [_record(row) for row in conn.execute(query)]


def find_user(conn: Connection, organization_id: int, user_id: int) -> UserRecord | None:
    query = select(*USER_COLUMNS).where(users.c.organization_id == organization_id, users.c.id == user_id)
    row = conn.execute(query).first()
    return None if row is None else _record(row)


def key_of_user(conn: Connection, user_id: int, key_id: int) -> bool:
    """Whether `key_id` is one of the user's keys still in force."""
    query = select(api_keys.c.id).where(
        api_keys.c.id == key_id, api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None)
    )
    return conn.execute(query).first() is not None


def _lock_organization(conn: Connection, organization_id: int) -> None:
    """Changes to one organization's people run one at a time (PostgreSQL; SQLite's write
    transaction already holds the whole database), so two admins cannot demote each other at once."""
    query = select(organizations.c.id).where(organizations.c.id == organization_id).with_for_update()
    conn.execute(query)


def add_user(
    conn: Connection, organization_id: int, email: str, name: str, role: str, now: datetime
) -> UserRecord:
    """A new user; EmailTaken when the organization has one with this email, in any case."""
    _lock_organization(conn, organization_id)
    taken = select(users.c.id).where(
        users.c.organization_id == organization_id, func.lower(users.c.email) == email.lower()
    )
    if conn.execute(taken).first() is not None:
        raise EmailTaken(email)
    user_id = create_user(conn, organization_id, email, name, role, now)
    found = find_user(conn, organization_id, user_id)
    assert found is not None
    return found


def _other_active_admins(conn: Connection, organization_id: int, user_id: int) -> int:
    query = select(func.count()).where(
        users.c.organization_id == organization_id,
        users.c.id != user_id,
        users.c.role == "admin",
        users.c.disabled.is_(False),
    )
    return conn.execute(query).scalar_one()


def change_user(conn: Connection, organization_id: int, user_id: int, changes: dict[str, Any]) -> UserRecord:
    """Apply `changes` (name, role, disabled); LastAdmin when they would leave the organization
    without an active admin."""
    _lock_organization(conn, organization_id)
    user = find_user(conn, organization_id, user_id)
    assert user is not None, "the route found the user"
    was_admin = user.role == "admin" and not user.disabled
    stays_admin = changes.get("role", user.role) == "admin" and not changes.get("disabled", user.disabled)
    if was_admin and not stays_admin and _other_active_admins(conn, organization_id, user_id) == 0:
        raise LastAdmin(user.email)
    if changes:
        conn.execute(update(users).where(users.c.id == user_id).values(**changes))
    changed = find_user(conn, organization_id, user_id)
    assert changed is not None
    return changed


def list_keys(conn: Connection, user_id: int) -> list[dict[str, Any]]:
    """The user's keys in force, oldest first."""
    query = (
        select(api_keys.c.id, api_keys.c.prefix, api_keys.c.created_at, api_keys.c.last_used_at)
        .where(api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
        .order_by(api_keys.c.id)
    )
    return [dict(row._mapping) for row in conn.execute(query)]


def issue_key(conn: Connection, user: UserRecord, now: datetime) -> IssuedKey:
    if user.disabled:
        raise UserDisabled(user.email)
    key = new_key()
    key_id = add_key(conn, user.id, key, now)
    return IssuedKey(key_id, key[:8], key)


def revoke_key(conn: Connection, user_id: int, key_id: int, now: datetime) -> bool:
    result = conn.execute(
        update(api_keys)
        .where(api_keys.c.id == key_id, api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return result.rowcount == 1


def key_prefix(conn: Connection, key_id: int) -> str | None:
    return conn.execute(select(api_keys.c.prefix).where(api_keys.c.id == key_id)).scalar()


# Touches only columns the access-version triggers ignore, so recording a use keeps every cache.
KEY_USED = Sql("UPDATE api_keys SET last_used_at = :now WHERE id = :key_id")
USER_SEEN = Sql("UPDATE users SET last_seen_at = :now WHERE id = :user_id")


def record_use(conn: Connection, key_id: int, user_id: int, now_micros: int) -> None:
    run(conn, KEY_USED, now=now_micros, key_id=key_id)
    run(conn, USER_SEEN, now=now_micros, user_id=user_id)
