"""Schema version 13: B15's rollups (see store/rollups.py), their triggers, and every completion
already stored counted into them.

The tables are frozen here as version 13 made them; the triggers and the recount are the current
ones, which read only `tasks` columns every version since 5 has.
"""

from sqlalchemy import BigInteger, Column, Connection, Integer, MetaData, String, Table, inspect

from queuedesk.server.store import rollups
from queuedesk.server.store.types import Id


def _frozen(frozen: MetaData) -> list[Table]:
    def key(name: str, kind: type[BigInteger] | type[Integer] = BigInteger) -> Column[int]:
        return Column(name, kind, primary_key=True, autoincrement=False)

    def worker() -> Column[str]:
        return Column("worker", String(320), primary_key=True)

    def count() -> Column[int]:
        return Column("n", BigInteger, nullable=False)

    def queue() -> Column[int]:
        return Column("queue_id", Id, primary_key=True, autoincrement=False)

    return [
        Table("completion_minutes", frozen, queue(), key("minute"), count(), sqlite_with_rowid=False),
        Table(
            "worker_hours",
            frozen,
            queue(),
            worker(),
            key("hour"),
            count(),
            Column("last_at", BigInteger),
            sqlite_with_rowid=False,
        ),
        *(
            Table(
                name,
                frozen,
                queue(),
                key("span", Integer),
                key("node"),
                worker(),
                key(value),
                count(),
                sqlite_with_rowid=False,
            )
            for name, value in (("work_bins", "bin"), ("work_seconds", "seconds"))
        ),
    ]


def v13_stats_rollups(conn: Connection) -> None:
    frozen = MetaData()
    made = [table for table in _frozen(frozen) if not inspect(conn).has_table(table.name)]
    frozen.create_all(conn, tables=made)
    rollups.drop_triggers(conn)  # a partial copy of this step may have made them
    rollups.install(conn, apart=False)  # version 15 counts consensus queues' answers apart
    rollups.rebuild(conn, apart=False)
