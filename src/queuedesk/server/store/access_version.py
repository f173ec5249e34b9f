"""A counter that moves whenever anything a request's authorization reads may have changed.

API keys, users, organizations and a queue's definition change rarely; tasks change all the time.
Triggers bump `access_version` on every change to the former, in the changing transaction, whoever
makes it: this process, another `serve` process, `queuedesk admin-keys revoke`, or someone with a SQL
shell. Reading the counter is one primary-key lookup, so a process may keep what it read about keys
and queues for as long as the counter stays where it was (see `server/access_cache.py`).
"""

from sqlalchemy import Connection, text

from queuedesk.server.store.sql import Sql, one

BUMP = "UPDATE access_version SET version = version + 1"

Watched = dict[str, tuple[str, ...]]

# What authorization reads: the key and its user and organization, and the queue's own columns
# (not completed_count, which every completion moves, nor the keys' and users' last use, which
# requests record as they come).
WATCHED: Watched = {
    "organizations": ("UPDATE", "DELETE"),
    "users": ("UPDATE OF organization_id, email, name, role, disabled", "DELETE"),
    "api_keys": ("UPDATE OF user_id, key_hash, revoked_at", "DELETE"),
    "queues": (
        "UPDATE OF organization_id, name, description, blocks, webhook_target, consensus, consensus_used",
        "DELETE",
    ),
}


def _sqlite_trigger_name(table: str, event: str) -> str:
    return f"qd_access_{table}_{event.split()[0].lower()}"


def _sqlite_triggers(watched: Watched) -> list[str]:
    statements = []
    for table, events in watched.items():
        for event in events:
            name = _sqlite_trigger_name(table, event)
            statements.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {BUMP}; END")
    return statements


def _postgres_triggers(watched: Watched) -> list[str]:
    statements = [
        "CREATE OR REPLACE FUNCTION qd_access_changed() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN {BUMP}; RETURN NULL; END $$"
    ]
    for table, events in watched.items():
        statements.append(
            f"CREATE TRIGGER qd_access_{table} AFTER {' OR '.join(events)} ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION qd_access_changed()"
        )
    return statements


def trigger_names(dialect: str, watched: Watched = WATCHED) -> list[str]:
    """The names of the triggers `create_triggers` makes on `dialect`."""
    if dialect == "postgresql":
        return [f"qd_access_{table}" for table in watched]
    return [_sqlite_trigger_name(table, event) for table, events in watched.items() for event in events]


def create_triggers(conn: Connection, watched: Watched) -> None:
    """The triggers that move the counter on changes to `watched`."""
    postgres = conn.dialect.name == "postgresql"
    for statement in _postgres_triggers(watched) if postgres else _sqlite_triggers(watched):
        conn.execute(text(statement))


def drop_triggers(conn: Connection, watched: Watched) -> None:
    """The triggers `create_triggers(conn, watched)` made, if they exist."""
    for table, events in watched.items():
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"DROP TRIGGER IF EXISTS qd_access_{table} ON {table}"))
        else:
            for event in events:
                conn.execute(text(f"DROP TRIGGER IF EXISTS {_sqlite_trigger_name(table, event)}"))


def install(conn: Connection, watched: Watched = WATCHED) -> None:
    """The counter's first value and the triggers that move it; the table must exist."""
    conn.execute(text("INSERT INTO access_version (id, version) VALUES (1, 1)"))
    create_triggers(conn, watched)


CURRENT = Sql("SELECT version FROM access_version WHERE id = 1")


def current(conn: Connection) -> int:
    """One SELECT (so `Database.statement` may run it)."""
    row = one(conn, CURRENT)
    assert row is not None, "access_version has its row from the schema's creation"
    return int(row[0])
