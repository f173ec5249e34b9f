"""Who is calling and what they may do: authentication, organization scoping, roles.

The order is the contract's: authentication (401), then the organization and object (404), then
the role (403). The body (400) comes after, in the handlers.
"""

from enum import Enum
from typing import NamedTuple

from sqlalchemy import Connection
from starlette.requests import Request

from queuedesk.server.access_cache import AccessCache
from queuedesk.server.http.http_errors import forbidden, not_authenticated, not_found
from queuedesk.server.http.in_flight import InFlight
from queuedesk.server.http.plumbing import header
from queuedesk.server.http.rate_limits import RateLimits, client_address
from queuedesk.server.jobs.usage import UsageRecorder
from queuedesk.server.rules.refusals import TaskNotFound
from queuedesk.server.store import access_version, accounts, queues, tasks, users
from queuedesk.server.store.database import Database
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.users import UserRecord


class Action(Enum):
    """What a request does: the words a refusal uses, and the roles allowed. Each value is unique, so
    no two actions are aliases of each other (a refusal always names its own action)."""

    READ_QUEUES = ("read queues", ("admin", "supervisor", "worker"))
    CREATE_TASKS = ("create or import tasks", ("admin",))
    READ_HISTORY = ("read the completed tasks", ("admin", "supervisor", "worker"))
    READ_PENDING = ("read the pending tasks", ("admin", "supervisor", "worker"))
    WORK = ("claim or complete tasks", ("admin", "worker"))
    FLUSH = ("flush a queue", ("admin",))
    READ_STATS = ("read queue stats", ("admin", "supervisor"))
    READ_WEBHOOK = ("read the webhook", ("admin", "supervisor"))
    WRITE_WEBHOOK = ("change the webhook", ("admin",))
    MANAGE_QUEUES = ("create or change queues", ("admin",))
    LIST_PEOPLE = ("list users", ("admin", "supervisor"))
    MANAGE_PEOPLE = ("manage users and keys", ("admin",))
    READ_AUDIT = ("read the audit log", ("admin",))
    REVIEW = ("review completed work", ("admin", "supervisor"))
    # Workers too, but only the reviews of their own work (the handler checks `completed_by=me`).
    READ_REVIEWS = ("list reviews", ("admin", "supervisor", "worker"))
    CHANGE_TASKS = ("change a task", ("admin",))  # B24's PATCH (B22's gold values, retiring)
    # Workers too, but only their own answers (the handler checks `completed_by=me`).
    READ_GOLD_ANSWERS = ("list gold answers", ("admin", "supervisor", "worker"))

    @property
    def description(self) -> str:
        return self.value[0]

    @property
    def roles(self) -> tuple[str, ...]:
        return self.value[1]


class _Found(NamedTuple):
    """What a request's key and path lead to, before any check."""

    principal: Principal
    queue: QueueRecord | None
    task_found: bool = False


class UserCaller(NamedTuple):
    """The caller of a route under one user of its organization (and maybe one of the user's keys)."""

    principal: Principal
    user: UserRecord


class QueueCaller(NamedTuple):
    """The caller of a route under a queue: the queue (and the task, if the path names one) found."""

    principal: Principal
    queue: QueueRecord


def api_key(request: Request) -> str:
    authorization = header(request, b"authorization")
    if authorization is None:
        raise not_authenticated("not_authenticated", "Authentication credentials were not provided.")
    scheme, _, key = authorization.strip().partition(" ")
    if scheme.lower() != "token":
        raise not_authenticated(
            "not_authenticated", "Use the Token scheme: 'Authorization: Token <API key>'."
        )
    key = key.strip()
    if not key:
        raise not_authenticated("invalid_token", "Invalid token header. No credentials provided.")
    return key


def _lookup(
    conn: Connection, key_hash: str, org_id: int | None, queue_id: int | None, task_id: int | None
) -> tuple[int, _Found | None]:
    """The caller as the database has it now, with the access version it was read at."""
    version = access_version.current(conn)
    principal = accounts.principal_for_key_hash(conn, key_hash)
    if principal is None:
        return version, None
    queue = None
    if queue_id is not None and org_id == principal.organization_id:
        queue = queues.get_queue(conn, principal.organization_id, queue_id)
    task_found = queue is not None and task_id is not None and tasks.task_exists(conn, queue.id, task_id)
    return version, _Found(principal, queue, task_found)


async def _caller(
    request: Request, org_id: int | None, queue_id: int | None, task_id: int | None
) -> _Found | None:
    """The caller, within the rate limits (429): failed authentications per address, requests per
    key, requests in flight per key (the slot taken here is given back by the ASGI core). From the cache while the access version stands still, else from the database."""
    key_hash = accounts.hash_key(api_key(request))
    state = request.app.state
    limits: RateLimits = state.rate_limits
    address = client_address(request.scope)
    limits.admit(address, key_hash)
    db: Database = state.db
    cache: AccessCache = state.access_cache
    version = cache.version_this_turn
    if version is None:
        version = await db.statement(access_version.current)
        if db.statement_within_turn:
            cache.keep_for_this_turn(version)
    cache.sync(version)
    found = _cached(cache, key_hash, org_id, queue_id)
    if found is not None:
        if found.queue is not None and task_id is not None:
            # One statement: SQLite's autocommit makes it atomic without a BEGIN and a COMMIT.
            found = found._replace(task_found=await db.statement(tasks.task_exists, found.queue.id, task_id))
    else:
        read_at, found = await db.read(_lookup, key_hash, org_id, queue_id, task_id)
        if found is not None:
            cache.remember(read_at, key_hash, found.principal, found.queue)
    if found is not None:
        usage: UsageRecorder = state.usage
        if usage.due_for(found.principal):  # once a minute per key
            await usage.record(db, found.principal)
    limits.settle(address, key_hash, found.principal.user_id if found is not None else None)
    if found is not None:
        in_flight: InFlight = state.in_flight
        in_flight.enter(request.scope, key_hash)
    return found


def _cached(cache: AccessCache, key_hash: str, org_id: int | None, queue_id: int | None) -> _Found | None:
    """The caller and the queue the path names as the cache has them; None when either is not there."""
    principal = cache.principal(key_hash)
    if principal is None:
        return None
    in_org = org_id == principal.organization_id
    queue = cache.queue(principal.organization_id, queue_id) if queue_id is not None and in_org else None
    if queue is None and queue_id is not None and in_org:
        return None
    return _Found(principal, queue)


def require(principal: Principal, action: Action) -> None:
    if principal.role not in action.roles:
        what = action.description
        raise forbidden(f"A {principal.role} may not {what}.")


async def _known(request: Request, org_id: int, queue_id: int | None, task_id: int | None) -> _Found:
    """The caller, in the organization the path names (401, else 404)."""
    found = await _caller(request, org_id, queue_id, task_id)
    if found is None:
        raise not_authenticated("invalid_token", "Invalid token.")
    if org_id != found.principal.organization_id:
        raise not_found()
    return found


async def authorize(request: Request, action: Action) -> Principal:
    """The caller of a route under `/orgs/{org}`: the key's own organization, and a role allowed `action`."""
    found = await _known(request, request.path_params["org"], None, None)
    require(found.principal, action)
    return found.principal


async def authorize_queue(request: Request, action: Action) -> QueueCaller:
    """The caller of a route under a queue: the queue and the task (when the path names one) found,
    and a role allowed `action`."""
    queue_id = request.path_params["queue"]
    task_id = request.path_params.get("task")
    found = await _known(request, request.path_params["org"], queue_id, task_id)
    if found.queue is None:
        raise not_found(f"Queue {queue_id} not found.")
    if task_id is not None and not found.task_found:
        raise TaskNotFound(task_id)
    require(found.principal, action)
    return QueueCaller(found.principal, found.queue)


async def authorize_user(request: Request, action: Action) -> UserCaller:
    """The caller of a route under `/orgs/{org}/users/{user}`: the user (and the key, when the path
    names one) found in the caller's organization, and a role allowed `action`."""
    org_id = request.path_params["org"]
    found = await _known(request, org_id, None, None)
    db: Database = request.app.state.db
    user_id = request.path_params["user"]
    user = await db.read(users.find_user, org_id, user_id)
    if user is None:
        raise not_found(f"User {user_id} not found.")
    key_id = request.path_params.get("key")
    if key_id is not None and not await db.read(users.key_of_user, user.id, key_id):
        raise not_found(f"Key {key_id} of user {user_id} not found (or already revoked).")
    require(found.principal, action)
    return UserCaller(found.principal, user)


async def authenticate(request: Request) -> Principal:
    """Any valid key's user."""
    found = await _caller(request, None, None, None)
    if found is None:
        raise not_authenticated("invalid_token", "Invalid token.")
    return found.principal
