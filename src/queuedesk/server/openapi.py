"""The OpenAPI document of the whole contract, built from the same pydantic models the client uses."""

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from queuedesk import __version__
from queuedesk.api import models
from queuedesk.server.work import CLAIM_LIMIT, MAX_EXCLUDE

REF = "#/components/schemas/{model}"

RESPONSE_MODELS: list[type[BaseModel]] = [
    models.Task,
    models.TaskPage,
    models.AssignedTask,
    models.PendingPage,
    models.Queue,
    models.QueueDetail,
    models.Webhook,
    models.Me,
    models.ImportResult,
    models.Health,
    models.WebhookSecret,
    models.Delivery,
    models.DeliveryDetail,
    models.DeliveryPage,
    models.QueueStats,
    models.WebhookTestResult,
    models.ErrorEnvelope,
]
REQUEST_MODELS: list[type[BaseModel]] = [
    models.TaskData,
    models.ReleaseRequest,
    models.ImportRequest,
    models.WebhookTarget,
    models.QueueCreate,
    models.QueueUpdate,
]


def _ref(model: type[BaseModel] | str) -> dict[str, str]:
    """A reference to a model's schema, or to one of SCHEMAS by name."""
    return {"$ref": REF.format(model=model if isinstance(model, str) else model.__name__)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = _json(_ref(models.ErrorEnvelope), description)
    if headers:
        answer["headers"] = headers
    return answer


ID = {"type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999}
# Request bodies the server reads without a model of their own.
SCHEMAS: dict[str, dict[str, Any]] = {
    "ClaimRequest": {
        "type": "object",
        "title": "ClaimRequest",
        "description": f"Claiming ahead (B4): the task ids the client already has; at most {MAX_EXCLUDE}.",
        "properties": {"exclude": {"type": "array", "items": ID, "maxItems": MAX_EXCLUDE, "default": []}},
        "additionalProperties": False,
    }
}
PAGING = [
    {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}},
]
STATS_QUERY = [
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
]
HISTORY_FILTERS = [
    {"name": "completed_by", "in": "query", "schema": {"type": "string"}, "description": "an email, or `me`"},
    {"name": "start_date", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601, inclusive"},
    {"name": "end_date", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601, inclusive"},
]
STATUS_FILTER = [
    {
        "name": "status",
        "in": "query",
        "schema": {"type": "string"},
        "description": "comma list of new, open, in_progress",
    }
]


def _path_params(path: str) -> list[dict[str, Any]]:
    names = [part[1:-1] for part in path.split("/") if part.startswith("{")]
    return [{"name": name, "in": "path", "required": True, "schema": ID} for name in names]


def _operation(
    path: str,
    summary: str,
    ok: dict[str, Any],
    *,
    body: type[BaseModel] | str | None = None,
    body_optional: bool = False,
    query: list[dict[str, Any]] | None = None,
    conflicts: bool | str = False,
    auth: bool = True,
) -> dict[str, Any]:
    responses: dict[str, Any] = dict(ok)
    if auth:
        responses["400"] = _error("Malformed, missing or invalid input.")
        responses["401"] = _error(
            "No or unknown API key.",
            {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Token`"}},
        )
        responses["403"] = _error("The key's role may not do this.")
        responses["404"] = _error("No such organization, queue or task (for this key).")
    if body is not None:
        responses["413"] = _error("The body is over 1 MiB.")
    if conflicts:
        responses["409"] = _error(
            conflicts if isinstance(conflicts, str) else "The task's state forbids this."
        )
    responses["500"] = _error("A bug; still the envelope.")
    operation: dict[str, Any] = {
        "summary": summary,
        "parameters": _path_params(path) + (query or []),
        "responses": responses,
    }
    if not auth:
        operation["security"] = []
    if body is not None:
        operation["requestBody"] = {
            "required": not body_optional,
            "content": {"application/json": {"schema": _ref(body)}},
        }
    return operation


def _ok(
    model: type[BaseModel] | None, description: str = "Success.", *, array: bool = False
) -> dict[str, Any]:
    if model is None:
        return {"200": {"description": description + " Empty body."}}
    schema = {"type": "array", "items": _ref(model)} if array else _ref(model)
    return {"200": _json(schema, description)}


def _paths(kind: str) -> dict[str, dict[str, Any]]:
    """Part A operations under `/queues` or `/workflows`."""
    q = f"/orgs/{{org}}/{kind}/{{queue}}"
    return {
        f"/orgs/{{org}}/{kind}": {
            "get": _operation(f"/orgs/{{org}}/{kind}", "A3 List queues", _ok(models.Queue, array=True)),
        },
        q: {"get": _operation(q, "A4 Get a queue", _ok(models.QueueDetail))},
        f"{q}/flush": {"put": _operation(f"{q}/flush", "A5 Flush a queue", _ok(None))},
        f"{q}/tasks/create": {
            "post": _operation(
                f"{q}/tasks/create", "A1 Create a task", _ok(models.Task), body=models.TaskData
            )
        },
        f"{q}/tasks/completed": {
            "get": _operation(
                f"{q}/tasks/completed",
                "A2 List completed tasks",
                _ok(models.TaskPage),
                query=PAGING + HISTORY_FILTERS,
            )
        },
        f"{q}/webhook": {
            "get": _operation(f"{q}/webhook", "A6 Get the webhook", _ok(models.Webhook)),
            "put": _operation(f"{q}/webhook", "A7 Set the webhook", _ok(None), body=models.WebhookTarget),
            "patch": _operation(f"{q}/webhook", "A7 Set the webhook", _ok(None), body=models.WebhookTarget),
        },
    }


def _part_b() -> dict[str, dict[str, Any]]:
    q = "/orgs/{org}/queues/{queue}"
    t = f"{q}/tasks/{{task}}"
    with_assignment = _ok(models.AssignedTask, "The task with its assignment.")
    claimed = {
        **with_assignment,
        "204": {
            "description": "Nothing claimable.",
            "headers": {
                "X-Tasks-Held": {
                    "schema": {"type": "integer"},
                    "description": "tasks under others' live claims",
                }
            },
        },
    }
    return {
        "/healthz": {"get": _operation("/healthz", "B14 Health", _ok(models.Health), auth=False)},
        "/me": {"get": _operation("/me", "B1 Who am I", _ok(models.Me))},
        "/orgs/{org}/queues": {
            "post": _operation(
                "/orgs/{org}/queues",
                "B12 Create a queue",
                _ok(models.QueueDetail),
                body=models.QueueCreate,
                conflicts=True,
            )
        },
        q: {
            "patch": _operation(
                q, "B13 Change a queue", _ok(models.QueueDetail), body=models.QueueUpdate, conflicts=True
            )
        },
        f"{q}/tasks": {
            "get": _operation(
                f"{q}/tasks", "B2 Pending tasks", _ok(models.PendingPage), query=PAGING + STATUS_FILTER
            )
        },
        f"{q}/tasks/import": {
            "post": _operation(
                f"{q}/tasks/import", "B8 Import tasks", _ok(models.ImportResult), body=models.ImportRequest
            )
        },
        f"{q}/tasks/next": {
            "post": _operation(
                f"{q}/tasks/next",
                "B4 Claim the next task",
                claimed,
                body="ClaimRequest",
                body_optional=True,
                conflicts=f"`claim_limit`: the caller holds {CLAIM_LIMIT} live claims in the queue.",
            )
        },
        t: {"get": _operation(t, "B3 Get a task", with_assignment)},
        f"{t}/heartbeat": {
            "post": _operation(
                f"{t}/heartbeat", "B5 Extend the lease", _ok(models.Assignment), conflicts=True
            )
        },
        f"{t}/release": {
            "post": _operation(
                f"{t}/release",
                "B6 Release",
                with_assignment,
                body=models.ReleaseRequest,
                body_optional=True,
                conflicts=True,
            )
        },
        f"{t}/complete": {
            "post": _operation(
                f"{t}/complete", "B7 Complete", _ok(models.Task), body=models.TaskData, conflicts=True
            )
        },
        f"{q}/webhook": {"delete": _operation(f"{q}/webhook", "B9 Remove the webhook", _ok(None))},
        f"{q}/webhook/secret": {
            "get": _operation(f"{q}/webhook/secret", "B9 Read the signing secret", _ok(models.WebhookSecret))
        },
        f"{q}/webhook/secret/rotate": {
            "post": _operation(
                f"{q}/webhook/secret/rotate", "B9 Rotate the signing secret", _ok(models.WebhookSecret)
            )
        },
        f"{q}/webhook/deliveries": {
            "get": _operation(
                f"{q}/webhook/deliveries", "B10 Delivery log", _ok(models.DeliveryPage), query=PAGING
            )
        },
        f"{q}/webhook/deliveries/{{delivery}}": {
            "get": _operation(
                f"{q}/webhook/deliveries/{{delivery}}",
                "B10 One delivery and its attempts",
                _ok(models.DeliveryDetail),
            )
        },
        f"{q}/stats": {
            "get": _operation(f"{q}/stats", "B15 Queue stats", _ok(models.QueueStats), query=STATS_QUERY)
        },
        f"{q}/webhook/test": {
            "post": _operation(
                f"{q}/webhook/test",
                "B16 Test the webhook",
                _ok(models.WebhookTestResult),
                conflicts="The queue has no webhook.",
            )
        },
        f"{q}/webhook/deliveries/{{delivery}}/redeliver": {
            "post": _operation(
                f"{q}/webhook/deliveries/{{delivery}}/redeliver", "B11 Redeliver", _ok(models.Delivery)
            )
        },
    }


def _merge(*groups: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for group in groups:
        for path, operations in group.items():
            merged.setdefault(path, {}).update(operations)
    return merged


@cache
def openapi_document() -> dict[str, Any]:
    _, responses = models_json_schema(
        [(m, "serialization") for m in [*RESPONSE_MODELS, models.Assignment]], ref_template=REF
    )
    _, requests = models_json_schema([(m, "validation") for m in REQUEST_MODELS], ref_template=REF)
    schemas = {**responses.get("$defs", {}), **requests.get("$defs", {}), **SCHEMAS}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "QueueDesk",
            "version": __version__,
            "description": "The Task Queue Service interface (Part A) and QueueDesk's extensions (Part B).",
        },
        "paths": _merge(_paths("queues"), _paths("workflows"), _part_b()),
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "token": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Token <API key>`",
                }
            },
        },
        "security": [{"token": []}],
    }
