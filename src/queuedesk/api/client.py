"""`QueueDeskClient`: an async client for every endpoint of the QueueDesk HTTP contract.

    async with QueueDeskClient("http://127.0.0.1:8000", token="...", organization_id=1) as qd:
        for queue in await qd.queues():
            print(queue.name, queue.n_tasks)

Arguments default to the environment (`QUEUEDESK_URL`, `QUEUEDESK_TOKEN`, `QUEUEDESK_ORG`), then to
the configuration file's profile (see `queuedesk.api.config`). Against a server that speaks only
the documented Task Queue Service interface (Part A), the Part A methods work, filters the server
lacks are applied here, and every extension raises `NotSupported` with a clear message.
"""

import asyncio
import random
import ssl
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypeVar

import httpx
import pydantic
from pydantic import SecretStr

from queuedesk import __version__
from queuedesk.api import errors, models, original_rules, plain_port
from queuedesk.api.config import ENV_ORG, ENV_TOKEN, ENV_URL, Connection, config_path, resolve_connection
from queuedesk.api.errors import (
    ConnectionFailed,
    Forbidden,
    NoReview,
    NotConfigured,
    NotFound,
    NotSupported,
    QueueDeskError,
    Timeout,
    UnexpectedResponse,
    WrongOrganization,
    error_for,
)
from queuedesk.api.numbers import plain_int
from queuedesk.api.timestamps import format_timestamp

__all__ = ["ENV_ORG", "ENV_TOKEN", "ENV_URL", "Claim", "QueueDeskClient", "RetryPolicy", "ReviewClaim"]

RETRY_STATUSES = frozenset({429, 502, 503, 504})
BLOCKS_KEPT_SECONDS = 30.0  # how long the pre-check of creates on the original trusts a queue's blocks
M = TypeVar("M", bound=pydantic.BaseModel)


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of idempotent requests only: the server's `Retry-After` when it sends one (at most
    `max_retry_after` seconds), else exponential backoff with full jitter."""

    attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0
    max_retry_after: float = 30.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        asked = retry_after_seconds(retry_after) if retry_after is not None else None
        if asked is not None:
            return min(asked, self.max_retry_after)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


def retry_after_seconds(value: str, now: datetime | None = None) -> float | None:
    """A `Retry-After` header's wait in seconds: a number of seconds or an HTTP date; None when it
    is neither."""
    seconds = plain_int(value)
    if seconds is not None:
        return float(seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


NO_RETRY = RetryPolicy(attempts=1)


@dataclass(frozen=True)
class Claim:
    """The answer of `claim_next`: a task, or none with the number held by other workers."""

    task: models.AssignedTask | None
    held_by_others: int = 0


@dataclass(frozen=True)
class ReviewClaim:
    """The answer of `claim_review`: a completed task to review, or none with the number held by others."""

    task: models.AssignedTask | None
    held_by_others: int = 0


Verdict = Literal["accept", "correct", "redo"]
Moment = datetime | date | str
CompletedSort = Literal["completed_at", "completed_by", "id"]  # A2's `sort`
PendingSort = Literal["id", "status", "holder"]  # B2's `sort`
DeliverySort = Literal["id", "status", "attempts", "task_id"]  # B10's `sort`
AuditSort = Literal["id", "action", "actor"]  # B20's `sort`


def _moment(value: Moment | None, name: str) -> datetime | date | None:
    """A date filter as a date or an aware date-time (naive ones are UTC); ValueError if unreadable."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        pass
    try:
        return _moment(datetime.fromisoformat(value.strip()), name)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not an ISO 8601 date or date-time") from None


MAX_PAGE = 1000


def _check_page(offset: int, limit: int) -> None:
    """ValueError for a page no server gives as asked: the original turns limit 0 into 100 and
    cuts 5000 to 1000 without a word, and a negative offset means nothing."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be 1-{MAX_PAGE}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")


def _day(value: datetime | date) -> date:
    return value.astimezone(UTC).date() if isinstance(value, datetime) else value


def _on_the_wire(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    return format_timestamp(value) if isinstance(value, datetime) else value.isoformat()


@dataclass(frozen=True)
class _Wanted:
    """The filters of a completed-task listing, as a QueueDesk server takes them or applied here."""

    completed_by: str | None = None
    start: datetime | date | None = None
    end: datetime | date | None = None

    @classmethod
    def of(cls, completed_by: str | None, start_date: Moment | None, end_date: Moment | None) -> "_Wanted":
        return cls(completed_by or None, _moment(start_date, "start_date"), _moment(end_date, "end_date"))

    @property
    def any(self) -> bool:
        return self.completed_by is not None or self.start is not None or self.end is not None

    def params(self, on_server: bool, bound: datetime | None) -> dict[str, str | None]:
        if on_server:
            end = bound or self.end
            return {
                "completed_by": self.completed_by,
                "start_date": _on_the_wire(self.start),
                "end_date": _on_the_wire(end),
            }
        # The original service answers 500 to a date-time and ignores completed_by: it gets plain
        # days, a day wider on each side in case its days are not UTC's, and the rest is done here.
        return {
            "start_date": _on_the_wire(_day(self.start) - timedelta(days=1)) if self.start else None,
            "end_date": _on_the_wire(_day(self.end) + timedelta(days=1)) if self.end else None,
        }

    def matches(self, task: models.Task) -> bool:
        if (
            self.completed_by is not None
            and (task.completed_by or "").casefold() != self.completed_by.casefold()
        ):
            return False
        at = task.completed_at
        if at is None:
            return self.start is None and self.end is None
        return _not_before(at, self.start) and _not_after(at, self.end)


def _not_before(at: datetime, start: datetime | date | None) -> bool:
    if start is None:
        return True
    return at >= start if isinstance(start, datetime) else _day(at) >= start


def _not_after(at: datetime, end: datetime | date | None) -> bool:
    if end is None:
        return True
    return at <= end if isinstance(end, datetime) else _day(at) <= end


class _Unseen:
    """Which tasks of a newest-first walk come for the first time.

    Offset paging repeats a task when newer completions push the list down between two pages. A
    repeat is never older than the oldest task already passed, so only the ids at that one moment
    need remembering: memory stays flat however many tasks the walk meets.
    """

    def __init__(self) -> None:
        self.oldest: datetime | None = None
        self.ids_at_oldest: set[int] = set()

    def first_time(self, task: models.Task) -> bool:
        at = task.completed_at
        if at is None:
            return True
        if self.oldest is None or at < self.oldest:
            self.oldest, self.ids_at_oldest = at, {task.id}
            return True
        if at > self.oldest or task.id in self.ids_at_oldest:
            return False
        self.ids_at_oldest.add(task.id)
        return True


def _mark_number_ids(detail: models.QueueDetail, raw: Any) -> None:
    """Remember which blocks the server named by a JSON number: the original stores no value for them."""
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        return
    for block, given in zip(detail.data, raw["data"], strict=False):
        if isinstance(given, dict) and isinstance(given.get("id"), int):
            block._number_id = True


def _blocks_with_string_ids(data: Any) -> Any:
    """The original service keeps integer block ids (`{"id": 7}`); task data names them "7". Its
    queue's description is `task_description`."""
    if isinstance(data, dict) and "description" not in data and isinstance(data.get("task_description"), str):
        data = {k: v for k, v in data.items() if k != "task_description"} | {
            "description": data["task_description"]
        }
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        blocks = [
            {**b, "id": str(b["id"])} if isinstance(b, dict) and isinstance(b.get("id"), int) else b
            for b in data["data"]
        ]
        return {**data, "data": blocks}
    return data


class _PlainHTTPTransport(httpx.AsyncHTTPTransport):
    """The transport of a client to an http:// server.

    httpx loads certifi's whole CA bundle into an SSL context for every client (30-90 ms of a
    start), which only https needs. This transport's context trusts no certificate at all, and it
    refuses any URL that is not http://: nothing goes to https through it, and if something ever
    did, the handshake would fail rather than go unverified.
    """

    def __init__(self) -> None:
        super().__init__(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol(
                f"{request.url.scheme}:// through a client made for an http:// server", request=request
            )
        return await super().handle_async_request(request)


def _transport_for(base_url: str) -> httpx.AsyncBaseTransport | None:
    """None for https (httpx's own transport, verifying against certifi or SSL_CERT_FILE/DIR)."""
    return None if httpx.URL(base_url).scheme == "https" else _PlainHTTPTransport()


class QueueDeskClient:
    def __init__(
        self,
        base_url: str | None = None,
        token: str | SecretStr | None = None,
        organization_id: int | None = None,
        *,
        profile: str | None = None,
        connection: Connection | None = None,
        timeout: float | httpx.Timeout = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Arguments win over the environment, which wins over the profile (`profile`, else the
        configuration file's default). A ready `connection` (from `resolve_connection`) is used as it is.
        ValueError (a `ConfigError`) when no server is named or the configuration is wrong."""
        if connection is None:
            connection = resolve_connection(url=base_url, token=token, org=organization_id, profile=profile)
        if connection is None:
            raise ValueError(
                f"No server URL: pass base_url, set {ENV_URL}, or save a profile in {config_path()}."
            )
        self.connection = connection
        self.base_url = connection.url
        self.token = connection.token
        self.organization_id = connection.org
        self.retry = retry
        headers = {"User-Agent": f"QueueDesk-client/{__version__}", "Accept": "application/json"}
        if self.token is not None and self.token.get_secret_value():
            headers["Authorization"] = f"Token {self.token.get_secret_value()}"
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout, connect=10.0),
            transport=transport if transport is not None else _transport_for(self.base_url),
            follow_redirects=False,  # also what keeps every request on the server named here
        )
        self._me: models.Me | None = None
        self._extensions: bool | None = None
        self._blocks_for_checks: dict[int, tuple[float, list[models.Block]]] = {}
        self._https = httpx.URL(self.base_url).scheme == "https"
        self._tls_answered = False
        self._review: bool | None = None

    async def __aenter__(self) -> "QueueDeskClient":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- transport ------------------------------------------------------------------------------

    async def _request(
        self,
        method: str,
        path: str,
        what: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotent: bool,
        ok: tuple[int, ...] = (200,),
    ) -> httpx.Response:
        policy = self.retry if idempotent else NO_RETRY
        query = {k: v for k, v in (params or {}).items() if v is not None}
        for attempt in range(policy.attempts):
            last = attempt + 1 == policy.attempts
            try:
                response = await self._send(method, path, json, query)
            except plain_port.PlainPort as exc:
                raise ConnectionFailed(f"{what} failed: {exc}", hint="") from None
            except httpx.TimeoutException as exc:
                failure: QueueDeskError = Timeout(
                    f"{what} failed: no answer from {self.base_url} ({type(exc).__name__})."
                )
            except httpx.TransportError as exc:
                if self._https and plain_port.looks_like_plain_http(exc):
                    raise ConnectionFailed(
                        f"{what} failed: {plain_port.advice(self._http.base_url)}", hint=""
                    ) from None
                failure = ConnectionFailed(
                    f"{what} failed: cannot reach {self.base_url} ({exc or type(exc).__name__})."
                )
            else:
                if response.status_code in ok:
                    return response
                if response.status_code in RETRY_STATUSES and not last and idempotent:
                    await asyncio.sleep(policy.delay(attempt, response.headers.get("Retry-After")))
                    continue
                error = error_for(response.status_code, _maybe_json(response), response.text, what)
                raise await self._explained(error, path)
            if last:
                raise failure
            await asyncio.sleep(policy.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _send(self, method: str, path: str, json: Any, query: Mapping[str, Any]) -> httpx.Response:
        if not self._https or self._tls_answered:
            return await self._http.request(method, path, json=json, params=query or None)

        # Until one TLS handshake has worked, a stalled one is checked for a plain HTTP port.
        async def send(watch: plain_port.HandshakeWatch) -> httpx.Response:
            return await self._http.request(
                method, path, json=json, params=query or None, extensions={"trace": watch}
            )

        response = await plain_port.send_watching(send, self._http.base_url)
        self._tls_answered = True
        return response

    async def _explained(self, error: QueueDeskError, path: str) -> QueueDeskError:
        """A 403 or 404 under /orgs/ may mean that the organization id is not the key's: say so."""
        if error.status not in (403, 404) or self.organization_id is None or not path.startswith("/orgs/"):
            return error
        try:
            me = await self._me_as("Checking the organization")
        except NotSupported:
            if error.status != 403:
                return error
            return Forbidden(  # the original service answers 403 for another organization
                error.message,
                status=error.status,
                errors=error.errors,
                hint=f"Check the organization id ({self.organization_id}; --org, {ENV_ORG}): this server "
                "answers so when the key belongs to another organization. If the id is right, your "
                "role does not allow this; ask an admin.",
            )
        except QueueDeskError:
            return error
        if me.organization_id == self.organization_id:
            return error
        return WrongOrganization(
            f"{error.message.rstrip('.')}. The key belongs to organization {me.organization_id} "
            f"({me.organization!r}), not {self.organization_id}.",
            status=error.status,
            errors=error.errors,
        )

    async def _get(self, path: str, what: str, params: Mapping[str, Any] | None = None) -> Any:
        response = await self._request("GET", path, what, params=params, idempotent=True)
        return _body(response, what)

    @staticmethod
    def _parse(model: type[M], data: Any, what: str) -> M:
        try:
            return model.model_validate(data)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            raise UnexpectedResponse(
                f"{what}: the server's answer is not a {model.__name__} ({where}: {first['msg']})."
            ) from None

    def _parse_list(self, model: type[M], data: Any, what: str) -> list[M]:
        if not isinstance(data, list):
            raise UnexpectedResponse(f"{what}: the server's answer is not a list.")
        return [self._parse(model, item, what) for item in data]

    # --- who and where ----------------------------------------------------------------------------

    async def me(self) -> models.Me:
        """B1. Who the key belongs to (QueueDesk servers only)."""
        return await self._me_as("Reading /me")

    async def me_again(self) -> models.Me:
        """B1 read anew, not the answer kept from the first time: a role or account may have changed."""
        self._me = None
        return await self._me_as("Reading /me")

    async def _me_as(self, what: str) -> models.Me:
        if self._me is not None:
            return self._me
        if self._extensions is False:
            raise NotSupported(f"{what} failed: the server has no /me.")
        try:
            data = await self._get("/me", what)
        except NotFound:
            self._extensions = False
            raise NotSupported(f"{what} failed: the server has no /me.") from None
        self._me = self._parse(models.Me, data, what)
        self._extensions = self._me.server == "queuedesk"
        return self._me

    async def supports_extensions(self) -> bool:
        """True when the server speaks QueueDesk's Part B; False for a documented-interface-only server."""
        if self._extensions is None:
            try:
                await self._me_as(f"Connecting to {self.base_url}")
            except NotSupported:
                return False
        return bool(self._extensions)

    async def org(self) -> int:
        if self.organization_id is None:
            try:
                self.organization_id = (await self.me()).organization_id
            except NotSupported:
                raise NotConfigured(
                    "This server does not tell which organization the key belongs to: give the "
                    f"organization id (--org or {ENV_ORG} on the command line, organization_id in Python, "
                    "or org in the profile)."
                ) from None
        return self.organization_id

    async def _require_extensions(self, what: str) -> None:
        if not await self.supports_extensions():
            raise NotSupported(f"{what} is a QueueDesk extension.")

    async def _queues_path(self) -> str:
        # The original service answers 500 on several `/queues/...` routes; its `/workflows/...`
        # spelling works everywhere, so that is what a Part-A-only server gets.
        kind = "queues" if await self.supports_extensions() else "workflows"
        return f"/orgs/{await self.org()}/{kind}"

    async def _queue_path(self, queue_id: int) -> str:
        return f"{await self._queues_path()}/{queue_id}"

    async def _ext_queue_path(self, queue_id: int, what: str) -> str:
        await self._require_extensions(what)
        return f"/orgs/{await self.org()}/queues/{queue_id}"

    async def health(self) -> models.Health:
        """B14. Answers once the server's database answers; no key needed."""
        what = "Checking health"
        try:
            data = await self._get("/healthz", what)
        except NotFound:
            raise NotSupported(f"{what} failed: the server has no /healthz.") from None
        return self._parse(models.Health, data, what)

    # --- Part A -------------------------------------------------------------------------------------

    async def queues(self) -> list[models.Queue]:
        """A3. The organization's queues, with pending counts and who is active."""
        what = "Listing queues"
        return self._parse_list(models.Queue, await self._get(await self._queues_path(), what), what)

    async def queue(self, queue_id: int) -> models.QueueDetail:
        """A4. One queue with its description and blocks."""
        what = f"Reading queue {queue_id}"
        data = await self._get(await self._queue_path(queue_id), what)
        detail = self._parse(models.QueueDetail, _blocks_with_string_ids(data), what)
        _mark_number_ids(detail, data)
        return detail

    async def create_task(self, queue_id: int, data: Mapping[str, Any]) -> models.Task:
        """A1. Never retried: a repeated create would make a second task.

        On a server without QueueDesk's extensions (the original service) the queue must be one of
        the organization's (that server looks it up by id alone), the data must pass what that
        server is known to fail on (`original_rules`; `ValidationError` with nothing sent), and a
        failed answer says whether the task was probably saved all the same (`probably_saved`, from
        the queue's `n_tasks` before and after)."""
        what = f"Creating a task in queue {queue_id}"
        body = {"data": dict(data)}
        if await self.supports_extensions():
            path = f"{await self._queue_path(queue_id)}/tasks/create"
            response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 201))
            return self._parse(models.Task, _body(response, what), what)
        before = await self._own_queue(queue_id, what)
        await self._precheck(queue_id, data, what)
        path = f"{await self._queue_path(queue_id)}/tasks/create"
        try:
            response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 201))
        except (errors.ServerError, errors.ConnectionFailed, errors.UnexpectedResponse) as exc:
            raise await self._after_failed_create(exc, queue_id, before.n_tasks) from None
        return self._parse(models.Task, _body(response, what), what)

    async def _own_queue(self, queue_id: int, what: str) -> models.Queue:
        """The queue as the organization's list has it; NotFound when it is not the organization's."""
        for queue in await self.queues():
            if queue.id == queue_id:
                return queue
        raise NotFound(
            f"{what} failed: queue {queue_id} is not a queue of organization {await self.org()} "
            "(this server would take it even so, and put the task in another organization's queue).",
            hint="Check the queue id: `queuedesk queues` lists the organization's queues.",
        )

    async def _precheck(self, queue_id: int, data: Mapping[str, Any], what: str) -> None:
        # The blocks are read again after a while: the original's own app may change them meanwhile.
        known = self._blocks_for_checks.get(queue_id)
        if known is None or time.monotonic() - known[0] > BLOCKS_KEPT_SECONDS:
            known = (time.monotonic(), (await self.queue(queue_id)).data)
            self._blocks_for_checks[queue_id] = known
        found = original_rules.refusals(known[1], data)
        if found:
            raise errors.ValidationError(
                f"{what}: nothing was sent: " + "; ".join(map(str, found)),
                errors=[models.ErrorItem(field=f"data.{r.block_id}", message=r.message) for r in found],
                hint="",
            )

    async def _after_failed_create(self, exc: QueueDeskError, queue_id: int, n_before: int) -> QueueDeskError:
        """The create's failure, saying from the queue's count whether the task was probably saved."""
        try:
            after = await self._own_queue(queue_id, f"Counting the tasks of queue {queue_id}")
        except QueueDeskError:
            exc.probably_saved = None
            exc.hint = (
                "The task may have been saved anyway (the queue's count could not be read): look at the "
                "queue before sending it again."
            )
            return exc
        exc.probably_saved = after.n_tasks > n_before
        if exc.probably_saved:
            exc.hint = (
                f"The task was probably saved anyway: the queue holds {after.n_tasks} tasks, "
                f"{n_before} before. Do not send it again."
            )
        else:
            exc.hint = (
                f"The task was probably not saved: the queue still holds {after.n_tasks} tasks. "
                "It is safe to send it again once the server works."
            )
        return exc

    async def completed_tasks(
        self,
        queue_id: int,
        *,
        offset: int = 0,
        limit: int = 100,
        completed_by: str | None = None,
        start_date: Moment | None = None,
        end_date: Moment | None = None,
        q: str | None = None,
        order: Literal["asc", "desc"] | None = None,
        sort: CompletedSort | None = None,
    ) -> models.TaskPage:
        """A2. One page of completed tasks, newest first (`order="asc"`: oldest first; `sort` by
        another column). Dates are inclusive; a plain date is a UTC day. `q` finds text in any
        block's value, in any case.

        A server without QueueDesk's extensions takes only plain dates and no `completed_by`: there
        the client walks every page the dates allow and cuts this page from what matches, so `count`
        is exact and `next`/`previous` repeat this query (follow them through this client). `q` and
        `order` and `sort` need a QueueDesk server (`NotSupported` otherwise)."""
        _check_page(offset, limit)
        what = f"Listing completed tasks of queue {queue_id}"
        wanted = _Wanted.of(completed_by, start_date, end_date)
        path = f"{await self._queue_path(queue_id)}/tasks/completed"
        if q is not None or order is not None or sort is not None:
            await self._require_extensions(what)
            extra = {"q": q, "order": order, "sort": sort}
            return await self._completed_page(
                path, offset, limit, {**wanted.params(True, None), **extra}, what
            )
        if not wanted.any or await self._filters_on_server(wanted, what):
            return await self._completed_page(path, offset, limit, wanted.params(True, None), what)
        matching: list[models.Task] = []
        async for page in self.completed_pages(
            queue_id, completed_by=completed_by, start_date=start_date, end_date=end_date
        ):
            matching += page.tasks
        query = wanted.params(True, None)
        following = offset + limit < len(matching)
        return models.TaskPage(
            next=self._link(path, query, offset + limit, limit) if following else None,
            previous=self._link(path, query, max(0, offset - limit), limit) if offset > 0 else None,
            count=len(matching),
            tasks=matching[offset : offset + limit],
        )

    async def _filters_on_server(self, wanted: _Wanted, what: str) -> bool:
        """True when the server filters by itself; False when the client must (Part A only)."""
        if await self.supports_extensions():
            return True
        if wanted.completed_by == "me":
            raise NotSupported(
                f"{what} failed: completed_by='me' needs a QueueDesk server, this one cannot tell whose "
                "key this is; give the email address instead."
            )
        return False

    async def _completed_page(
        self, path: str, offset: int, limit: int, filters: Mapping[str, str | None], what: str
    ) -> models.TaskPage:
        params = {"offset": offset, "limit": limit, **filters}
        return self._parse(models.TaskPage, await self._get(path, what, params), what)

    def _link(self, path: str, query: Mapping[str, str | None], offset: int, limit: int) -> str:
        params = {k: v for k, v in {**query, "limit": limit, "offset": offset}.items() if v is not None}
        return str(httpx.URL(self.base_url + path, params=params))

    async def completed_pages(
        self,
        queue_id: int,
        *,
        page_size: int = 1000,
        completed_by: str | None = None,
        start_date: Moment | None = None,
        end_date: Moment | None = None,
        q: str | None = None,
    ) -> AsyncIterator[models.TaskPage]:
        """Every page of completed tasks, newest first, each task exactly once.

        The walk is bounded by the first page's newest completion, so tasks completed while paging
        stay out, and repeats that offset paging brings (when completions push the list down) are
        dropped, on every server. Where the server lacks a filter the pages carry only the matching
        tasks, and `count` is the server's (what it could filter). `q` (text in any block's value,
        as `completed_tasks`) needs a QueueDesk server (`NotSupported` otherwise)."""
        if not 1 <= page_size <= 1000:
            raise ValueError(f"page_size must be 1-1000, not {page_size}")
        what = f"Listing completed tasks of queue {queue_id}"
        wanted = _Wanted.of(completed_by, start_date, end_date)
        path = f"{await self._queue_path(queue_id)}/tasks/completed"
        if q is not None:
            await self._require_extensions(what)
        on_server = await self._filters_on_server(wanted, what)
        unseen = _Unseen()
        bound: datetime | None = None
        offset = 0
        while True:
            params = {**wanted.params(on_server, bound), "q": q}
            page = await self._completed_page(path, offset, page_size, params, what)
            stamps = [t.completed_at for t in page.tasks if t.completed_at is not None]
            if bound is None and stamps:
                bound = max(stamps)
            kept = [
                task
                for task in page.tasks
                if unseen.first_time(task)
                and (task.completed_at is None or bound is None or task.completed_at <= bound)
                and (on_server or wanted.matches(task))
            ]
            yield page.model_copy(update={"tasks": kept})
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    async def iter_completed(self, queue_id: int, **filters: Any) -> AsyncIterator[models.Task]:
        """Every completed task of the queue, newest first, fetched page by page."""
        async for page in self.completed_pages(queue_id, **filters):
            for task in page.tasks:
                yield task

    async def flush(self, queue_id: int) -> None:
        """A5. Deletes every task of the queue that is not completed."""
        path = f"{await self._queue_path(queue_id)}/flush"
        await self._request("PUT", path, f"Flushing queue {queue_id}", idempotent=True, ok=(200, 204))

    async def webhook(self, queue_id: int) -> models.Webhook:
        """A6. `target` is "" when the queue has no webhook."""
        what = f"Reading the webhook of queue {queue_id}"
        return self._parse(
            models.Webhook, await self._get(f"{await self._queue_path(queue_id)}/webhook", what), what
        )

    async def set_webhook(self, queue_id: int, target: str | None) -> None:
        """A7. `""` or None removes the webhook."""
        path = f"{await self._queue_path(queue_id)}/webhook"
        what = f"Setting the webhook of queue {queue_id}"
        await self._request(
            "PUT", path, what, json={"target": target or ""}, idempotent=True, ok=(200, 201, 204)
        )

    # --- Part B -------------------------------------------------------------------------------------

    async def pending_tasks(
        self,
        queue_id: int,
        *,
        status: list[str] | None = None,
        offset: int = 0,
        limit: int = 100,
        q: str | None = None,
        order: Literal["asc", "desc"] | None = None,
        sort: PendingSort | None = None,
    ) -> models.PendingPage:
        """B2. Tasks not completed, oldest first (`order="desc"`: newest first; `sort` by another
        column), with their assignment; `q` finds text in any block's value, in any case."""
        _check_page(offset, limit)
        what = f"Listing pending tasks of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks"
        params = {
            "offset": offset,
            "limit": limit,
            "status": ",".join(status) if status else None,
            "q": q,
            "order": order,
            "sort": sort,
        }
        return self._parse(models.PendingPage, await self._get(path, what, params), what)

    async def iter_pending(
        self, queue_id: int, *, status: list[str] | None = None, page_size: int = 1000
    ) -> AsyncIterator[models.AssignedTask]:
        offset = 0
        while True:
            page = await self.pending_tasks(queue_id, status=status, offset=offset, limit=page_size)
            for task in page.tasks:
                yield task
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    async def task(self, queue_id: int, task_id: int) -> models.AssignedTask:
        """B3. One task in any status, with its assignment."""
        what = f"Reading task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}"
        return self._parse(models.AssignedTask, await self._get(path, what), what)

    async def claim_next(self, queue_id: int, exclude: Sequence[int] = ()) -> Claim:
        """B4. The caller's live claim again, or the next claimable task, or none (with how many are held).

        With `exclude` (claiming ahead, at most 10 ids): the caller's oldest live claim not listed,
        else a new claim; `Conflict` with code `claim_limit` when the caller already holds 3."""
        what = f"Claiming work in queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/next"
        body = {"exclude": list(exclude)} if exclude else None
        response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 204))
        if response.status_code == 204:
            held = response.headers.get("X-Tasks-Held", "0")
            return Claim(None, plain_int(held) or 0)
        return Claim(self._parse(models.AssignedTask, _body(response, what), what))

    async def heartbeat(self, queue_id: int, task_id: int) -> models.Assignment:
        """B5. Extends the caller's lease (safe to retry)."""
        what = f"Extending the lease on task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/heartbeat"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.Assignment, _body(response, what), what)

    async def release(
        self, queue_id: int, task_id: int, draft: Mapping[str, Any] | None = None
    ) -> models.AssignedTask:
        """B6. Gives the task back (status `open`), optionally keeping a draft of its data."""
        what = f"Releasing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/release"
        body = None if draft is None else {"data": dict(draft)}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.AssignedTask, _body(response, what), what)

    async def complete(self, queue_id: int, task_id: int, data: Mapping[str, Any]) -> models.Task:
        """B7. Never retried blindly: a second completion is a 409 `already_completed`."""
        what = f"Completing task {task_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/complete"
        response = await self._request("POST", path, what, json={"data": dict(data)}, idempotent=False)
        return self._parse(models.Task, _body(response, what), what)

    async def import_tasks(
        self, queue_id: int, items: list[Mapping[str, Any]], source: str = "manual"
    ) -> models.ImportResult:
        """B8. All or nothing, at most 10,000 tasks and 1 MiB per call."""
        what = f"Importing {len(items)} task(s) into queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/import"
        body = {"source": source, "tasks": [{"data": dict(item)} for item in items]}
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.ImportResult, _body(response, what), what)

    # Import sessions: all or nothing over several requests. Each call may be repeated safely (the
    # session is found by its key, a chunk by its offset, a commit answers the same ids), so all retry.

    async def open_import(self, queue_id: int, key: str, source: str, total: int) -> models.ImportSession:
        """Open the queue's import session with this key, or find the one already open (or committed)."""
        what = f"Opening an import of {total} row(s) into queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports"
        body = {"key": key, "source": source, "total": total}
        response = await self._request("POST", path, what, json=body, idempotent=True)
        return self._parse(models.ImportSession, _body(response, what), what)

    async def import_session(self, queue_id: int, session_id: int) -> models.ImportSession:
        what = f"Reading import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}"
        return self._parse(models.ImportSession, await self._get(path, what), what)

    async def stage_import_chunk(
        self, queue_id: int, session_id: int, offset: int, items: Sequence[Mapping[str, Any]]
    ) -> models.ImportSession:
        """Stage rows `offset`.. of the import; rows already staged there are left as they are."""
        what = f"Staging rows {offset}-{offset + len(items) - 1} of import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/chunks"
        body = {"offset": offset, "tasks": [{"data": dict(item)} for item in items]}
        response = await self._request("POST", path, what, json=body, idempotent=True)
        return self._parse(models.ImportSession, _body(response, what), what)

    async def commit_import(self, queue_id: int, session_id: int) -> models.ImportResult:
        """Every staged row becomes a task at once; committing again answers the same ids."""
        what = f"Committing import {session_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/imports/{session_id}/commit"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.ImportResult, _body(response, what), what)

    async def remove_webhook(self, queue_id: int) -> None:
        """B9 (falls back to A7 with "" on a documented-interface-only server)."""
        if not await self.supports_extensions():
            await self.set_webhook(queue_id, "")
            return
        what = f"Removing the webhook of queue {queue_id}"
        await self._request("DELETE", f"{await self._queue_path(queue_id)}/webhook", what, idempotent=True)

    async def webhook_secret(self, queue_id: int) -> str:
        what = f"Reading the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret"
        return self._parse(models.WebhookSecret, await self._get(path, what), what).secret

    async def rotate_webhook_secret(self, queue_id: int) -> str:
        what = f"Rotating the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret/rotate"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.WebhookSecret, _body(response, what), what).secret

    async def deliveries(
        self,
        queue_id: int,
        *,
        offset: int = 0,
        limit: int = 100,
        order: Literal["asc", "desc"] | None = None,
        sort: DeliverySort | None = None,
    ) -> models.DeliveryPage:
        """B10. The webhook delivery log, newest first (`order="asc"`: oldest first; `sort` by
        another column)."""
        _check_page(offset, limit)
        what = f"Listing webhook deliveries of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries"
        params = {"offset": offset, "limit": limit, "order": order, "sort": sort}
        return self._parse(models.DeliveryPage, await self._get(path, what, params), what)

    async def delivery(self, queue_id: int, delivery_id: int) -> models.DeliveryDetail:
        what = f"Reading webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}"
        return self._parse(models.DeliveryDetail, await self._get(path, what), what)

    async def redeliver(
        self, queue_id: int, delivery_id: int, *, to_current_target: bool = False
    ) -> models.Delivery:
        """B11. Makes the delivery pending and due now; with `to_current_target`, sent to the queue's
        webhook as it is now instead of the delivery's own target (the event id stays)."""
        what = f"Redelivering webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}/redeliver"
        body = {"target": "current"} if to_current_target else None
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.Delivery, _body(response, what), what)

    async def stats(
        self, queue_id: int, *, since: datetime | None = None, bucket_minutes: int | None = None
    ) -> models.QueueStats:
        """B15. Completions per bucket since `since` (default: the server's, 8 hours in 15 minutes)."""
        what = f"Reading the stats of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/stats"
        params: dict[str, Any] = {}
        if since is not None:
            params["since"] = format_timestamp(since)
        if bucket_minutes is not None:
            params["bucket_minutes"] = bucket_minutes
        return self._parse(models.QueueStats, await self._get(path, what, params), what)

    async def test_webhook(self, queue_id: int) -> models.WebhookTestResult:
        """B16. Sends a signed `ping` to the current target now; not a delivery, never retried."""
        what = f"Testing the webhook of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/test"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.WebhookTestResult, _body(response, what), what)

    # --- review (B19; supervisors and admins, workers list the reviews of their own work) ------------

    async def supports_review(self, queue_id: int) -> bool:
        """True when the server reviews work (B19): its queues carry `review_percent`. Asked of one
        queue once per client; False on a server that speaks only the documented interface."""
        if self._review is None:
            if not await self.supports_extensions():
                self._review = False
            else:
                self._review = "review_percent" in (await self.queue(queue_id)).model_fields_set
        return self._review

    async def _review_path(self, queue_id: int, what: str) -> str:
        if not await self.supports_review(queue_id):
            raise NoReview(f"{what} failed: this server has no review (B19).")
        return f"/orgs/{await self.org()}/queues/{queue_id}"

    async def claim_review(self, queue_id: int, exclude: Sequence[int] = ()) -> ReviewClaim:
        """The caller's review claim again, or the oldest pending review, or none (with how many other
        reviewers hold). `exclude` claims ahead as B4 does; `Conflict` `claim_limit` at 3."""
        what = f"Claiming a review in queue {queue_id}"
        path = f"{await self._review_path(queue_id, what)}/reviews/next"
        body = {"exclude": list(exclude)} if exclude else None
        response = await self._request("POST", path, what, json=body, idempotent=False, ok=(200, 204))
        if response.status_code == 204:
            return ReviewClaim(None, plain_int(response.headers.get("X-Reviews-Held", "0")) or 0)
        return ReviewClaim(self._parse(models.AssignedTask, _body(response, what), what))

    async def review_heartbeat(self, queue_id: int, task_id: int) -> models.Review:
        """Extends the caller's review lease (safe to retry)."""
        what = f"Extending the review lease on task {task_id}"
        path = f"{await self._review_path(queue_id, what)}/tasks/{task_id}/review/heartbeat"
        response = await self._request("POST", path, what, idempotent=True)
        return self._parse(models.Review, _body(response, what), what)

    async def release_review(self, queue_id: int, task_id: int) -> models.AssignedTask:
        """Gives the review back: pending again, for any reviewer."""
        what = f"Releasing the review of task {task_id}"
        path = f"{await self._review_path(queue_id, what)}/tasks/{task_id}/review/release"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.AssignedTask, _body(response, what), what)

    async def give_verdict(
        self,
        queue_id: int,
        task_id: int,
        verdict: Verdict,
        *,
        data: Mapping[str, Any] | None = None,
        note: str | None = None,
    ) -> models.AssignedTask:
        """accept, correct (with the changed values in `data`) or redo a completed task. Never retried
        blindly: a second verdict is a 409 `already_reviewed`."""
        what = f"Reviewing task {task_id} ({verdict})"
        path = f"{await self._review_path(queue_id, what)}/tasks/{task_id}/review"
        body: dict[str, Any] = {"verdict": verdict}
        if data is not None:
            body["data"] = dict(data)
        if note:
            body["note"] = note
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.AssignedTask, _body(response, what), what)

    async def reviews(
        self,
        queue_id: int,
        *,
        verdict: str | None = None,
        completed_by: str | None = None,
        reviewer: str | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> models.ReviewPage:
        """Reviewed tasks, newest verdict first; `verdict` a comma list of accept, correct, redo; a
        worker passes `completed_by="me"`."""
        what = f"Listing the reviews of queue {queue_id}"
        path = f"{await self._review_path(queue_id, what)}/reviews"
        params = {
            "verdict": verdict,
            "completed_by": completed_by,
            "reviewer": reviewer,
            "offset": offset,
            "limit": limit,
        }
        return self._parse(models.ReviewPage, await self._get(path, what, params), what)

    async def iter_reviews(
        self, queue_id: int, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[models.AssignedTask]:
        """Every review matching `filters` (as `reviews`), page by page."""
        offset = 0
        while True:
            page = await self.reviews(queue_id, offset=offset, limit=page_size, **filters)
            for task in page.tasks:
                yield task
            offset += len(page.tasks)
            if not page.tasks or page.next is None:
                return

    # --- people (B17, admins) -----------------------------------------------------------------------

    async def _users_path(self, what: str) -> str:
        await self._require_extensions(what)
        return f"/orgs/{await self.org()}/users"

    async def users(self) -> list[models.User]:
        """B17. The organization's users, in id order."""
        what = "Listing users"
        return self._parse_list(models.User, await self._get(await self._users_path(what), what), what)

    async def create_user(self, email: str, name: str, role: str) -> models.User:
        """B17. Never retried: a repeated add is a 409 for the duplicate email."""
        what = f"Adding user {email}"
        body = {"email": email, "name": name, "role": role}
        response = await self._request(
            "POST", await self._users_path(what), what, json=body, idempotent=False
        )
        return self._parse(models.User, _body(response, what), what)

    async def update_user(
        self, user_id: int, *, name: str | None = None, role: str | None = None, disabled: bool | None = None
    ) -> models.User:
        """B17. Changes only what is given; demoting or disabling the last active admin is a 409
        `last_admin`."""
        what = f"Changing user {user_id}"
        body = {k: v for k, v in {"name": name, "role": role, "disabled": disabled}.items() if v is not None}
        path = f"{await self._users_path(what)}/{user_id}"
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.User, _body(response, what), what)

    async def user_keys(self, user_id: int) -> list[models.ApiKey]:
        """B17. The user's keys in force, by prefix."""
        what = f"Listing the keys of user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys"
        return self._parse_list(models.ApiKey, await self._get(path, what), what)

    async def issue_key(self, user_id: int) -> models.IssuedKey:
        """B17. The new key is in the answer only: never retried, a retry would issue a second one."""
        what = f"Issuing a key for user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.IssuedKey, _body(response, what), what)

    async def revoke_key(self, user_id: int, key_id: int) -> None:
        """B17. Refused at once by every server on the database."""
        what = f"Revoking key {key_id} of user {user_id}"
        path = f"{await self._users_path(what)}/{user_id}/keys/{key_id}"
        await self._request("DELETE", path, what, idempotent=False)  # a retry would answer 404

    # --- the audit log (B20, admins) ---------------------------------------------------------------

    async def audit(
        self,
        *,
        action: str | None = None,
        actor: str | None = None,
        queue_id: int | None = None,
        since: datetime | None = None,
        offset: int = 0,
        limit: int = 100,
        order: Literal["asc", "desc"] | None = None,
        sort: AuditSort | None = None,
    ) -> models.AuditPage:
        """B20. What people did, newest first (`order="asc"`: oldest first; `sort` by action or
        actor); filtered by action, actor's email, queue, time."""
        what = "Reading the audit log"
        await self._require_extensions(what)
        params: dict[str, Any] = {"offset": offset, "limit": limit}
        for name, value in (
            ("action", action),
            ("actor", actor),
            ("queue_id", queue_id),
            ("order", order),
            ("sort", sort),
        ):
            if value is not None:
                params[name] = value
        if since is not None:
            params["since"] = format_timestamp(since)
        path = f"/orgs/{await self.org()}/audit"
        return self._parse(models.AuditPage, await self._get(path, what, params), what)

    async def create_queue(
        self,
        name: str,
        blocks: list[Mapping[str, Any]],
        description: str = "",
        review_percent: int | None = None,
    ) -> models.QueueDetail:
        """B12; `review_percent` (B19) only when given."""
        what = f"Creating queue {name!r}"
        await self._require_extensions(what)
        body: dict[str, Any] = {"name": name, "description": description, "data": [dict(b) for b in blocks]}
        if review_percent is not None:
            body["review_percent"] = review_percent
        response = await self._request(
            "POST", f"/orgs/{await self.org()}/queues", what, json=body, idempotent=False
        )
        return self._parse(models.QueueDetail, _body(response, what), what)

    async def update_queue(
        self,
        queue_id: int,
        *,
        name: str | None = None,
        description: str | None = None,
        blocks: list[Mapping[str, Any]] | None = None,
        review_percent: int | None = None,
    ) -> models.QueueDetail:
        """B13. Changes only what is given."""
        what = f"Changing queue {queue_id}"
        path = await self._ext_queue_path(queue_id, what)
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if description is not None:
            body["description"] = description
        if blocks is not None:
            body["data"] = [dict(b) for b in blocks]
        if review_percent is not None:
            body["review_percent"] = review_percent
        response = await self._request("PATCH", path, what, json=body, idempotent=True)
        return self._parse(models.QueueDetail, _body(response, what), what)


def _maybe_json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _body(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        snippet = " ".join(response.text.split())[:120]
        raise UnexpectedResponse(
            f"{what}: the server's answer is not JSON ({snippet!r}).", status=response.status_code
        ) from None
