"""The PostgreSQL server the tests about PostgreSQL use; each test database is created in it."""

import asyncio
import functools
import hashlib
import os

POSTGRES_URL = os.environ.get("QUEUEDESK_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
_created_databases: set[str] = set()


async def _postgres_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@functools.cache
def postgres_unavailable() -> str | None:
    """Why the tests cannot use PostgreSQL here, or None when they can."""
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return "asyncpg is not installed (pip install -e '.[dev]')"
    try:
        asyncio.run(_postgres_admin("SELECT 1"))
    except Exception as exc:
        return f"no PostgreSQL at {POSTGRES_URL} ({type(exc).__name__}: {exc})"
    return None


def postgres_database(key: str) -> str:
    """The URL of a database of its own for `key` (created on first use, dropped by drop_databases)."""
    name = f"qd_test_{os.getpid()}_{hashlib.sha1(key.encode()).hexdigest()[:12]}"
    if name not in _created_databases:
        asyncio.run(_postgres_admin(f'CREATE DATABASE "{name}"'))
        _created_databases.add(name)
    return POSTGRES_URL.rsplit("/", 1)[0] + "/" + name


def drop_databases() -> None:
    for name in sorted(_created_databases):
        asyncio.run(_postgres_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    _created_databases.clear()
