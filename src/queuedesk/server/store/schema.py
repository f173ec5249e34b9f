"""The versioned schema: a new database is created at the latest version, an older one upgraded.

Each upgrade step takes a database from version N-1 to N and runs in the same transaction as the
version bump, so a crash mid-upgrade leaves the database at N-1, never half-way.
"""

import logging
from collections.abc import Callable

from sqlalchemy import Connection, inspect, select, update

from queuedesk.server.store import access_version, backlogs, rollups
from queuedesk.server.store.tables import metadata, schema_version
from queuedesk.server.store.upgrade_v12 import v12_import_progress
from queuedesk.server.store.upgrade_v13 import v13_stats_rollups
from queuedesk.server.store.upgrade_v15 import v15_consensus
from queuedesk.server.store.upgrade_v16 import v16_gold
from queuedesk.server.store.upgrade_v17 import v17_gold_from
from queuedesk.server.store.upgrades import (
    v2_webhook_outbox,
    v3_completed_count,
    v4_access_version,
    v5_work_time,
    v6_pending_count,
    v7_import_sessions,
    v8_people,
    v9_drafts_apart_and_ids_never_reused,
    v10_audit_log,
    v11_review,
)

log = logging.getLogger("queuedesk.schema")
Upgrade = Callable[[Connection], None]

# Version N is reached by UPGRADES[N]; version 1 is the first schema and has no upgrade step.
UPGRADES: dict[int, Upgrade] = {
    2: v2_webhook_outbox,
    3: v3_completed_count,
    4: v4_access_version,
    5: v5_work_time,
    6: v6_pending_count,
    7: v7_import_sessions,
    8: v8_people,
    9: v9_drafts_apart_and_ids_never_reused,
    10: v10_audit_log,
    11: v11_review,
    12: v12_import_progress,
    13: v13_stats_rollups,
    14: backlogs.v14_queue_backlogs,
    15: v15_consensus,
    16: v16_gold,
    17: v17_gold_from,
}
LATEST = 1 + len(UPGRADES)


class SchemaTooNew(RuntimeError):
    """The database was written by a newer QueueDesk than this one."""


def current_version(conn: Connection) -> int:
    """0 for an empty database."""
    if not inspect(conn).has_table("schema_version"):
        return 0
    return conn.execute(select(schema_version.c.version)).scalar_one_or_none() or 0


def upgrade(conn: Connection) -> tuple[int, int]:
    """Bring the schema to LATEST; returns (version found, version now)."""
    found = current_version(conn)
    if found > LATEST:
        raise SchemaTooNew(
            f"the database is at schema version {found}, but this QueueDesk knows only up to "
            f"{LATEST}: upgrade QueueDesk"
        )
    if found == 0:
        metadata.create_all(conn)
        access_version.install(conn)
        rollups.install(conn)
        backlogs.install(conn)
        conn.execute(schema_version.insert().values(version=LATEST))
        log.info("schema: created at version %d", LATEST, extra={"fields": {"schema_version": LATEST}})
        return found, LATEST
    for version in sorted(v for v in UPGRADES if v > found):
        UPGRADES[version](conn)
        conn.execute(update(schema_version).values(version=version))
        log.info("schema: upgraded to version %d", version, extra={"fields": {"schema_version": version}})
    return found, LATEST
