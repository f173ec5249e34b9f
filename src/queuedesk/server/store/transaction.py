"""One unit of work in one SQLite transaction, begun and ended on the driver's connection (cheaper
than a SQLAlchemy transaction per request): rolled back if the unit raises."""

import sqlite3
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection

P = ParamSpec("P")
T = TypeVar("T")


def in_transaction(
    conn: Connection,
    driver: sqlite3.Connection,
    begin: str,
    fn: Callable[Concatenate[Connection, P], T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> T:
    driver.execute(begin)
    try:
        result = fn(conn, *args, **kwargs)
    except BaseException:
        if driver.in_transaction:
            driver.execute("ROLLBACK")
        raise
    driver.execute("COMMIT")
    return result
