"""What the route table says about one route, and how a handler is bound to the caller it needs.

A route names its action once: the bound endpoint resolves the caller for that action (401, then
404, then 403, as `access` orders them) before the handler runs, and the OpenAPI document takes
the same route's summary and models. `route_table.py` lists the routes.
"""

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.access import (
    Action,
    QueueCaller,
    UserCaller,
    authenticate,
    authorize,
    authorize_queue,
    authorize_user,
)
from queuedesk.server.http.asgi import Endpoint, Route
from queuedesk.server.store.records import Principal

C = TypeVar("C")  # what a route's handler gets besides the request: the caller
PrincipalHandler = Callable[[Request, Principal], Awaitable[Response]]
QueueHandler = Callable[[Request, QueueCaller], Awaitable[Response]]
UserHandler = Callable[[Request, UserCaller], Awaitable[Response]]

QUEUES = "/orgs/{org}/queues"
LEGACY_QUEUES = "/orgs/{org}/workflows"  # the contract's old spelling, for Part A paths


@dataclass(frozen=True)
class Doc:
    """The route's operation in the OpenAPI document."""

    summary: str
    response: type[BaseModel] | None  # None: an empty body
    response_description: str = "Success."
    array: bool = False  # a JSON array of `response`
    other_answers: Mapping[str, Any] = field(default_factory=dict)  # success answers besides the 200
    body: type[BaseModel] | Mapping[str, Any] | None = None  # a model, or a schema with a `title`
    body_optional: bool = False
    query: tuple[Mapping[str, Any], ...] = ()
    conflicts: bool | str = False  # a 409, described by the string if one is given
    auth: bool = True


@dataclass(frozen=True)
class RouteSpec:
    path: str
    methods: tuple[str, ...]
    endpoint: Endpoint
    roles: tuple[str, ...] | None  # None: any API key, or none at all when `doc.auth` is false
    doc: Doc | None  # None: not in the document (the document itself)
    legacy: bool = False  # a Part A path: also served under `/orgs/{org}/workflows`

    def paths(self) -> Iterator[str]:
        yield self.path
        if self.legacy:
            yield self.path.replace(QUEUES, LEGACY_QUEUES, 1)


def public(path: str, endpoint: Endpoint, doc: Doc | None) -> RouteSpec:
    """A GET anyone may make, without a key."""
    return RouteSpec(path, ("GET",), endpoint, None, doc)


def _bound(
    resolve: Callable[[Request, Action], Awaitable[C]],
    action: Action,
    handler: Callable[[Request, C], Awaitable[Response]],
) -> Endpoint:
    """The endpoint: the caller resolved for `action` (or the refusal), then the handler."""

    @wraps(handler)
    async def endpoint(request: Request) -> Response:
        return await handler(request, await resolve(request, action))

    return endpoint


def signed_in(path: str, methods: tuple[str, ...], handler: PrincipalHandler, doc: Doc) -> RouteSpec:
    """Any valid key; the handler gets the key's user."""

    @wraps(handler)
    async def endpoint(request: Request) -> Response:
        return await handler(request, await authenticate(request))

    return RouteSpec(path, methods, endpoint, None, doc)


def in_org(
    path: str,
    methods: tuple[str, ...],
    action: Action,
    handler: PrincipalHandler,
    doc: Doc,
    *,
    legacy: bool = False,
) -> RouteSpec:
    """A route under `/orgs/{org}`: the key's organization, and a role allowed `action`."""
    return RouteSpec(path, methods, _bound(authorize, action, handler), action.roles, doc, legacy)


def in_queue(
    path: str,
    methods: tuple[str, ...],
    action: Action,
    handler: QueueHandler,
    doc: Doc,
    *,
    legacy: bool = False,
) -> RouteSpec:
    """A route under a queue (and maybe a task): both found, and a role allowed `action`."""
    return RouteSpec(path, methods, _bound(authorize_queue, action, handler), action.roles, doc, legacy)


def in_user(path: str, methods: tuple[str, ...], action: Action, handler: UserHandler, doc: Doc) -> RouteSpec:
    """A route under one user of the organization (and maybe one of their keys): both found, and a
    role allowed `action`."""
    return RouteSpec(path, methods, _bound(authorize_user, action, handler), action.roles, doc)


def routes(specs: Iterable[RouteSpec]) -> list[Route]:
    """The router's routes: one per path of each spec."""
    return [Route(path, spec.endpoint, spec.methods) for spec in specs for path in spec.paths()]
