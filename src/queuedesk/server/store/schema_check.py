"""What a database's tables, columns, indexes and triggers lack against the schema this QueueDesk
serves: a restored backup must hold all of them, or the next `serve` would fail on its first query —
or, without a trigger, serve on and go wrong without a word (a revoked key still let in by another
process's cache, stats that stop counting)."""

from dataclasses import dataclass

from sqlalchemy import Connection, inspect, text

from queuedesk.server.store import access_version, backlogs, rollups
from queuedesk.server.store.tables import metadata

SQLITE_TRIGGERS = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
POSTGRES_TRIGGERS = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"


@dataclass(frozen=True)
class TriggerGaps:
    """What the schema keeps its counters with that the database lacks."""

    access: list[str]  # the access version's triggers missing
    rollups: list[str]  # the stats rollups' triggers missing
    access_row_missing: bool
    backlogs: list[str]  # the metrics' backlog counts' triggers missing

    def described(self) -> list[str]:
        said = [f"trigger {name} is missing" for name in [*self.access, *self.rollups, *self.backlogs]]
        return said + (["the access version's row is missing"] if self.access_row_missing else [])


def trigger_gaps(conn: Connection) -> TriggerGaps:
    dialect = conn.dialect.name
    found = {
        name
        for (name,) in conn.execute(text(POSTGRES_TRIGGERS if dialect == "postgresql" else SQLITE_TRIGGERS))
    }
    row = conn.execute(text("SELECT count(*) FROM access_version WHERE id = 1")).scalar_one()
    return TriggerGaps(
        access=[name for name in access_version.trigger_names(dialect) if name not in found],
        rollups=[name for name in rollups.TRIGGER_NAMES if name not in found],
        access_row_missing=row != 1,
        backlogs=[name for name in backlogs.TRIGGER_NAMES if name not in found],
    )


def schema_differences(conn: Connection) -> list[str]:
    """Each table, column or index of the current schema the database lacks."""
    found = inspect(conn)
    tables = set(found.get_table_names())
    differences: list[str] = []
    for table in metadata.sorted_tables:
        if table.name not in tables:
            differences.append(f"table {table.name} is missing")
            continue
        columns = {column["name"] for column in found.get_columns(table.name)}
        differences.extend(
            f"column {table.name}.{column.name} is missing"
            for column in table.columns
            if column.name not in columns
        )
        indexes = {index["name"] for index in found.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                differences.append(f"index {index.name} of {table.name} is missing")
    if "access_version" in tables and "tasks" in tables:
        differences += trigger_gaps(conn).described()
    return differences
