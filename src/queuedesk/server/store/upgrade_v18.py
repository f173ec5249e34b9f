"""Schema version 18: priority and due dates (B24), reservations (B25). Tasks gain `priority`,
`due_at` (NO_DUE when none), `due_armed`, `reserved_for` and who gave them back last
(`released_by`, `released_until`); queues their claim `order` (`claim_order`) and `n_overdue`;
staged import rows the first three. The claim order's index, the overdue job's index and the
triggers that keep `n_overdue`, frozen here as version 18 made them."""

from sqlalchemy import Connection, inspect, text

from queuedesk.server.store import overdue_counts

NO_DUE = overdue_counts.NO_DUE
COLUMNS_AT_V18 = {
    "tasks": (
        "priority INTEGER NOT NULL DEFAULT 0",
        f"due_at BIGINT NOT NULL DEFAULT {NO_DUE}",
        "due_armed BIGINT",
        "reserved_for BIGINT",
        "released_by BIGINT",
        "released_until BIGINT",
    ),
    "queues": ("claim_order VARCHAR(20) NOT NULL DEFAULT 'oldest'", "n_overdue BIGINT NOT NULL DEFAULT 0"),
    "import_rows": ("priority INTEGER NOT NULL DEFAULT 0", "due_at BIGINT", "reserved_for BIGINT"),
}
INDEXES_AT_V18 = (
    "CREATE INDEX IF NOT EXISTS ix_tasks_claim_order ON tasks "
    "(queue_id, reserved_for, priority DESC, due_at, status, id) WHERE status IN ('new', 'open')",
    "CREATE INDEX IF NOT EXISTS ix_tasks_due_armed ON tasks (due_armed) WHERE due_armed IS NOT NULL",
)


def v18_priority_due_reserved(conn: Connection) -> None:
    """Only what is still missing is made, as in versions 9 to 17."""
    for table, columns in COLUMNS_AT_V18.items():
        present = {column["name"] for column in inspect(conn).get_columns(table)}
        for column in columns:
            if column.split()[0] not in present:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column}"))
    for statement in INDEXES_AT_V18:
        conn.execute(text(statement))
    overdue_counts.drop_triggers(conn)  # a partial copy of this step may have made them
    overdue_counts.install(conn)
    overdue_counts.rebuild(conn)
