"""Every endpoint of the service, once: its paths, methods, handler, the action (and so the roles) it
needs, and what the OpenAPI document says of it. The router and the document are both built from
`ROUTE_TABLE`.
"""

from functools import cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api import models
from queuedesk.server.access import Action
from queuedesk.server.http.asgi import Router
from queuedesk.server.http.openapi import ID, openapi_document
from queuedesk.server.http.plumbing import JSONResponse
from queuedesk.server.http.route_spec import (
    QUEUES,
    Doc,
    RouteSpec,
    in_org,
    in_queue,
    in_user,
    public,
    routes,
    signed_in,
)
from queuedesk.server.ops.metrics import metrics
from queuedesk.server.ops.readiness import readyz
from queuedesk.server.routes import (
    account,
    audit,
    gold,
    imports,
    queues,
    reviews,
    stats,
    tasks,
    users,
    webhook,
    webhook_ping,
    work,
)
from queuedesk.server.rules.claiming import CLAIM_LIMIT, MAX_EXCLUDE
from queuedesk.server.store.audit import AUDIT_SORTS
from queuedesk.server.store.deliveries import DELIVERY_SORTS
from queuedesk.server.store.tasks import COMPLETED_SORTS, PENDING_SORTS

QUEUE = QUEUES + "/{queue}"
TASK = QUEUE + "/tasks/{task}"
DELIVERY = QUEUE + "/webhook/deliveries/{delivery}"
IMPORT = QUEUE + "/imports/{import}"
USERS = "/orgs/{org}/users"
USER = USERS + "/{user}"
AUDIT = "/orgs/{org}/audit"
GET, POST, PUT, PATCH, DELETE = ("GET",), ("POST",), ("PUT",), ("PATCH",), ("DELETE",)

PAGING = (
    {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}},
)
HISTORY_FILTERS = (
    {"name": "completed_by", "in": "query", "schema": {"type": "string"}, "description": "an email, or `me`"},
    {"name": "start_date", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601, inclusive"},
    {"name": "end_date", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601, inclusive"},
)
SEARCH = (
    {
        "name": "q",
        "in": "query",
        "schema": {"type": "string", "maxLength": 200},
        "description": "text found in any block's value, in any case",
    },
)


def order(default: str) -> tuple[dict[str, Any], ...]:
    return (
        {
            "name": "order",
            "in": "query",
            "schema": {"type": "string", "enum": ["asc", "desc"], "default": default},
            "description": "asc: oldest first; desc: newest first",
        },
    )


def sort(columns: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    return (
        {
            "name": "sort",
            "in": "query",
            "schema": {"type": "string", "enum": list(columns), "default": columns[0]},
            "description": "the column the list is ordered by (in `order`); ties by id",
        },
    )


STATUS_FILTER = (
    {
        "name": "status",
        "in": "query",
        "schema": {"type": "string"},
        "description": "comma list of new, open, in_progress",
    },
)
STATS_QUERY = (
    {
        "name": "since",
        "in": "query",
        "schema": {"type": "string", "format": "date-time"},
        "description": "ISO 8601; default 8 hours ago",
    },
    {
        "name": "bucket_minutes",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": 1440, "default": 15},
        "description": "at most 500 buckets from `since` to now",
    },
)
AUDIT_FILTERS = (
    {
        "name": "action",
        "in": "query",
        "schema": {"type": "string"},
        "description": "one action, e.g. queue.flush",
    },
    {"name": "actor", "in": "query", "schema": {"type": "string"}, "description": "an email, any case"},
    {"name": "queue_id", "in": "query", "schema": {"type": "integer", "minimum": 1}},
    {
        "name": "since",
        "in": "query",
        "schema": {"type": "string", "format": "date-time"},
        "description": "ISO 8601, inclusive",
    },
)
# The claim's body has no model of its own: the server reads it field by field.
CLAIM_REQUEST: dict[str, Any] = {
    "type": "object",
    "title": "ClaimRequest",
    "description": f"Claiming ahead (B4): the task ids the client already has; at most {MAX_EXCLUDE}.",
    "properties": {"exclude": {"type": "array", "items": ID, "maxItems": MAX_EXCLUDE, "default": []}},
    "additionalProperties": False,
}
NOTHING_CLAIMABLE = {
    "204": {
        "description": "Nothing claimable.",
        "headers": {
            "X-Tasks-Held": {"schema": {"type": "integer"}, "description": "tasks under others' live claims"}
        },
    }
}
WITH_ASSIGNMENT = "The task with its assignment and review."
NO_REVIEW_CLAIMABLE = {
    "204": {
        "description": "No review is pending.",
        "headers": {
            "X-Reviews-Held": {
                "schema": {"type": "integer"},
                "description": "reviews under others' live claims",
            }
        },
    }
}
REVIEW_FILTERS = (
    {
        "name": "verdict",
        "in": "query",
        "schema": {"type": "string"},
        "description": "comma list of accept, correct, redo (or accepted, corrected, redone)",
    },
    {"name": "completed_by", "in": "query", "schema": {"type": "string"}, "description": "an email, or `me`"},
    {"name": "reviewer", "in": "query", "schema": {"type": "string"}, "description": "an email, or `me`"},
)
GOLD_FILTERS = (
    {
        "name": "completed_by",
        "in": "query",
        "schema": {"type": "string"},
        "description": "the worker: an email, or `me`",
    },
    {
        "name": "correct",
        "in": "query",
        "schema": {"type": "boolean"},
        "description": "only answers that matched, or missed",
    },
)
GOLD_PATCH: dict[str, Any] = {
    "type": "object",
    "title": "TaskChange",
    "description": "B22: a gold task's new expected values ({block id: value}; earlier answers keep their "
    "score), or `retired: true` (never served again).",
    "properties": {"gold": {"type": "object"}, "retired": {"type": "boolean", "enum": [True]}},
    "additionalProperties": False,
}


async def serve_openapi(request: Request) -> Response:
    return JSONResponse(document())


ROUTE_TABLE: tuple[RouteSpec, ...] = (
    public("/healthz", account.healthz, Doc("B14 Health", models.Health, auth=False)),
    public("/openapi.json", serve_openapi, None),
    public(
        "/readyz",
        readyz,
        Doc("Part C Readiness: 200 ready, 503 starting or draining", models.Health, auth=False),
    ),
    public("/metrics", metrics, None),  # the Prometheus text format, not JSON (docs/operations.md)
    signed_in("/me", GET, account.me, Doc("B1 Who am I", models.Me)),
    # Part A
    in_org(
        QUEUES,
        GET,
        Action.READ_QUEUES,
        queues.list_queues,
        Doc("A3 List queues", models.Queue, array=True),
        legacy=True,
    ),
    in_queue(
        QUEUE,
        GET,
        Action.READ_QUEUES,
        queues.get_queue,
        Doc("A4 Get a queue", models.QueueDetail),
        legacy=True,
    ),
    in_queue(QUEUE + "/flush", PUT, Action.FLUSH, queues.flush, Doc("A5 Flush a queue", None), legacy=True),
    in_queue(
        QUEUE + "/tasks/create",
        POST,
        Action.CREATE_TASKS,
        tasks.create_task,
        Doc("A1 Create a task", models.Task, body=models.TaskData),
        legacy=True,
    ),
    in_queue(
        QUEUE + "/tasks/completed",
        GET,
        Action.READ_HISTORY,
        tasks.completed_tasks,
        Doc(
            "A2 List completed tasks",
            models.TaskPage,
            query=PAGING + HISTORY_FILTERS + SEARCH + order("desc") + sort(COMPLETED_SORTS),
        ),
        legacy=True,
    ),
    in_queue(
        QUEUE + "/webhook",
        GET,
        Action.READ_WEBHOOK,
        webhook.get_webhook,
        Doc("A6 Get the webhook", models.Webhook),
        legacy=True,
    ),
    in_queue(
        QUEUE + "/webhook",
        PUT + PATCH,
        Action.WRITE_WEBHOOK,
        webhook.set_webhook,
        Doc("A7 Set the webhook", None, body=models.WebhookTarget),
        legacy=True,
    ),
    # Part B
    in_org(
        QUEUES,
        POST,
        Action.MANAGE_QUEUES,
        queues.create_queue,
        Doc("B12 Create a queue", models.QueueDetail, body=models.QueueCreate, conflicts=True),
    ),
    in_queue(
        QUEUE,
        PATCH,
        Action.MANAGE_QUEUES,
        queues.update_queue,
        Doc("B13 Change a queue", models.QueueDetail, body=models.QueueUpdate, conflicts=True),
    ),
    in_queue(
        QUEUE + "/tasks",
        GET,
        Action.READ_PENDING,
        tasks.pending_tasks,
        Doc(
            "B2 Pending tasks",
            models.PendingPage,
            query=PAGING + STATUS_FILTER + SEARCH + order("asc") + sort(PENDING_SORTS),
        ),
    ),
    in_queue(
        QUEUE + "/tasks/import",
        POST,
        Action.CREATE_TASKS,
        tasks.import_tasks,
        Doc("B8 Import tasks", models.ImportResult, body=models.ImportRequest),
    ),
    in_queue(
        QUEUE + "/imports",
        POST,
        Action.CREATE_TASKS,
        imports.open_import,
        Doc(
            "B18 Open an import session (or find it by its key)",
            models.ImportSession,
            body=models.ImportSessionRequest,
            conflicts="The key names a session with another source or total.",
        ),
    ),
    in_queue(
        IMPORT,
        GET,
        Action.CREATE_TASKS,
        imports.get_import,
        Doc("B18 An import session", models.ImportSession),
    ),
    in_queue(
        IMPORT + "/chunks",
        POST,
        Action.CREATE_TASKS,
        imports.stage_chunk,
        Doc(
            "B18 Stage rows at an offset (a re-sent chunk changes nothing)",
            models.ImportSession,
            body=models.ImportChunk,
            conflicts="The session is already committed.",
        ),
    ),
    in_queue(
        IMPORT + "/commit",
        POST,
        Action.CREATE_TASKS,
        imports.commit_import,
        Doc(
            "B18 Commit every staged row as tasks, at once (again: the same answer)",
            models.ImportResult,
            conflicts="Rows are missing; nothing was created.",
        ),
    ),
    in_queue(
        QUEUE + "/tasks/next",
        POST,
        Action.WORK,
        work.claim_next,
        Doc(
            "B4 Claim the next task",
            models.AssignedTask,
            WITH_ASSIGNMENT,
            other_answers=NOTHING_CLAIMABLE,
            body=CLAIM_REQUEST,
            body_optional=True,
            conflicts=f"`claim_limit`: the caller holds {CLAIM_LIMIT} live claims in the queue.",
        ),
    ),
    in_queue(
        TASK,
        GET,
        Action.READ_PENDING,
        tasks.get_task,
        Doc("B3 Get a task", models.AssignedTask, WITH_ASSIGNMENT),
    ),
    in_queue(
        TASK,
        PATCH,
        Action.CHANGE_TASKS,
        gold.patch_task,
        Doc(
            "B24 Change a task (B22: a gold task's expected values, retiring it)",
            models.AssignedTask,
            WITH_ASSIGNMENT,
            body=GOLD_PATCH,
            conflicts="`already_completed`: the task is completed.",
        ),
    ),
    in_queue(
        QUEUE + "/gold/answers",
        GET,
        Action.READ_GOLD_ANSWERS,
        gold.list_answers,
        Doc(
            "B22 Scored answers to gold tasks, newest first",
            models.GoldAnswerPage,
            query=PAGING + GOLD_FILTERS,
        ),
    ),
    in_queue(
        TASK + "/heartbeat",
        POST,
        Action.WORK,
        work.heartbeat,
        Doc("B5 Extend the lease", models.Assignment, conflicts=True),
    ),
    in_queue(
        TASK + "/release",
        POST,
        Action.WORK,
        work.release,
        Doc(
            "B6 Release",
            models.AssignedTask,
            WITH_ASSIGNMENT,
            body=models.ReleaseRequest,
            body_optional=True,
            conflicts=True,
        ),
    ),
    in_queue(
        TASK + "/complete",
        POST,
        Action.WORK,
        work.complete,
        Doc("B7 Complete", models.Task, body=models.TaskData, conflicts=True),
    ),
    in_queue(
        QUEUE + "/webhook",
        DELETE,
        Action.WRITE_WEBHOOK,
        webhook.delete_webhook,
        Doc("B9 Remove the webhook", None),
    ),
    in_queue(
        QUEUE + "/webhook/secret",
        GET,
        Action.WRITE_WEBHOOK,
        webhook.get_secret,
        Doc("B9 Read the signing secret", models.WebhookSecret),
    ),
    in_queue(
        QUEUE + "/webhook/secret/rotate",
        POST,
        Action.WRITE_WEBHOOK,
        webhook.rotate_secret,
        Doc("B9 Rotate the signing secret", models.WebhookSecret),
    ),
    in_queue(
        QUEUE + "/webhook/deliveries",
        GET,
        Action.READ_WEBHOOK,
        webhook.list_deliveries,
        Doc("B10 Delivery log", models.DeliveryPage, query=PAGING + order("desc") + sort(DELIVERY_SORTS)),
    ),
    in_queue(
        DELIVERY,
        GET,
        Action.READ_WEBHOOK,
        webhook.get_delivery,
        Doc("B10 One delivery and its attempts", models.DeliveryDetail),
    ),
    in_queue(
        DELIVERY + "/redeliver",
        POST,
        Action.WRITE_WEBHOOK,
        webhook.redeliver,
        Doc(
            "B11 Redeliver (optionally to the queue's current target)",
            models.Delivery,
            body=models.RedeliverRequest,
            body_optional=True,
            conflicts="`target` is `current` and the queue has no webhook.",
        ),
    ),
    in_queue(
        QUEUE + "/webhook/test",
        POST,
        Action.WRITE_WEBHOOK,
        webhook_ping.test_webhook,
        Doc("B16 Test the webhook", models.WebhookTestResult, conflicts="The queue has no webhook."),
    ),
    in_queue(
        QUEUE + "/stats",
        GET,
        Action.READ_STATS,
        stats.get_stats,
        Doc("B15 Queue stats", models.QueueStats, query=STATS_QUERY),
    ),
    in_queue(
        QUEUE + "/reviews/next",
        POST,
        Action.REVIEW,
        reviews.claim_next,
        Doc(
            "B19 Claim the next review",
            models.AssignedTask,
            WITH_ASSIGNMENT,
            other_answers=NO_REVIEW_CLAIMABLE,
            body=CLAIM_REQUEST,
            body_optional=True,
            conflicts=f"`claim_limit`: the caller holds {CLAIM_LIMIT} live review claims in the queue.",
        ),
    ),
    in_queue(
        TASK + "/review",
        POST,
        Action.REVIEW,
        reviews.give_verdict,
        Doc(
            "B19 Give a verdict: accept, correct or redo",
            models.AssignedTask,
            WITH_ASSIGNMENT,
            body=models.VerdictRequest,
            conflicts="`not_completed`, `already_reviewed`, or `not_assignee` (another reviewer holds it).",
        ),
    ),
    in_queue(
        TASK + "/review/heartbeat",
        POST,
        Action.REVIEW,
        reviews.heartbeat,
        Doc("B19 Extend the review lease", models.Review, conflicts=True),
    ),
    in_queue(
        TASK + "/review/release",
        POST,
        Action.REVIEW,
        reviews.release,
        Doc("B19 Release a review claim", models.AssignedTask, WITH_ASSIGNMENT, conflicts=True),
    ),
    in_queue(
        QUEUE + "/reviews",
        GET,
        Action.READ_REVIEWS,
        reviews.list_reviews,
        Doc("B19 Reviewed tasks, newest verdict first", models.ReviewPage, query=PAGING + REVIEW_FILTERS),
    ),
    in_org(USERS, GET, Action.LIST_PEOPLE, users.list_users, Doc("B17 List users", models.User, array=True)),
    in_org(
        USERS,
        POST,
        Action.MANAGE_PEOPLE,
        users.create_user,
        Doc(
            "B17 Add a user", models.User, body=models.UserCreate, conflicts="A user with this email exists."
        ),
    ),
    in_user(
        USER,
        PATCH,
        Action.MANAGE_PEOPLE,
        users.update_user,
        Doc(
            "B17 Change or disable a user",
            models.User,
            body=models.UserUpdate,
            conflicts="`last_admin`: the change would leave the organization without an active admin.",
        ),
    ),
    in_user(
        USER + "/keys",
        GET,
        Action.MANAGE_PEOPLE,
        users.list_keys,
        Doc("B17 A user's keys", models.ApiKey, array=True),
    ),
    in_user(
        USER + "/keys",
        POST,
        Action.MANAGE_PEOPLE,
        users.create_key,
        Doc(
            "B17 Issue a key",
            models.IssuedKey,
            "The new key, shown this once.",
            conflicts="The user is disabled.",
        ),
    ),
    in_user(
        USER + "/keys/{key}", DELETE, Action.MANAGE_PEOPLE, users.revoke_key, Doc("B17 Revoke a key", None)
    ),
    in_org(
        AUDIT,
        GET,
        Action.READ_AUDIT,
        audit.list_events,
        Doc(
            "B20 Audit log, newest first",
            models.AuditPage,
            query=PAGING + AUDIT_FILTERS + order("desc") + sort(AUDIT_SORTS),
        ),
    ),
)


@cache
def document() -> dict[str, Any]:
    return openapi_document(ROUTE_TABLE)


def router() -> Router:
    return Router(routes(ROUTE_TABLE))
