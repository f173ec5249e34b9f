"""Completions written straight into a bench's SQLite file, fast: the rollup triggers (schema 13, see
store/rollups.py) are set aside while the rows go in, and the rollups recounted once after, as the
upgrade to version 13 does. A file of an older schema (another checkout's, `--src`) is written as is."""

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine

from queuedesk.server.store import rollups


@contextlib.contextmanager
def rollups_after(db_path: Path) -> Iterator[None]:
    with sqlite3.connect(db_path) as conn:
        version = conn.execute("SELECT version FROM schema_version").fetchone()[0]
    engine = create_engine(f"sqlite:///{db_path}")
    if version >= 13:
        with engine.begin() as conn:
            rollups.drop_triggers(conn)
    yield
    if version >= 13:
        with engine.begin() as conn:
            rollups.rebuild(conn)
            rollups.install(conn)
    engine.dispose()
