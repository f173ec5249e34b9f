"""`QueueDeskClient`: an async client for every endpoint of the QueueDesk HTTP contract.

    async with QueueDeskClient("http://127.0.0.1:8000", token="...", organization_id=1) as qd:
        for queue in await qd.queues():
            print(queue.name, queue.n_tasks)

Arguments default to the environment (`QUEUEDESK_URL`, `QUEUEDESK_TOKEN`, `QUEUEDESK_ORG`), then to
the configuration file's profile (see `queuedesk.api.config`). Against a server that speaks only
the documented Task Queue Service interface (Part A), the Part A methods work, filters the server
lacks are applied here, and every extension raises `NotSupported` with a clear message.

One class for callers, built of one part per resource: `core` (the connection, the request path,
who and where), `queues`, `tasks`, `completed`, `work`, `imports`, `webhooks`, `reviews`, `people`, `consensus`, `gold`.
"""

from queuedesk.api.client.completed import CompletedMixin
from queuedesk.api.client.consensus import ConsensusMixin
from queuedesk.api.client.gold import GoldMixin
from queuedesk.api.client.imports import ImportsMixin
from queuedesk.api.client.people import PeopleMixin
from queuedesk.api.client.results import (
    AuditSort,
    Claim,
    CompletedSort,
    ConsensusState,
    DeliverySort,
    Moment,
    PendingSort,
    ReviewClaim,
    Verdict,
)
from queuedesk.api.client.retries import NO_RETRY, RETRY_STATUSES, RetryPolicy, retry_after_seconds
from queuedesk.api.client.reviews import ReviewsMixin
from queuedesk.api.client.tasks import TasksMixin
from queuedesk.api.client.webhooks import WebhookMixin
from queuedesk.api.client.work import WorkMixin
from queuedesk.api.config import ENV_ORG, ENV_TOKEN, ENV_URL

__all__ = [
    "ENV_ORG",
    "ENV_TOKEN",
    "ENV_URL",
    "NO_RETRY",
    "RETRY_STATUSES",
    "AuditSort",
    "Claim",
    "CompletedSort",
    "ConsensusState",
    "DeliverySort",
    "Moment",
    "PendingSort",
    "QueueDeskClient",
    "RetryPolicy",
    "ReviewClaim",
    "Verdict",
    "retry_after_seconds",
]


class QueueDeskClient(
    GoldMixin,
    ConsensusMixin,
    TasksMixin,
    CompletedMixin,
    WebhookMixin,
    ReviewsMixin,
    WorkMixin,
    ImportsMixin,
    PeopleMixin,
):
    """The client of a QueueDesk server, or of the original service (Part A only)."""
