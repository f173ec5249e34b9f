"""Plain SQL for the hot paths, run on the driver's own cursor inside the unit of work's transaction.

Building and executing SQLAlchemy Core statements costs more than SQLite takes to answer them, so
the queries every request makes are written once as SQL with `:named` parameters. SQLite takes
them as they are; for PostgreSQL (asyncpg's `$1` style) each statement is translated once.
"""

import re
from functools import cached_property
from typing import Any

from sqlalchemy import Connection

_NAMED = re.compile(r"(?<!:):([a-z_][a-z0-9_]*)")


# The one place the two databases' SQL differs: row locks. SQLite has none (a write transaction
# holds the whole database); PostgreSQL locks the rows a claim looks at, skipping those already taken.
LOCKS = {
    "sqlite": {"{skip_locked}": "", "{lock}": ""},
    "postgresql": {"{skip_locked}": "FOR UPDATE SKIP LOCKED", "{lock}": "FOR UPDATE"},
}


class Sql:
    """One statement, with its PostgreSQL form worked out on first use."""

    def __init__(self, text: str) -> None:
        self.source = " ".join(text.split())
        self.text = self._locks("sqlite")

    def _locks(self, dialect: str) -> str:
        text = self.source
        for token, clause in LOCKS[dialect].items():
            text = text.replace(token, clause)
        return text.strip()

    @cached_property
    def numbered(self) -> tuple[str, tuple[str, ...]]:
        names: list[str] = []

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in names:
                names.append(name)
            return f"${names.index(name) + 1}"

        return _NAMED.sub(number, self._locks("postgresql")), tuple(names)


def _cursor(conn: Connection, statement: Sql, params: dict[str, Any]) -> Any:
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]  # None only once closed
    if conn.dialect.name == "sqlite":
        cursor.execute(statement.text, params)
    else:
        text, names = statement.numbered
        cursor.execute(text, tuple(params[name] for name in names))
    return cursor


def one(conn: Connection, statement: Sql, **params: Any) -> tuple[Any, ...] | None:
    cursor = _cursor(conn, statement, params)
    row = cursor.fetchone()
    cursor.close()
    return row


def rows(conn: Connection, statement: Sql, **params: Any) -> list[tuple[Any, ...]]:
    cursor = _cursor(conn, statement, params)
    found = cursor.fetchall()
    cursor.close()
    return found


def run(conn: Connection, statement: Sql, **params: Any) -> int:
    """Execute; the number of rows changed."""
    cursor = _cursor(conn, statement, params)
    count = cursor.rowcount
    cursor.close()
    return count
