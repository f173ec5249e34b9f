"""httpx clients for the suite's servers, which all listen on http:// loopback.

httpx loads certifi's whole CA bundle into a new SSL context for every client it makes (≈40 ms of
CPU), which only https needs; the suite makes thousands of clients. Those made here share one
context that trusts no certificate at all: an https URL through them fails its handshake, it is
never sent unverified (as the app's own `_PlainHTTPTransport`).
"""

import ssl
from typing import Any

import httpx

NO_CERTIFICATES = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def loopback_client(base_url: str = "", **kwargs: Any) -> httpx.Client:
    """An httpx client for an http:// server of the suite's (the keyword arguments as httpx's)."""
    return httpx.Client(base_url=base_url, verify=NO_CERTIFICATES, **kwargs)
