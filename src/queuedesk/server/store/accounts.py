"""Organizations, users and API keys."""

import hashlib
import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, update

from queuedesk.server.store.records import Principal
from queuedesk.server.store.sql import Sql, one
from queuedesk.server.store.tables import api_keys, organizations, users

ROLES = ("admin", "supervisor", "worker")


def hash_key(key: str) -> str:
    """API keys are long random strings, so one SHA-256 is enough; only this hash is stored."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return "qd_" + secrets.token_hex(20)


PRINCIPAL = Sql(
    """SELECT u.id, u.email, u.name, u.role, o.id, o.name, k.id FROM api_keys k
    JOIN users u ON u.id = k.user_id JOIN organizations o ON o.id = u.organization_id
    WHERE k.key_hash = :key_hash AND k.revoked_at IS NULL AND NOT u.disabled"""
)


def principal_for_key_hash(conn: Connection, key_hash: str) -> Principal | None:
    row = one(conn, PRINCIPAL, key_hash=key_hash)
    return None if row is None else Principal(*row)


def find_organization(conn: Connection, name: str) -> int | None:
    return conn.execute(select(organizations.c.id).where(organizations.c.name == name)).scalar()


def create_organization(conn: Connection, name: str, now: datetime) -> int:
    return conn.execute(
        organizations.insert().values(name=name, created_at=now).returning(organizations.c.id)
    ).scalar_one()


def find_user(conn: Connection, organization_id: int, email: str) -> int | None:
    return conn.execute(
        select(users.c.id).where(users.c.organization_id == organization_id, users.c.email == email)
    ).scalar()


def find_users_by_email(conn: Connection, email: str) -> list[int]:
    return list(conn.execute(select(users.c.id).where(users.c.email == email)).scalars())


def create_user(
    conn: Connection, organization_id: int, email: str, name: str, role: str, now: datetime
) -> int:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    return conn.execute(
        users.insert()
        .values(organization_id=organization_id, email=email, name=name, role=role, created_at=now)
        .returning(users.c.id)
    ).scalar_one()


def key_exists(conn: Connection, key: str) -> bool:
    found = conn.execute(select(api_keys.c.id).where(api_keys.c.key_hash == hash_key(key))).first()
    return found is not None


def user_has_keys(conn: Connection, user_id: int) -> bool:
    count = conn.execute(select(func.count()).where(api_keys.c.user_id == user_id)).scalar_one()
    return count > 0


def add_key(conn: Connection, user_id: int, key: str, now: datetime) -> int:
    return conn.execute(
        api_keys.insert()
        .values(user_id=user_id, key_hash=hash_key(key), prefix=key[:8], created_at=now)
        .returning(api_keys.c.id)
    ).scalar_one()


def list_keys(conn: Connection, email: str | None = None) -> list[dict[str, Any]]:
    query = (
        select(
            api_keys.c.id,
            api_keys.c.prefix,
            api_keys.c.created_at,
            api_keys.c.revoked_at,
            users.c.email,
            users.c.role,
            organizations.c.name.label("organization"),
        )
        .select_from(api_keys.join(users).join(organizations))
        .order_by(api_keys.c.id)
    )
    if email is not None:
        query = query.where(users.c.email == email)
    return [dict(row._mapping) for row in conn.execute(query)]


def revoke_key(conn: Connection, key_id: int, now: datetime) -> bool:
    result = conn.execute(
        update(api_keys)
        .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return result.rowcount == 1


def key_owner(conn: Connection, key_id: int) -> tuple[int, int, str, str] | None:
    """(organization id, user id, email, key prefix) of a key, for the audit log."""
    row = conn.execute(
        select(users.c.organization_id, users.c.id, users.c.email, api_keys.c.prefix)
        .select_from(api_keys.join(users, users.c.id == api_keys.c.user_id))
        .where(api_keys.c.id == key_id)
    ).first()
    return None if row is None else (row[0], row[1], row[2], row[3])
