"""The ASGI application core: a router keyed by the path's shape, the error envelope, the lifespan.

A general-purpose framework tries each route's pattern in turn and wraps every request in several
layers of middleware; on the service's hottest requests that was about a fifth of the time. Here a
path is matched with one dictionary lookup: its segments, with every id-shaped segment (a positive
integer) replaced by a placeholder, name the route, and the ids become the path parameters.
Handlers still take Starlette's `Request` and return its `Response`.
"""

import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from starlette.datastructures import State
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from queuedesk.server.http.http_errors import ServiceError, answer, error
from queuedesk.server.http.plumbing import JSONResponse
from queuedesk.server.ops.requests import UNMATCHED, RequestObserver, request_id
from queuedesk.server.rules.refusals import DomainError

log = logging.getLogger("queuedesk.server")

Endpoint = Callable[[Request], Awaitable[Response]]
# An error handler answers for the exceptions it knows, or returns None to leave them to the 500.
ErrorHandler = Callable[[Request, Exception], Awaitable[Response | None]]
Lifespan = Callable[["App"], AbstractAsyncContextManager[None]]

ID = None  # what an id segment becomes in a route's key: no path segment (a string) can equal it
MAX_ID_DIGITS = 18  # ids fit a signed 64-bit column
ROUTE_CACHE = 4096
NO_PARAMS: dict[str, int] = {}  # paths recently matched (workers repeat the same few queue paths)


@dataclass(frozen=True)
class Route:
    """`path` segments are literals or `{name}` ids; `methods` are HTTP methods (HEAD goes with GET)."""

    path: str
    endpoint: Endpoint
    methods: tuple[str, ...]


def _segment_key(segment: str) -> str | None:
    if segment.isascii() and segment.isdigit() and segment[0] != "0" and len(segment) <= MAX_ID_DIGITS:
        return ID
    return segment


@dataclass(frozen=True)
class _Target:
    endpoint: Endpoint
    params: tuple[tuple[int, str], ...]  # (segment index, parameter name)
    path: str


class Router:
    def __init__(self, routes: Iterable[Route]) -> None:
        self._shapes: dict[tuple[str | None, ...], dict[str, _Target]] = {}
        for route in routes:
            segments = route.path.split("/")
            key = tuple(ID if s.startswith("{") else s for s in segments)
            params = tuple((i, s.strip("{}")) for i, s in enumerate(segments) if s.startswith("{"))
            methods = self._shapes.setdefault(key, {})
            for method in {*route.methods, *(("HEAD",) if "GET" in route.methods else ())}:
                if method in methods:
                    raise ValueError(f"two routes for {method} {route.path}")
                methods[method] = _Target(route.endpoint, params, route.path)

    def operations(self) -> list[tuple[str, str]]:
        """Every (method, path) routed, HEAD included, sorted."""
        return sorted(
            (method, target.path) for methods in self._shapes.values() for method, target in methods.items()
        )

    def match(self, method: str, path: str) -> tuple[Endpoint, dict[str, int], str]:
        """The endpoint, its path parameters and the route's template; a 404 or 405 ServiceError
        when there is none.

        The parameters are shared between requests to the same path: read them, never change them.
        """
        return self._match(method, path)

    @functools.lru_cache(maxsize=ROUTE_CACHE)  # noqa: B019 -- one Router per process, kept for good
    def _match(self, method: str, path: str) -> tuple[Endpoint, dict[str, int], str]:
        segments = path.split("/")
        methods = self._shapes.get(tuple(_segment_key(s) for s in segments))
        if methods is None:
            raise error(404, "not_found", "Not found.")
        target = methods.get(method)
        if target is None:
            refusal = error(405, "method_not_allowed", f'Method "{method}" not allowed.')
            refusal.headers["Allow"] = ", ".join(sorted(methods))
            raise refusal
        return target.endpoint, {name: int(segments[i]) for i, name in target.params}, target.path


def envelope(exc: ServiceError) -> Response:
    return JSONResponse(exc.envelope(), status_code=exc.status, headers=exc.headers)


class App:
    """The ASGI callable: `state` for what the lifespan opens, handlers for the errors it knows."""

    def __init__(
        self,
        router: Router,
        lifespan: Lifespan,
        error_handlers: dict[type[Exception], ErrorHandler],
        max_body_bytes: int,
        body_too_large: Callable[[], ServiceError],
        observer: RequestObserver | None = None,
    ) -> None:
        self.router = router
        self.observer = observer
        self.state = State()
        self._lifespan = lifespan
        self._error_handlers = error_handlers
        self._max_body = max_body_bytes
        self._too_large = body_too_large

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._run_lifespan(receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        scope["app"] = self
        scope["route"] = UNMATCHED
        request = Request(scope, receive)
        status = 499  # the client went away before its answer
        rid = request_id(scope["headers"])
        try:
            try:
                response = await self._respond(request, scope)
            except ServiceError as exc:
                response = envelope(exc)
            except DomainError as exc:
                response = envelope(answer(exc))
            except ClientDisconnect:
                return  # nobody is left to answer
            except Exception as exc:
                response = await self._on_error(request, exc)
            response.raw_headers.append((b"x-request-id", rid))
            status = response.status_code
            await response(scope, receive, send)
        finally:
            if self.observer is not None:
                self.observer.finished(
                    scope["method"],
                    scope["route"],
                    scope.get("path_params") or NO_PARAMS,
                    status,
                    time.perf_counter() - started,
                    rid,
                )

    async def _respond(self, request: Request, scope: Scope) -> Response:
        for name, value in scope["headers"]:
            # A declared body over the limit is refused before routing or reading it.
            if name == b"content-length" and value.isdigit() and int(value) > self._max_body:
                raise self._too_large()
        endpoint, params, scope["route"] = self.router.match(scope["method"], scope["path"])
        scope["path_params"] = params
        return await endpoint(request)

    async def _on_error(self, request: Request, exc: Exception) -> Response:
        for kind in type(exc).__mro__:
            handler = self._error_handlers.get(kind)
            if handler is not None and (response := await handler(request, exc)) is not None:
                return response
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return envelope(error(500, "internal_error", "Internal server error; the server log has details."))

    async def _run_lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        assert message["type"] == "lifespan.startup"
        running = _lifespan_steps(self._lifespan(self))
        try:
            await anext(running)
        except Exception as exc:
            log.exception("startup failed")
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
        assert message["type"] == "lifespan.shutdown"
        try:
            await anext(running, None)
        except Exception as exc:
            log.exception("shutdown failed")
            await send({"type": "lifespan.shutdown.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})


async def _lifespan_steps(context: AbstractAsyncContextManager[None]) -> AsyncIterator[None]:
    """The context's enter as the first step, its exit as the second."""
    async with context:
        yield
