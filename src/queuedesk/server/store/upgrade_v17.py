"""Schema version 17: where each worker's walk of a queue's gold tasks starts (B22's claims)."""

from sqlalchemy import Connection, inspect, text


def v17_gold_from(conn: Connection) -> None:
    """Only what is still missing is made, as in versions 9 to 16."""
    present = {column["name"] for column in inspect(conn).get_columns("gold_claims")}
    if "gold_from" not in present:
        conn.execute(text("ALTER TABLE gold_claims ADD COLUMN gold_from BIGINT NOT NULL DEFAULT 0"))
