"""`GET /metrics` (Part C): the Prometheus text format, to `Authorization: Bearer <metrics token>`.

Counters are this process's own (each `serve` process is its own scrape target); the gauges are
read from the database at each scrape, the same in every process (aggregate them with max). Their
reading issues a fixed number of statements whatever the backlog (store/gauges.py), on SQLite in a
reader process so that a scrape never holds the event loop. Labels carry ids, never names.
"""

import hmac
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.http.http_errors import error
from queuedesk.server.store.gauges import Gauges, read_gauges

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
CLAIM_ROUTE = "/orgs/{org}/queues/{queue}/tasks/next"
COMPLETE_ROUTE = "/orgs/{org}/queues/{queue}/tasks/{task}/complete"
QUEUE_LABELS = ("organization_id", "queue_id")
# Seconds: a request of the service takes a millisecond or so; a slow one seconds.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _DatabaseGauges(Collector):
    """The gauges of the scrape being answered (read just before, see `metrics`)."""

    def __init__(self) -> None:
        self.read: Gauges | None = None

    def collect(self) -> Iterator[Metric]:
        read = self.read
        families = {
            "tasks_pending": "Tasks not yet completed (new, open or in progress).",
            "tasks_overdue": "Pending tasks past their due date (tasks have no due date yet: always 0).",
            "oldest_pending_age_seconds": "Age of the queue's oldest pending task (0 when none).",
            "reviews_pending": "Completions drawn for review and not yet given a verdict.",
            "webhook_pending": "Webhook deliveries not yet delivered nor failed for good.",
            "webhook_oldest_pending_age_seconds": "Age of the queue's oldest pending webhook delivery (0 when none).",
        }
        made = {
            name: GaugeMetricFamily(f"queuedesk_{name}", help_text, labels=QUEUE_LABELS)
            for name, help_text in families.items()
        }
        if read is not None:
            for queue in read.queues:
                labels = [str(queue.organization_id), str(queue.queue_id)]
                made["tasks_pending"].add_metric(labels, queue.tasks_pending)
                made["tasks_overdue"].add_metric(labels, 0)
                made["oldest_pending_age_seconds"].add_metric(labels, queue.oldest_pending_age)
                made["reviews_pending"].add_metric(labels, queue.reviews_pending)
                made["webhook_pending"].add_metric(labels, queue.webhook_pending)
                made["webhook_oldest_pending_age_seconds"].add_metric(labels, queue.webhook_oldest_age)
        yield from made.values()


class Metrics:
    """One process's metrics: its registry, and the counters the requests and the dispatcher move."""

    def __init__(self, token: str) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]  # the `_created` series double every counter's lines for little use
        self._token = f"Bearer {token}".encode()
        self.registry = CollectorRegistry(auto_describe=True)
        self.gauges = _DatabaseGauges()
        self.registry.register(self.gauges)
        self.http_requests = Counter(
            "queuedesk_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ("route", "method", "status"),
            registry=self.registry,
        )
        self.http_duration = Histogram(
            "queuedesk_http_request_duration_seconds",
            "Time from a request's start to its answer sent, by route template.",
            ("route",),
            buckets=DURATION_BUCKETS,
            registry=self.registry,
        )
        self.claims = Counter(
            "queuedesk_claims", "Tasks claimed through this process.", QUEUE_LABELS, registry=self.registry
        )
        self.completions = Counter(
            "queuedesk_completions",
            "Tasks completed through this process.",
            QUEUE_LABELS,
            registry=self.registry,
        )
        self.deliveries = Counter(
            "queuedesk_webhook_deliveries",
            "Webhook delivery attempts made by this process, by what came of them.",
            ("status",),
            registry=self.registry,
        )
        for status in ("delivered", "failed", "retried"):
            self.deliveries.labels(status)
        # A labelled child per key, found once: labels() costs more than the increment.
        self._counted: dict[tuple[str, str, int], Any] = {}
        self._timed: dict[str, Any] = {}

    def authorized(self, header: bytes | None) -> bool:
        return header is not None and hmac.compare_digest(header, self._token)

    def request(self, method: str, route: str, params: dict[str, int], status: int, seconds: float) -> None:
        key = (route, method, status)
        counted = self._counted.get(key)
        if counted is None:
            counted = self._counted[key] = self.http_requests.labels(route, method, str(status))
        counted.inc()
        timed = self._timed.get(route)
        if timed is None:
            timed = self._timed[route] = self.http_duration.labels(route)
        timed.observe(seconds)
        if status == 200 and method == "POST":
            if route == CLAIM_ROUTE:
                self.claims.labels(str(params["org"]), str(params["queue"])).inc()
            elif route == COMPLETE_ROUTE:
                self.completions.labels(str(params["org"]), str(params["queue"])).inc()

    def delivery(self, status: str) -> None:
        self.deliveries.labels(status).inc()


def _authorization(request: Request) -> bytes | None:
    for name, value in request.scope["headers"]:
        if name == b"authorization":
            return bytes(value)
    return None


async def metrics(request: Request) -> Response:
    state = request.app.state
    found: Metrics | None = state.metrics
    if found is None:
        raise error(404, "not_found", "Not found.")
    if not found.authorized(_authorization(request)):
        refusal = error(
            401, "not_authenticated", "GET /metrics takes 'Authorization: Bearer <metrics token>'."
        )
        refusal.headers["WWW-Authenticate"] = "Bearer"
        raise refusal
    found.gauges.read = await state.db.scan(read_gauges)
    try:
        body = generate_latest(found.registry)
    finally:
        found.gauges.read = None
    return Response(body, media_type=CONTENT_TYPE)
