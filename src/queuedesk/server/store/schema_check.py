"""What a database's tables, columns and indexes lack against the schema this QueueDesk serves: a
restored backup must hold all of them, or the next `serve` would fail on its first query."""

from sqlalchemy import Connection, inspect

from queuedesk.server.store.tables import metadata


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
    return differences
