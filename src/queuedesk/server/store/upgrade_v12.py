"""Schema version 12: an import session keeps how many rows it has staged and its first missing row,
so that reading its progress (or staging the next chunk) never counts or scans its staged rows.

Written against the schema as it was at version 8 (versions 9 to 11 touch other tables), so it
stands whatever the current table definitions become.
"""

from sqlalchemy import Connection, inspect, text

PROGRESS_COLUMNS = ("staged_rows BIGINT NOT NULL DEFAULT 0", "first_missing BIGINT NOT NULL DEFAULT 0")
# The first position at or after :start (> 0) not staged, when :start - 1 is staged.
FIRST_GAP_FROM = """SELECT r.position + 1 FROM import_rows r
    WHERE r.session_id = :session_id AND r.position >= :start - 1
    AND NOT EXISTS (SELECT 1 FROM import_rows n WHERE n.session_id = :session_id AND n.position = r.position + 1)
    ORDER BY r.position LIMIT 1"""


def v12_import_progress(conn: Connection) -> None:
    present = {column["name"] for column in inspect(conn).get_columns("import_sessions")}
    for column in PROGRESS_COLUMNS:
        if column.split()[0] not in present:
            conn.execute(text(f"ALTER TABLE import_sessions ADD COLUMN {column}"))
    staged = conn.execute(text("SELECT id FROM import_sessions WHERE status = 'staged'")).scalars().all()
    for session_id in staged:
        count = conn.execute(
            text("SELECT count(*) FROM import_rows WHERE session_id = :s"), {"s": session_id}
        ).scalar_one()
        has_first = conn.execute(
            text("SELECT 1 FROM import_rows WHERE session_id = :s AND position = 0"), {"s": session_id}
        ).first()
        first_missing = 0
        if has_first is not None:
            first_missing = conn.execute(
                text(FIRST_GAP_FROM), {"session_id": session_id, "start": 1}
            ).scalar_one()
        conn.execute(
            text("UPDATE import_sessions SET staged_rows = :n, first_missing = :m WHERE id = :s"),
            {"n": count, "m": first_missing, "s": session_id},
        )
