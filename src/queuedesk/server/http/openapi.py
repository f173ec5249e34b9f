"""The OpenAPI document of the whole contract, built from the route table and the same pydantic
models the client uses."""

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from queuedesk import __version__
from queuedesk.api import models
from queuedesk.server.http.route_spec import Doc, RouteSpec

REF = "#/components/schemas/{model}"


def _ref(model: type[BaseModel] | Mapping[str, Any]) -> dict[str, str]:
    """A reference to a model's schema, or to a schema of its own by its title."""
    return {"$ref": REF.format(model=model.__name__ if isinstance(model, type) else model["title"])}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = _json(_ref(models.ErrorEnvelope), description)
    if headers:
        answer["headers"] = headers
    return answer


ID = {"type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999}


def _path_params(path: str) -> list[dict[str, Any]]:
    names = [part[1:-1] for part in path.split("/") if part.startswith("{")]
    return [{"name": name, "in": "path", "required": True, "schema": ID} for name in names]


def _ok(doc: Doc) -> dict[str, Any]:
    if doc.response is None:
        return {"200": {"description": doc.response_description + " Empty body."}}
    schema = {"type": "array", "items": _ref(doc.response)} if doc.array else _ref(doc.response)
    return {"200": _json(schema, doc.response_description), **doc.other_answers}


def _operation(path: str, doc: Doc) -> dict[str, Any]:
    responses = _ok(doc)
    if doc.auth:
        responses["400"] = _error("Malformed, missing or invalid input.")
        responses["401"] = _error(
            "No or unknown API key.",
            {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Token`"}},
        )
        responses["403"] = _error("The key's role may not do this.")
        responses["404"] = _error("No such organization, queue or task (for this key).")
        responses["429"] = _error(
            "Too many requests with this key, or failed authentications from this address.",
            {"Retry-After": {"schema": {"type": "string"}, "description": "seconds to wait"}},
        )
    if doc.body is not None:
        responses["413"] = _error("The body is over 1 MiB.")
        responses["415"] = _error("The body is declared as something other than JSON.")
    if doc.conflicts:
        responses["409"] = _error(
            doc.conflicts if isinstance(doc.conflicts, str) else "The task's state forbids this."
        )
    responses["500"] = _error("A bug; still the envelope.")
    operation: dict[str, Any] = {
        "summary": doc.summary,
        "parameters": _path_params(path) + [dict(p) for p in doc.query],
        "responses": responses,
    }
    if not doc.auth:
        operation["security"] = []
    if doc.body is not None:
        operation["requestBody"] = {
            "required": not doc.body_optional,
            "content": {"application/json": {"schema": _ref(doc.body)}},
        }
    return operation


def _documented(specs: Iterable[RouteSpec]) -> list[Doc]:
    return [spec.doc for spec in specs if spec.doc is not None]


def _schemas(docs: list[Doc]) -> dict[str, Any]:
    """The models answered with and the bodies read (a model, or a schema of its own)."""
    answered: list[type[BaseModel]] = [doc.response for doc in docs if doc.response is not None]
    read: list[type[BaseModel]] = [doc.body for doc in docs if isinstance(doc.body, type)]
    own = {doc.body["title"]: dict(doc.body) for doc in docs if isinstance(doc.body, Mapping)}
    answered = list(dict.fromkeys([*answered, models.ErrorEnvelope]))
    _, responses = models_json_schema([(m, "serialization") for m in answered], ref_template=REF)
    _, requests = models_json_schema([(m, "validation") for m in dict.fromkeys(read)], ref_template=REF)
    return {**responses.get("$defs", {}), **requests.get("$defs", {}), **own}


def openapi_document(specs: Iterable[RouteSpec]) -> dict[str, Any]:
    specs = list(specs)
    paths: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if spec.doc is None:
            continue
        for path in spec.paths():
            for method in spec.methods:
                paths.setdefault(path, {})[method.lower()] = _operation(path, spec.doc)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "QueueDesk",
            "version": __version__,
            "description": "The Task Queue Service interface (Part A) and QueueDesk's extensions (Part B).",
        },
        "paths": paths,
        "components": {
            "schemas": _schemas(_documented(specs)),
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
