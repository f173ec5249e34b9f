"""SQL run behind the server's back, over a connection of the test's own (SQLite or PostgreSQL)."""

import asyncio
import concurrent.futures
from typing import Any


def execute_sql(db_url: str, sql: str) -> None:
    """Change the database behind the server's back, as another program with a connection would."""
    _sql(db_url, sql, fetch=False)


def query_value(db_url: str, sql: str) -> Any:
    """The first column of the first row, read over a connection of its own."""
    return _sql(db_url, sql, fetch=True)


def _sql(db_url: str, sql: str, *, fetch: bool) -> Any:
    if db_url.startswith("sqlite:///"):
        import sqlite3

        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as conn:
            row = conn.execute(sql).fetchone()
        return row[0] if fetch and row else None

    async def run() -> Any:
        import asyncpg

        conn = await asyncpg.connect(db_url, timeout=5)
        try:
            return await conn.fetchval(sql) if fetch else await conn.execute(sql)
        finally:
            await conn.close()

    # A test running inside an event loop (the app's Pilot tests) cannot call asyncio.run on its thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        found = pool.submit(asyncio.run, run()).result()
    return found if fetch else None
