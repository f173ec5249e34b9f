"""`GET /metrics` (Part C): the Prometheus text format, to `Authorization: Bearer <metrics token>`.

Counters are this process's own (each `serve` process is its own scrape target); the gauges are
read from the database at each scrape, the same in every process (aggregate them with max). Their
reading issues a fixed number of statements whatever the backlog (store/gauges.py), on SQLite in a
reader process so that a scrape never holds the event loop. Labels carry ids, never names.
"""

import bisect
import hmac
import itertools
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
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
DELIVERY_OUTCOMES = ("delivered", "failed", "retried")
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Families(Collector):
    """The process's counters and the gauges of the scrape being answered (read just before, see
    `metrics`), as Prometheus families."""

    def __init__(self, metrics: "Metrics") -> None:
        self.metrics = metrics
        self.read: Gauges | None = None

    def collect(self) -> Iterator[Metric]:
        yield from self._gauges()
        yield from self.metrics.counters()

    def _gauges(self) -> Iterator[Metric]:
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


class _Timing:
    """One route's histogram: a count per bucket (not cumulative) and the sum."""

    __slots__ = ("buckets", "total")

    def __init__(self) -> None:
        self.buckets = [0] * (len(DURATION_BUCKETS) + 1)
        self.total = 0.0


class Metrics:
    """One process's metrics. A request moves plain integers (a few dictionary lookups: the
    client library's labelled children take a lock and cost several times more, on every request);
    the families are made from them at each scrape."""

    def __init__(self, token: str) -> None:
        self._token = f"Bearer {token}".encode()
        self._requests: dict[tuple[str, str, int], int] = {}
        self._timings: dict[str, _Timing] = {}
        self._claims: dict[tuple[int, int], int] = {}
        self._completions: dict[tuple[int, int], int] = {}
        self._deliveries = dict.fromkeys(DELIVERY_OUTCOMES, 0)
        self.registry = CollectorRegistry(auto_describe=True)
        self.families = _Families(self)
        self.registry.register(self.families)

    def authorized(self, header: bytes | None) -> bool:
        return header is not None and hmac.compare_digest(header, self._token)

    def request(self, method: str, route: str, params: dict[str, int], status: int, seconds: float) -> None:
        key = (route, method, status)
        requests = self._requests
        requests[key] = requests.get(key, 0) + 1
        timing = self._timings.get(route)
        if timing is None:
            timing = self._timings[route] = _Timing()
        timing.buckets[bisect.bisect_left(DURATION_BUCKETS, seconds)] += 1
        timing.total += seconds
        if status == 200 and method == "POST":
            if route == CLAIM_ROUTE:
                queue = (params["org"], params["queue"])
                self._claims[queue] = self._claims.get(queue, 0) + 1
            elif route == COMPLETE_ROUTE:
                queue = (params["org"], params["queue"])
                self._completions[queue] = self._completions.get(queue, 0) + 1

    def delivery(self, status: str) -> None:
        self._deliveries[status] = self._deliveries.get(status, 0) + 1

    def counters(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "queuedesk_http_requests",
            "HTTP requests answered, by route template, method and status.",
            labels=("route", "method", "status"),
        )
        for (route, method, status), count in sorted(self._requests.items()):
            requests.add_metric([route, method, str(status)], count)
        durations = HistogramMetricFamily(
            "queuedesk_http_request_duration_seconds",
            "Time from a request's start to its answer sent, by route template.",
            labels=("route",),
        )
        for route, timing in sorted(self._timings.items()):
            cumulative = list(itertools.accumulate(timing.buckets))
            edges = [*(repr(edge) for edge in DURATION_BUCKETS), "+Inf"]
            durations.add_metric([route], list(zip(edges, cumulative, strict=True)), timing.total)
        yield requests
        yield durations
        for name, text, counts in (
            ("queuedesk_claims", "Tasks claimed through this process.", self._claims),
            ("queuedesk_completions", "Tasks completed through this process.", self._completions),
        ):
            family = CounterMetricFamily(name, text, labels=QUEUE_LABELS)
            for (org, queue), count in sorted(counts.items()):
                family.add_metric([str(org), str(queue)], count)
            yield family
        deliveries = CounterMetricFamily(
            "queuedesk_webhook_deliveries",
            "Webhook delivery attempts made by this process, by what came of them.",
            labels=("status",),
        )
        for outcome, attempts in self._deliveries.items():
            deliveries.add_metric([outcome], attempts)
        yield deliveries


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
    found.families.read = await state.db.scan(read_gauges)
    try:
        body = generate_latest(found.registry)
    finally:
        found.families.read = None
    return Response(body, media_type=CONTENT_TYPE)
