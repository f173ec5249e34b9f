"""Units of work that go to the writer process (`Database.long_write`) with the audit event they
leave: module-level functions, so that they go to it by name."""

from datetime import datetime

from sqlalchemy import Connection

from queuedesk.server.store import audit, consensus, imports, tasks
from queuedesk.server.store.imports import CommitOutcome, Moved, Session
from queuedesk.server.store.records import Principal, QueueRecord


def flush_and_record(conn: Connection, principal: Principal, queue: QueueRecord) -> None:
    deleted = tasks.flush(conn, queue.id)
    if queue.consensus_used:  # B21: the flushed tasks' answers and states go too
        consensus.drop_orphans(conn, queue.id)
    detail = {"deleted": sum(deleted.values()), "by_status": deleted}
    audit.record(conn, principal, "queue.flush", queue.id, {"queue_id": queue.id}, detail)


def commit_and_record(
    conn: Connection, principal: Principal, queue: QueueRecord, session_id: int, now: datetime
) -> tuple[Session, CommitOutcome] | None:
    def record(session: Session, moved: Moved) -> None:
        audit.record_import_span(
            conn, principal, queue, session.source, moved.created, moved.first_id, moved.last_id, session.id
        )

    return imports.commit(conn, queue.id, session_id, now, on_commit=record)
