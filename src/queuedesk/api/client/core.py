"""The client's core: its connection, the one request path (retries, explained errors), who
the key is and where the organization's queues are."""

import asyncio
from collections.abc import Mapping
from typing import Any, Self, TypeVar

import httpx
import pydantic
from pydantic import SecretStr

from queuedesk import __version__
from queuedesk.api import models, plain_port
from queuedesk.api.client.retries import DEFAULT_RETRY, NO_RETRY, RETRY_STATUSES, RetryPolicy
from queuedesk.api.client.transport import body_of, maybe_json, transport_for
from queuedesk.api.config import ENV_URL, Connection, config_path, resolve_connection
from queuedesk.api.errors import (
    ConnectionFailed,
    Forbidden,
    NotConfigured,
    NotFound,
    NotSupported,
    PlainHTTPPort,
    QueueDeskError,
    Timeout,
    UnexpectedResponse,
    WrongAddress,
    WrongOrganization,
    error_for,
    feature_missing,
)
from queuedesk.api.setting_names import PYTHON, SettingNames

M = TypeVar("M", bound=pydantic.BaseModel)


class ClientCore:
    """Sending, reading and parsing; `me`, `org`, `health` and the paths every resource builds on."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | SecretStr | None = None,
        organization_id: int | None = None,
        *,
        profile: str | None = None,
        connection: Connection | None = None,
        timeout: float | httpx.Timeout = 30.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.AsyncBaseTransport | None = None,
        setting_names: SettingNames = PYTHON,
    ) -> None:
        """Arguments win over the environment, which wins over the profile (`profile`, else the
        configuration file's default). A ready `connection` (from `resolve_connection`) is used as it is.
        ValueError (a `ConfigError`) when no server is named or the configuration is wrong."""
        if connection is None:
            connection = resolve_connection(
                url=base_url,
                token=token,
                org=organization_id,
                profile=profile,
                given_as=setting_names.given_as,
            )
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
            transport=transport if transport is not None else transport_for(self.base_url),
            follow_redirects=False,  # also what keeps every request on the server named here
        )
        self._me: models.Me | None = None
        self._extensions: bool | None = None
        self._blocks_for_checks: dict[int, tuple[float, list[models.Block]]] = {}
        self._https = httpx.URL(self.base_url).scheme == "https"
        self._tls_answered = False
        self._review: bool | None = None
        self.setting_names = setting_names  # how messages name the url, key and organization
        self._own_queues_seen: set[tuple[int, int]] = set()  # (organization, queue) of the lists read

    async def __aenter__(self) -> Self:
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
                raise PlainHTTPPort(f"{what} failed: {exc}") from None
            except httpx.TimeoutException as exc:
                failure: QueueDeskError = Timeout(
                    f"{what} failed: no answer from {self.base_url} ({type(exc).__name__})."
                )
            except httpx.TransportError as exc:
                if self._https and plain_port.looks_like_plain_http(exc):
                    raise PlainHTTPPort(f"{what} failed: {plain_port.advice(self._http.base_url)}") from None
                failure = ConnectionFailed(
                    f"{what} failed: cannot reach {self.base_url} ({exc or type(exc).__name__})."
                )
            else:
                if response.status_code in ok:
                    return response
                if response.status_code in RETRY_STATUSES and not last and idempotent:
                    await asyncio.sleep(policy.delay(attempt, response.headers.get("Retry-After")))
                    continue
                error = error_for(response.status_code, maybe_json(response), response.text, what)
                raise self._named(await self._explained(error, path))
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

    def _named(self, error: QueueDeskError) -> QueueDeskError:
        """The error with a hint that names the setting to check as the caller names it."""
        hint = self.setting_names.hint_for(error) if "hint" not in vars(error) else None
        if hint is not None:
            error.hint = hint
        return error

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
                hint=f"Check the organization id ({self.organization_id}; {self.setting_names.org}): this server "
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
        return body_of(response, what)

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
        except NotFound as exc:
            path = httpx.URL(self.base_url).path.rstrip("/")
            if isinstance(exc, WrongAddress) and path:  # the original has no /me, but at the root
                raise self._named(
                    WrongAddress(
                        f"{what} failed: the server answered /me with a web page (404), and the address "
                        f"has a path ({path}) where the API starts at the server's root.",
                        status=exc.status,
                    )
                ) from None
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

    async def features(self) -> frozenset[str]:
        """B1's `features`: the Part B sections from B19 on that the server serves. Empty from a
        QueueDesk server older than `features` and from a server without Part B."""
        if not await self.supports_extensions():
            return frozenset()
        return frozenset((await self._me_as(f"Connecting to {self.base_url}")).features)

    async def supports(self, feature: str) -> bool:
        """Whether the server serves Part B section `feature` (e.g. "B21"), as its `/me` says."""
        return feature in await self.features()

    async def _require_feature(self, feature: str, what: str) -> None:
        """`FeatureMissing` (`NoConsensus` for B21, `NoGold` for B22), with nothing sent, when the server lacks `feature`:
        the one check every call of a section from B21 on makes first."""
        if await self.supports(feature):
            return
        if not await self.supports_extensions():
            server = "this server (the basic Task Queue API)"
        else:
            server = f"this server (QueueDesk {(await self._me_as(what)).version})"
        raise feature_missing(feature, what, server)

    async def org(self) -> int:
        if self.organization_id is None:
            try:
                self.organization_id = (await self.me()).organization_id
            except NotSupported:
                raise NotConfigured(
                    "This server does not tell which organization the key belongs to: give the "
                    f"organization id ({self.setting_names.org})."
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

    async def _queue_path(self, queue_id: int, what: str) -> str:
        """The path of one queue for a Part A call. The original service looks a queue up by its id
        alone, whatever organization the path names (it would read, change or fill another
        organization's queue): there the queue must be in the organization's own list first,
        else NotFound with nothing sent. A QueueDesk server checks this itself."""
        seen = (self.organization_id, queue_id) in self._own_queues_seen
        if not seen and not await self.supports_extensions():
            await self._own_queues(what)
            if (await self.org(), queue_id) not in self._own_queues_seen:
                raise NotFound(
                    f"{what} failed: queue {queue_id} is not a queue of organization {await self.org()}: "
                    "nothing was sent (this server looks a queue up by its id alone, and would act on "
                    "another organization's queue).",
                    hint="Check the queue id: it is not among the organization's queues.",
                )
        return f"{await self._queues_path()}/{queue_id}"

    async def _own_queues(self, what: str) -> list[models.Queue]:
        """The organization's queues (A3), each remembered as the organization's."""
        path = await self._queues_path()
        listed = self._parse_list(models.Queue, await self._get(path, what), what)
        org = await self.org()
        self._own_queues_seen.update((org, queue.id) for queue in listed)
        return listed

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
