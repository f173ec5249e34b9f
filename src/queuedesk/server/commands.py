"""`queuedesk serve` and `queuedesk admin-keys ...`: what the command line does on the server side."""

import argparse
import asyncio
import contextlib
import logging
import sys
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from queuedesk.api.timestamps import utcnow
from queuedesk.server.seed import SeedError, apply_seed, load_seed
from queuedesk.server.settings import Settings, default_db_url
from queuedesk.server.store import accounts
from queuedesk.server.store.database import DatabaseUnavailable, describe, run_once
from queuedesk.server.store.schema import SchemaTooNew


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
        print(f"seed: created {line}", file=sys.stderr)
    for email, key in report.generated_keys:
        print(f"seed: API key for {email}: {key}  (shown once; store it now)", file=sys.stderr)
    if not report.created and not report.generated_keys:
        print("seed: nothing to create; everything already exists", file=sys.stderr)
    return None


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from queuedesk.server.app import create_app

    settings = Settings(
        db_url=args.db or default_db_url(),
        host=args.host,
        port=args.port,
        public_url=args.public_url,
        lease_seconds=args.lease_seconds,
        allow_private_webhooks=args.allow_private_webhooks,
        db_pool_size=args.db_pool_size,
    )
    failed = _prepare(settings, args.seed)
    if failed is not None:
        return failed
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per webhook attempt is too many
    print(
        f"queuedesk: serving {describe(settings.db_url)} on http://{settings.host}:{settings.port}",
        file=sys.stderr,
    )
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        loop="auto",
        http="auto",
        timeout_graceful_shutdown=10,
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()  # on uvloop where it is installed (loop="auto"), which asyncio.run would not use
    return 0 if server.started else 2


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
        user_id = accounts.create_user(conn, org_id, args.email, args.name or args.email, args.role, now)
    key = accounts.new_key()
    accounts.add_key(conn, user_id, key, now)
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
    print(f"revoked API key {args.key_id}", file=sys.stderr)
    return 0


COUNTERS = (
    "SELECT q.id, q.name, q.n_tasks, (SELECT count(*) FROM tasks t WHERE t.queue_id = q.id "
    "AND t.status IN ('new', 'open', 'in_progress')), q.completed_count, (SELECT count(*) FROM tasks t "
    "WHERE t.queue_id = q.id AND t.completed_at IS NOT NULL) FROM queues q ORDER BY q.id"
)


def doctor(args: argparse.Namespace) -> int:
    """Recount every queue's counters from its tasks; 0 when all match, 1 with a table of drifts."""
    url = args.db or default_db_url()
    try:
        return asyncio.run(run_once(url, _doctor, args.fix))
    except (SchemaTooNew, DatabaseUnavailable, ValueError) as exc:
        return _fail(str(exc))


def _doctor(conn: Connection, fix: bool) -> int:
    from sqlalchemy import text

    drifts = [row for row in conn.execute(text(COUNTERS)) if row[2] != row[3] or row[4] != row[5]]
    if not drifts:
        print("doctor: every queue's counters match its tasks", file=sys.stderr)
        return 0
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
