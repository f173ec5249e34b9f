"""Which connections a client's transport makes: https is verified, an http:// client stays on http.

A client to an http:// server skips httpx's CA bundle (a start-up cost); these tests hold that
https still gets full verification and that nothing reaches https through an http:// client.
The https side is the suite's real `queuedesk serve` behind a TLS terminator on loopback, with a
self-signed certificate made by the openssl command line.
"""

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient, RetryPolicy
from queuedesk.api.errors import ConnectionFailed, QueueDeskError
from tests.support import KEYS, ServerProcess, free_port
from tests.tcp_proxy import pipe

ONE_TRY = RetryPolicy(attempts=1)


@pytest.fixture(autouse=True)
def own_settings(monkeypatch, tmp_path) -> None:
    for name in ("URL", "TOKEN", "ORG", "PROFILE"):
        monkeypatch.delenv(f"QUEUEDESK_{name}", raising=False)
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(tmp_path / "config.toml"))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a certificate")
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    elliptic = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]  # quick to make
    for_loopback = ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            *elliptic,
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            *for_loopback,
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return cert, key


class TlsTerminator:
    """https://127.0.0.1:port in front of an http server: TLS here, bytes passed on as they are."""

    def __init__(self, upstream_port: int, certificate: tuple[Path, Path]) -> None:
        self.upstream_port = upstream_port
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(*certificate)
        self.port = free_port()
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        try:
            client = self.context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):  # the other side refused the certificate
            raw.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=pipe, args=(source, target), daemon=True).start()

    def stop(self) -> None:
        self._listener.close()


@pytest.fixture
def tls(server: ServerProcess, certificate: tuple[Path, Path]) -> Iterator[TlsTerminator]:
    terminator = TlsTerminator(server.port, certificate)
    yield terminator
    terminator.stop()


async def test_an_https_client_refuses_a_self_signed_server(tls: TlsTerminator) -> None:
    async with QueueDeskClient(tls.url, KEYS["admin"], retry=ONE_TRY) as client:
        with pytest.raises(ConnectionFailed) as caught:
            await client.me()
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)
    assert tls.connections == 1


async def test_an_https_client_reaches_the_server_once_its_certificate_is_trusted(
    tls: TlsTerminator, certificate: tuple[Path, Path], monkeypatch
) -> None:
    """The same server through the same terminator works when the certificate is trusted (httpx
    reads SSL_CERT_FILE), so the refusal above is the verification's."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    async with QueueDeskClient(tls.url, KEYS["admin"], retry=ONE_TRY) as client:
        me = await client.me()
    assert me.role == "admin"


async def test_an_http_client_sends_nothing_to_https(server: ServerProcess, tls: TlsTerminator) -> None:
    async with QueueDeskClient(server.url, KEYS["admin"], retry=ONE_TRY) as client:
        assert (await client.me()).role == "admin"
        with pytest.raises(httpx.UnsupportedProtocol):
            await client._http.get(f"{tls.url}/me")
    assert tls.connections == 0


async def test_an_http_client_does_not_follow_a_redirect_to_https(tls: TlsTerminator) -> None:
    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(308)
            self.send_header("Location", f"{tls.url}{self.path}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    redirecting = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=redirecting.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{redirecting.server_address[1]}"
        async with QueueDeskClient(url, KEYS["admin"], organization_id=1, retry=ONE_TRY) as client:
            with pytest.raises(QueueDeskError):
                await client.queues()
    finally:
        redirecting.shutdown()
        redirecting.server_close()
    assert tls.connections == 0
