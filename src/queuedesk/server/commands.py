"""`queuedesk serve`, `admin-keys`, `doctor`, `prune`, `backup`, `restore`: the command line's server side."""

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from queuedesk.api.timestamps import utcnow
from queuedesk.server import backup as backups
from queuedesk.server.backup import BackupError, postgres_advice
from queuedesk.server.jobs.retention import Pruned, prune_audit, prune_completed, prune_deliveries
from queuedesk.server.seed import SeedError, apply_seed, load_seed
from queuedesk.server.settings import Settings, default_db_url
from queuedesk.server.store import access_version, accounts, audit, backlogs, rollups
from queuedesk.server.store import retention as retention_store
from queuedesk.server.store.database import (
    DatabaseUnavailable,
    describe,
    normalize_url,
    open_database,
    run_once,
    sqlite_path,
)
from queuedesk.server.store.schema import SchemaTooNew
from queuedesk.server.store.schema_check import TriggerGaps, trigger_gaps

log = logging.getLogger("queuedesk.server")


def _fail(message: str) -> int:
    print(f"queuedesk: {message}", file=sys.stderr)
    return 2


def _prepare(settings: Settings, seed: str | None) -> int | None:
    """Create or upgrade the schema and apply the seed; an exit code when that fails."""
    try:
        if seed is None:
            asyncio.run(run_once(settings.db_url, lambda _conn: None))
            return None
        report = asyncio.run(run_once(settings.db_url, apply_seed, load_seed(Path(seed))))
    except (SeedError, SchemaTooNew, DatabaseUnavailable, ValueError) as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"cannot open the database {describe(settings.db_url)}: {exc.__cause__ or exc}")
    for line in report.created:
        log.info("seed: created %s", line)
    for email, key in report.generated_keys:
        # Printed, never logged: the one place a key is shown, and logs are kept and shipped.
        print(f"seed: API key for {email}: {key}  (shown once; store it now)", file=sys.stderr)
    if not report.created and not report.generated_keys:
        log.info("seed: nothing to create; everything already exists")
    return None


LIMITS = (
    "header_timeout",
    "body_timeout",
    "keep_alive_timeout",
    "max_connections",
    "rate_limit",
    "max_in_flight",
    "auth_failure_limit",
    "forwarded_allow_ips",
)


def _limits(args: argparse.Namespace) -> dict[str, Any]:
    """The connection and rate limits given (the demo gives none: the defaults hold)."""
    return {name: getattr(args, name) for name in LIMITS if hasattr(args, name)}


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from queuedesk import __version__
    from queuedesk.server.app import create_app
    from queuedesk.server.http.connections import connection_options
    from queuedesk.server.ops import logs
    from queuedesk.server.ops.serving import DrainingServer, run
    from queuedesk.server.settings import DRAIN_REQUESTS_SECONDS
    from queuedesk.server.store.schema import LATEST

    settings = Settings(
        db_url=args.db or default_db_url(),
        host=args.host,
        port=args.port,
        public_url=args.public_url,
        lease_seconds=args.lease_seconds,
        allow_private_webhooks=args.allow_private_webhooks,
        db_pool_size=args.db_pool_size,
        retain_deliveries=getattr(args, "retain_deliveries", None),  # the demo keeps everything
        metrics_token=getattr(args, "metrics_token", None) or None,
        log_format=getattr(args, "log_format", "text"),
        access_log=True,
        **_limits(args),
    )
    logs.configure(settings.log_format, getattr(args, "log_level", "info"))
    failed = _prepare(settings, args.seed)
    if failed is not None:
        return failed
    database = describe(settings.db_url)
    log.info(
        "queuedesk %s serving %s on http://%s:%d (schema version %d)",
        __version__,
        database,
        settings.host,
        settings.port,
        LATEST,
        extra={
            "fields": {
                "version": __version__,
                "database": normalize_url(settings.db_url).split(":", 1)[0].split("+", 1)[0],
                "address": f"{settings.host}:{settings.port}",
                "schema_version": LATEST,
                "metrics": settings.metrics_token is not None,
            }
        },
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        log_config=None,  # the handlers logs.configure set
        loop="auto",
        timeout_graceful_shutdown=int(DRAIN_REQUESTS_SECONDS),
        **connection_options(settings),
    )
    return run(DrainingServer(config, app.state.readiness))


def keys(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    action = {"create": _create_key, "list": _list_keys, "revoke": _revoke_key}[args.keys_command]
    try:
        return asyncio.run(run_once(url, action, args))
    except (SchemaTooNew, DatabaseUnavailable, ValueError) as exc:
        return _fail(str(exc))


def _create_key(conn: Connection, args: argparse.Namespace) -> int:
    now = utcnow()
    if args.org is not None:
        org_id = accounts.find_organization(conn, args.org)
        if org_id is None:
            org_id = accounts.create_organization(conn, args.org, now)
        user_id = accounts.find_user(conn, org_id, args.email)
    else:
        found = accounts.find_users_by_email(conn, args.email)
        if len(found) > 1:
            raise ValueError(f"{args.email} is in several organizations: name one with --org")
        user_id = found[0] if found else None
        org_id = None
    if user_id is None:
        if org_id is None:
            raise ValueError(f"no user {args.email}: give --org (and --role, --name) to create one")
        name = args.name or args.email
        user_id = accounts.create_user(conn, org_id, args.email, name, args.role, now)
        audit.record_host_user(conn, org_id, user_id, args.email, name, args.role)
    key = accounts.new_key()
    audit.record_host_key(conn, "key.create", accounts.add_key(conn, user_id, key, now))
    print(key)
    print("Store this key now: QueueDesk keeps only its hash and cannot show it again.", file=sys.stderr)
    return 0


def _list_keys(conn: Connection, args: argparse.Namespace) -> int:
    rows = accounts.list_keys(conn, args.email)
    if not rows:
        print("no API keys", file=sys.stderr)
        return 0
    print(f"{'id':>5}  {'prefix':10} {'email':32} {'role':10} {'organization':20} {'created':20} revoked")
    for row in rows:
        revoked = row["revoked_at"].strftime("%Y-%m-%d %H:%M") if row["revoked_at"] else "-"
        print(
            f"{row['id']:>5}  {row['prefix']:10} {row['email']:32} {row['role']:10} "
            f"{row['organization']:20} {row['created_at'].strftime('%Y-%m-%d %H:%M'):20} {revoked}"
        )
    return 0


def _revoke_key(conn: Connection, args: argparse.Namespace) -> int:
    if not accounts.revoke_key(conn, args.key_id, utcnow()):
        return _fail(f"no active API key with id {args.key_id} (see 'queuedesk admin-keys list')")
    audit.record_host_key(conn, "key.revoke", args.key_id)
    print(f"revoked API key {args.key_id}", file=sys.stderr)
    return 0


COUNTERS = (
    "SELECT q.id, q.name, q.n_tasks, (SELECT count(*) FROM tasks t WHERE t.queue_id = q.id "
    "AND t.status IN ('new', 'open', 'in_progress')), q.completed_count, (SELECT count(*) FROM tasks t "
    "WHERE t.queue_id = q.id AND t.completed_at IS NOT NULL) FROM queues q ORDER BY q.id"
)


def doctor(args: argparse.Namespace) -> int:
    """Check the counters' triggers and recount every queue's counters from its tasks; 0 when all
    is well, 1 with what is missing and a table of drifts."""
    url = args.db or default_db_url()
    try:
        return asyncio.run(run_once(url, _doctor, args.fix))
    except (SchemaTooNew, DatabaseUnavailable, ValueError) as exc:
        return _fail(str(exc))


def _doctor(conn: Connection, fix: bool) -> int:
    from sqlalchemy import text

    gaps = trigger_gaps(conn)
    missing = gaps.described()
    for difference in missing:
        print(f"doctor: {difference}", file=sys.stderr)
    if missing and fix:
        _reinstall_triggers(conn, gaps)
        print("doctor: the triggers were made again and the stats rollups recounted; fixed", file=sys.stderr)
    drifts = [row for row in conn.execute(text(COUNTERS)) if row[2] != row[3] or row[4] != row[5]]
    backlog_drifts = _backlog_drifts(conn, fix)
    if not drifts:
        print("doctor: every queue's counters match its tasks", file=sys.stderr)
        return 1 if missing or backlog_drifts else 0
    print(f"{'queue':>6}  {'name':30} {'n_tasks':>10} {'recount':>10} {'completed':>10} {'recount':>10}")
    for queue_id, name, pending, recount, completed, done in drifts:
        print(f"{queue_id:>6}  {name[:30]:30} {pending:>10} {recount:>10} {completed:>10} {done:>10}")
        if fix:
            conn.execute(
                text("UPDATE queues SET n_tasks = :n, completed_count = :c WHERE id = :id"),
                {"n": recount, "c": done, "id": queue_id},
            )
    print(f"doctor: {len(drifts)} queue(s) drifted" + ("; fixed" if fix else ""), file=sys.stderr)
    return 1


def _backlog_drifts(conn: Connection, fix: bool) -> bool:
    """The metrics' counts of reviews and webhook deliveries waiting, against their rows."""
    drifted = backlogs.drifts(conn)
    for queue_id, reviews, webhooks, reviews_found, webhooks_found in drifted:
        print(
            f"doctor: queue {queue_id} counts {reviews} review(s) and {webhooks} delivery(ies) waiting; "
            f"its rows say {reviews_found} and {webhooks_found}",
            file=sys.stderr,
        )
    if drifted and fix:
        backlogs.rebuild(conn)
        print("doctor: the waiting reviews and deliveries were recounted; fixed", file=sys.stderr)
    return bool(drifted)


def _reinstall_triggers(conn: Connection, gaps: TriggerGaps) -> None:
    """Make the missing triggers again; the rollups missed what changed meanwhile, so recount them."""
    from sqlalchemy import text

    if gaps.access_row_missing:
        conn.execute(text("INSERT INTO access_version (id, version) VALUES (1, 1)"))
    if gaps.access:
        access_version.drop_triggers(conn, access_version.WATCHED)
        access_version.create_triggers(conn, access_version.WATCHED)
        conn.execute(text(access_version.BUMP))  # what another process kept may have gone stale
    if gaps.rollups:
        rollups.drop_triggers(conn)
        rollups.install(conn)
        rollups.rebuild(conn)
    if gaps.backlogs:
        backlogs.drop_triggers(conn)
        backlogs.install(conn)
        backlogs.rebuild(conn)


# --- retention and backup -------------------------------------------------------------------------

PROGRESS_EVERY = 5.0  # seconds between progress lines of a long prune


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def prune(args: argparse.Namespace) -> int:
    """Count what is older than the bounds; then (unless --dry-run) remove it in batches."""
    if (
        args.deliveries_older_than is None
        and args.completed_older_than is None
        and args.audit_older_than is None
    ):
        return _fail(
            "say what to prune: --deliveries-older-than, --completed-older-than and/or --audit-older-than DURATION"
        )
    if args.batch_size < 1:
        return _fail("--batch-size must be at least 1")
    try:
        return asyncio.run(_prune(args.db or default_db_url(), args))
    except (SchemaTooNew, DatabaseUnavailable, ValueError) as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"the prune stopped: {exc.__cause__ or exc} (what was removed before stays removed)")


def _holding(pruned: Pruned) -> str:
    mean = pruned.held / pruned.batches if pruned.batches else 0.0
    return (
        f"a batch held the database {mean * 1000:.0f} ms on average, {pruned.longest * 1000:.0f} ms at most"
    )


def _progress(what: str) -> Callable[[Pruned], None]:
    last = time.monotonic()

    def report(done: Pruned) -> None:
        nonlocal last
        if time.monotonic() - last >= PROGRESS_EVERY:
            last = time.monotonic()
            print(f"prune: {done.rows:,} {what} removed so far ({done.rate:,.0f}/s)", file=sys.stderr)

    return report


async def _prune(url: str, args: argparse.Namespace) -> int:
    now = utcnow()
    delivery_cutoff = None if args.deliveries_older_than is None else now - args.deliveries_older_than
    task_cutoff = None if args.completed_older_than is None else now - args.completed_older_than
    audit_cutoff = None if args.audit_older_than is None else now - args.audit_older_than
    db = await open_database(url, pool_size=2)
    try:
        counting = time.perf_counter()
        found = await db.scan(retention_store.count_prunable, delivery_cutoff, task_cutoff)
        old_events = 0 if audit_cutoff is None else await db.scan(audit.count_old, audit_cutoff)
        print(f"counted in {time.perf_counter() - counting:.1f} s", file=sys.stderr)
        if delivery_cutoff is not None:
            print(
                f"deliveries finished and created before {_when(delivery_cutoff)}: {found.deliveries:,} "
                f"(with {found.attempts:,} attempts)"
            )
            print(
                f"pending deliveries that old, kept (pending ones are never pruned): {found.pending_kept:,}"
            )
        if task_cutoff is not None:
            print(f"tasks completed before {_when(task_cutoff)}: {found.tasks:,}")
            for queue_id, name, count in found.tasks_by_queue:
                print(f"  queue {queue_id} {name[:40]!r}: {count:,}")
        if audit_cutoff is not None:
            print(f"audit events written before {_when(audit_cutoff)}: {old_events:,}")
        if args.dry_run:
            print("dry run: nothing was removed")
            return 0
        if delivery_cutoff is not None and found.deliveries:
            pruned = await prune_deliveries(
                db, delivery_cutoff, batch=args.batch_size, progress=_progress("deliveries")
            )
            print(
                f"removed {pruned.rows:,} deliveries and {pruned.attempts:,} attempts in {pruned.batches:,} "
                f"batches, {pruned.seconds:.1f} s ({pruned.rate:,.0f} deliveries/s); {_holding(pruned)}"
            )
        if task_cutoff is not None and found.tasks:
            pruned = await prune_completed(
                db, task_cutoff, batch=args.batch_size, progress=_progress("tasks")
            )
            print(
                f"removed {pruned.rows:,} completed tasks in {pruned.batches:,} batches, {pruned.seconds:.1f} s "
                f"(each queue's completed count moved with them); {_holding(pruned)}"
            )
        if audit_cutoff is not None and old_events:
            pruned = await prune_audit(db, audit_cutoff, batch=args.batch_size, progress=_progress("events"))
            print(
                f"removed {pruned.rows:,} audit events in {pruned.batches:,} batches, {pruned.seconds:.1f} s; "
                f"{_holding(pruned)}"
            )
    finally:
        await db.close()
    return 0


def _size(n_bytes: int) -> str:
    if n_bytes < 1024:
        return f"{n_bytes:,} bytes"
    if n_bytes < 1024 * 1024:
        return f"{n_bytes / 1024:,.1f} KiB"
    return f"{n_bytes / 1024 / 1024:,.1f} MiB"


def _sqlite_file(url: str, file: str, *, restoring: bool) -> Path | int:
    """The SQLite file behind `url`; an exit code (with the pg_dump advice) for PostgreSQL."""
    url = normalize_url(url)
    if url.startswith("postgresql"):
        print(f"queuedesk: {postgres_advice(url, file, restoring=restoring)}", file=sys.stderr)
        return 2
    if not url.startswith("sqlite"):
        return _fail(f"unsupported database URL {url!r}: use sqlite:///path/file.db or postgresql://...")
    return sqlite_path(url)


def backup(args: argparse.Namespace) -> int:
    """A consistent copy of a SQLite database, also while a server writes to it."""
    try:
        database = _sqlite_file(args.db or default_db_url(), args.file, restoring=False)
        if isinstance(database, int):
            return database
        started = time.perf_counter()
        summary = backups.backup(database, Path(args.file), force=args.force)
    except (BackupError, ValueError) as exc:
        return _fail(str(exc))
    print(
        f"backup: {args.file}: {_size(Path(args.file).stat().st_size)}, {summary.tasks:,} tasks, "
        f"schema version {summary.version}, integrity ok ({time.perf_counter() - started:.1f} s)"
    )
    return 0


def restore(args: argparse.Namespace) -> int:
    """Replace a stopped server's SQLite database with a backup, checked first."""
    try:
        database = _sqlite_file(args.db or default_db_url(), args.file, restoring=True)
        if isinstance(database, int):
            return database
        done = backups.restore(Path(args.file), database, keep=not args.no_keep, now=utcnow())
    except (BackupError, ValueError) as exc:
        return _fail(str(exc))
    version = f"schema version {done.found_version}"
    if done.found_version != done.summary.version:
        version += f", upgraded to {done.summary.version}"
    print(
        f"restore: {database} now holds {args.file} ({version}; {done.summary.tasks:,} tasks, integrity ok)"
    )
    if done.kept is not None:
        print(f"restore: the database it replaced is kept as {done.kept}")
    return 0
