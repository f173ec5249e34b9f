"""What carries the client's requests and reads its answers' bodies."""

import ssl
from typing import Any

import httpx

from queuedesk.api.errors import (
    UnexpectedResponse,
)


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


def transport_for(base_url: str) -> httpx.AsyncBaseTransport | None:
    """None for https (httpx's own transport, verifying against certifi or SSL_CERT_FILE/DIR)."""
    return None if httpx.URL(base_url).scheme == "https" else _PlainHTTPTransport()


def maybe_json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def body_of(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        snippet = " ".join(response.text.split())[:120]
        raise UnexpectedResponse(
            f"{what}: the server's answer is not JSON ({snippet!r}).", status=response.status_code
        ) from None
