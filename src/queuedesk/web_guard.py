"""`queuedesk web`'s gate in front of textual-serve: who may start an app process, and how many run.

textual-serve starts an app process for every WebSocket to `/ws`, from any page, for anyone. Here a
WebSocket is refused (403, before any process starts) unless its `Origin` is the page's own and it
carries the cookie the page set once its secret was given: the per-start key in the address
`queuedesk web` prints, or the `--password` typed on the sign-in page. The cookie is a random token
of that sign-in, never the secret, and wrong secrets are limited per client (web_sign_in.py). At
most `max_sessions` run at once; beyond that the page says so (503) and further WebSockets are
refused.
"""

import hmac
import html
import ipaddress
import math
import secrets
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

from queuedesk.web_sign_in import GuessLimit, SessionTokens

COOKIE = "queuedesk_web"
DEFAULT_MAX_SESSIONS = 8
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>QueueDesk</title>
<style>body{{font-family:sans-serif;max-width:36em;margin:4em auto;line-height:1.5}}</style></head>
<body><h1>QueueDesk</h1>{body}</body></html>"""
SIGN_IN = """<p>{message}</p><form method="post" action="/sign-in">
<label>Password <input type="password" name="password" autofocus></label> <button>Open</button></form>"""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def page_origins(host: str, port: int, public_url: str | None) -> set[str]:
    """The origins the page is served from: the public address, or this listener's own (under each
    name loopback goes by, when it listens there)."""
    if public_url:
        return {origin_of(public_url)}
    shown = f"[{host}]" if ":" in host else host
    names = LOOPBACK_NAMES if shown in LOOPBACK_NAMES else (shown,)
    return {f"http://{name}:{port}".lower() for name in names}


class GuardedServer(Server):
    """textual-serve's server behind a secret, an origin check and a cap on sessions."""

    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        public_url: str | None,
        secret: str,
        password_given: bool,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        super().__init__(command, host=host, port=port, title="QueueDesk", public_url=public_url)
        self.secret = secret
        self.password_given = password_given
        self.max_sessions = max_sessions
        self.origins = page_origins(host, port, public_url)
        self.sessions = 0
        self.tokens = SessionTokens()
        self.guesses = GuessLimit()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.router.add_post("/sign-in", self.handle_sign_in)
        return app

    def _signed_in(self, request: web.Request) -> bool:
        return self.tokens.valid(request.cookies.get(COOKIE))

    def _client(self, request: web.Request) -> str:
        """Who is guessing: the peer, or behind a reverse proxy on this machine (a public address
        given), the address the proxy last added to `X-Forwarded-For`."""
        peer = request.remote or ""
        forwarded = request.headers.get("X-Forwarded-For", "").rpartition(",")[2].strip()
        if self.public_url and forwarded and _is_loopback(peer):
            return forwarded
        return peer

    def _too_many_guesses(self, request: web.Request) -> web.Response | None:
        wait = self.guesses.wait(self._client(request))
        if wait <= 0:
            return None
        seconds = math.ceil(wait)
        answer = self._page(429, f"<p>Too many wrong tries from here: try again in {seconds} s.</p>")
        answer.headers["Retry-After"] = str(seconds)
        return answer

    def _page(self, status: int, body: str) -> web.Response:
        return web.Response(status=status, text=PAGE.format(body=body), content_type="text/html")

    def _sign_in_page(self, status: int, message: str) -> web.Response:
        return self._page(status, SIGN_IN.format(message=html.escape(message)))

    def _full(self) -> web.Response:
        return self._page(
            503,
            f"<p>All {self.max_sessions} sessions of this QueueDesk are in use. "
            "Try again in a while, or ask whoever runs it for more (<code>--max-sessions</code>).</p>",
        )

    def _signed_in_redirect(self) -> web.HTTPSeeOther:
        """Back to the page, with the cookie that signs this browser in."""
        redirect = web.HTTPSeeOther("/")
        secure = (self.public_url or "").startswith("https:")
        redirect.set_cookie(
            COOKIE, self.tokens.new(), httponly=True, samesite="Strict", secure=secure, path="/"
        )
        return redirect

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        given = request.query.get("key")
        if given is not None:
            refused = self._too_many_guesses(request)
            if refused is not None:
                return refused
            if hmac.compare_digest(given.encode(), self.secret.encode()):
                self.guesses.right(self._client(request))
                # Keep the key out of the address bar and history: the cookie stands for it from here.
                raise self._signed_in_redirect()
            self.guesses.wrong(self._client(request))
        if not self._signed_in(request):
            if self.password_given:
                return self._sign_in_page(401, "This QueueDesk asks for its password.")
            return self._page(
                401,
                "<p>Open the address <code>queuedesk web</code> printed when it started: it carries "
                "this run's key.</p>",
            )
        if self.sessions >= self.max_sessions:
            return self._full()
        return await super().handle_index(request)

    async def handle_sign_in(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Origin", "").lower() not in self.origins:
            return self._page(403, "<p>Sign in from this QueueDesk's own page.</p>")
        refused = self._too_many_guesses(request)
        if refused is not None:
            return refused  # not even checked: the right password waits too
        form = await request.post()
        password = form.get("password")
        if not self.password_given or not isinstance(password, str):
            return self._sign_in_page(400, "Give the password.")
        if not hmac.compare_digest(password.encode(), self.secret.encode()):
            self.guesses.wrong(self._client(request))
            return self._sign_in_page(401, "That is not the password.")
        self.guesses.right(self._client(request))
        raise self._signed_in_redirect()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Refused before any app process starts: another page's origin, no secret, or no room."""
        origin = request.headers.get("Origin", "").lower()
        if origin not in self.origins:
            raise web.HTTPForbidden(text="This WebSocket is only for QueueDesk's own page.")
        if not self._signed_in(request):
            raise web.HTTPForbidden(text="Open the page with its key (or password) first.")
        if self.sessions >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text=f"All {self.max_sessions} sessions are in use.")
        self.sessions += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions -= 1


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def new_secret() -> str:
    return secrets.token_urlsafe(24)
