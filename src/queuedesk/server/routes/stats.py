"""B15 queue stats: completions per bucket since a moment, the queue's work now, each worker's pace."""

from collections.abc import Mapping
from datetime import datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http.plumbing import JSONResponse, bad_parameter, int_parameter, moment_parameter
from queuedesk.server.http.serialize import ts
from queuedesk.server.routes import db_of
from queuedesk.server.store.stats import queue_stats

DEFAULT_PERIOD = timedelta(hours=8)
DEFAULT_BUCKET_MINUTES = 15
MAX_BUCKET_MINUTES = 1440
MAX_BUCKETS = 500


def stats_period(params: Mapping[str, str], now: datetime) -> tuple[datetime, timedelta]:
    """`since` and the bucket width, checked: a past moment, 1 to 1440 minutes, at most 500 buckets."""
    bucket = timedelta(
        minutes=int_parameter(params, "bucket_minutes", DEFAULT_BUCKET_MINUTES, 1, MAX_BUCKET_MINUTES)
    )
    since = moment_parameter(params, "since", end_of_day=False) or now - DEFAULT_PERIOD
    if since >= now:
        raise bad_parameter("since", f"'since' must be in the past, not {ts(since)} (now is {ts(now)})")
    buckets = -(-(now - since) // bucket)
    if buckets > MAX_BUCKETS:
        raise bad_parameter(
            "since",
            f"from {ts(since)} in {bucket // timedelta(minutes=1)}-minute buckets makes {buckets} buckets; "
            f"at most {MAX_BUCKETS}: choose a later 'since' or wider 'bucket_minutes'",
        )
    return since, bucket


async def get_stats(request: Request, caller: QueueCaller) -> Response:
    now = utcnow()
    since, bucket = stats_period(request.query_params, now)
    # A long period groups many completions: on a reader, off the event loop.
    stats = await db_of(request).scan(
        queue_stats,
        caller.principal.organization_id,
        caller.queue.id,
        since,
        bucket,
        now,
        caller.queue.consensus_used,
    )
    stats["since"] = ts(stats["since"])
    for worker in stats["by_worker"]:
        worker["last_completed_at"] = ts(worker["last_completed_at"])
    return JSONResponse(stats)
