"""Images of tasks, fetched with limits and cached for the session; no Textual here.

`ImageFetcher` downloads an image address (http and https only) with a size cap, a timeout and a
check that the bytes decode as an image, through one shared httpx client. Every answer, the bytes
or the reason they cannot be shown, is remembered for the session, so a bad image is asked for
once. `prefetch` warms the cache while the worker is still on the previous task. Showing them:
`tui/widgets/image_view.py`; full screen: `tui/modals/image.py`; the system's viewer:
`tui/terminal/system_viewer.py`.
"""

import asyncio
import contextlib
from collections import OrderedDict
from io import BytesIO
from typing import Any
from urllib.parse import urlsplit

import httpx
from PIL import Image as PILImage

from queuedesk.api.blocks import is_http_url
from queuedesk.api.numbers import plain_int
from queuedesk.api.public_addresses import BlockedTarget, Route, checked_address, pinned
from queuedesk.tui.settings import web_session
from queuedesk.tui.terminal.browser_rules import trusted_image_origin

MIB = 1024 * 1024
MAX_IMAGE_BYTES = 10 * MIB
TIMEOUT_SECONDS = 10.0
CACHE_BYTES = 200 * MIB  # the session's images kept in memory; the least recently used go first
LARGEST_SIDE = 1600  # pixels kept after decoding: enough for Kitty/Sixel, cheap to redraw
PICTURES_KEPT = 8  # decoded images kept (the open task's, the prefetched next one's, a few more)


class ImageUnavailable(Exception):
    """An image that cannot be shown; `reason` is for people ("HTTP 404", "larger than 10 MiB")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _size_text(n_bytes: int) -> str:
    if n_bytes % MIB == 0:
        return f"{n_bytes // MIB} MiB"
    if n_bytes % 1024 == 0:
        return f"{n_bytes // 1024} KiB"
    return f"{n_bytes} bytes"


def _seconds_text(seconds: float) -> str:
    return f"{seconds:g} s"


def check_address(url: str) -> None:
    """Refuse anything but an http(s) address, before any connection is made."""
    scheme = urlsplit(url).scheme.lower() if isinstance(url, str) else ""
    if scheme not in ("http", "https"):
        raise ImageUnavailable("only http and https addresses")
    if not is_http_url(url):
        raise ImageUnavailable("not a valid address")


def decode_image(data: bytes, content_type: str = "") -> PILImage.Image:
    """The picture in `data`, fully decoded and at most `LARGEST_SIDE` pixels on a side.

    Slow for large images: call it from a thread.
    """
    try:
        with PILImage.open(BytesIO(data)) as opened:
            opened.draft("RGB", (LARGEST_SIDE, LARGEST_SIDE))  # JPEG: decode at a smaller scale
            opened.load()
            picture = opened.copy()
    except PILImage.DecompressionBombError as error:
        raise ImageUnavailable("too many pixels to show") from error
    except Exception as error:
        kind = content_type or "unknown content"
        raise ImageUnavailable(f"not an image ({kind})") from error
    picture.thumbnail((LARGEST_SIDE, LARGEST_SIDE))
    return picture


class ImageFetcher:
    """Downloads images for one session: limits, one shared client, a cache of answers."""

    def __init__(
        self,
        *,
        max_bytes: int = MAX_IMAGE_BYTES,
        timeout: float = TIMEOUT_SECONDS,
        cache_bytes: int = CACHE_BYTES,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.cache_bytes = cache_bytes
        self._client = client
        self._own_client = client is None
        self._images: OrderedDict[str, bytes] = OrderedDict()
        self._failures: dict[str, str] = {}
        self._pictures: OrderedDict[str, PILImage.Image] = OrderedDict()  # decoded, the last few
        self._pending: dict[str, asyncio.Task[bytes]] = {}
        self._background: set[asyncio.Task[Any]] = set()

    # --- the cache ------------------------------------------------------------------------------

    def cached(self, url: str) -> bytes | ImageUnavailable | None:
        """What the session already knows about `url`, without asking the network."""
        if url in self._images:
            return self._images[url]
        if url in self._failures:
            return ImageUnavailable(self._failures[url])
        return None

    def forget(self, url: str) -> None:
        """Drop what is known about `url`, so the next fetch asks again (a retry)."""
        self._images.pop(url, None)
        self._pictures.pop(url, None)
        self._failures.pop(url, None)

    def _remember(self, url: str, data: bytes, picture: PILImage.Image) -> None:
        self._images[url] = data
        self._images.move_to_end(url)
        total = sum(len(d) for d in self._images.values())
        while total > self.cache_bytes and len(self._images) > 1:
            _, dropped = self._images.popitem(last=False)
            total -= len(dropped)
        self._keep_picture(url, picture)

    def _keep_picture(self, url: str, picture: PILImage.Image) -> None:
        self._pictures[url] = picture
        self._pictures.move_to_end(url)
        while len(self._pictures) > PICTURES_KEPT:
            self._pictures.popitem(last=False)

    # --- fetching -------------------------------------------------------------------------------

    async def fetch(self, url: str) -> bytes:
        """The image at `url`; raises `ImageUnavailable` with the reason it cannot be shown."""
        known = self.cached(url)
        if isinstance(known, bytes):
            self._images.move_to_end(url)
            return known
        if isinstance(known, ImageUnavailable):
            raise known
        task = self._pending.get(url)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._download_and_remember(url))
            self._pending[url] = task
            task.add_done_callback(lambda done: self._settled(url, done))
        # Shielded: a view that goes away while waiting must not cancel a download others share.
        return await asyncio.shield(task)

    def _settled(self, url: str, task: "asyncio.Task[bytes]") -> None:
        """A download ended: no longer pending, and its failure taken here. Whoever still waits gets
        it too; but a download outlives the views that asked for it (shielded), and a failure nobody
        waited for any more was "never retrieved" (asyncio said so as the app ended). It is kept in
        the cache (`_failures`) for whoever asks next."""
        self._pending.pop(url, None)
        if not task.cancelled():
            task.exception()

    def cached_picture(self, url: str) -> PILImage.Image | None:
        """The decoded picture of `url` if it is at hand now (fetched and decoded before)."""
        picture = self._pictures.get(url)
        if picture is not None:
            self._pictures.move_to_end(url)
        return picture

    async def picture(self, url: str) -> PILImage.Image:
        """The decoded image at `url` (decoded once, off the UI thread); raises `ImageUnavailable`."""
        data = await self.fetch(url)
        picture = self._pictures.get(url)
        if picture is None:
            picture = await asyncio.to_thread(decode_image, data)
            self._keep_picture(url, picture)
        else:
            self._pictures.move_to_end(url)
        return picture

    def prefetch(self, url: str) -> None:
        """Start fetching `url` in the background (the answer lands in the cache)."""
        if self.cached(url) is not None or url in self._pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._quietly(url))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _quietly(self, url: str) -> None:
        with contextlib.suppress(ImageUnavailable):  # remembered; whoever shows it says why
            await self.fetch(url)

    async def _download_and_remember(self, url: str) -> bytes:
        try:
            data, picture = await self._download(url)
        except ImageUnavailable as error:
            self._failures[url] = error.reason
            raise
        self._remember(url, data, picture)
        return data

    async def _download(self, url: str) -> tuple[bytes, PILImage.Image]:
        check_address(url)
        try:
            async with asyncio.timeout(self.timeout):
                route = await _browser_route(url) if web_session() else Route(url)
                data, content_type = await self._read(route)
                picture = await asyncio.to_thread(decode_image, data, content_type)
        except TimeoutError as error:
            raise ImageUnavailable(f"no answer within {_seconds_text(self.timeout)}") from error
        except httpx.TimeoutException as error:
            raise ImageUnavailable(f"no answer within {_seconds_text(self.timeout)}") from error
        except httpx.UnsupportedProtocol as error:
            raise ImageUnavailable("only http and https addresses") from error
        except httpx.TooManyRedirects as error:
            raise ImageUnavailable("too many redirects") from error
        except httpx.ConnectError as error:
            host = urlsplit(url).netloc
            raise ImageUnavailable(f"could not connect to {host}") from error
        except httpx.HTTPError as error:
            raise ImageUnavailable(f"download failed ({type(error).__name__})") from error
        return data, picture

    async def _read(self, route: Route) -> tuple[bytes, str]:
        too_large = ImageUnavailable(f"larger than {_size_text(self.max_bytes)}")
        headers = {"Host": route.host_header} if route.host_header else None
        extensions = {"sni_hostname": route.sni_hostname} if route.sni_hostname else None
        request = self.client.build_request("GET", route.url, headers=headers, extensions=extensions)
        async with contextlib.aclosing(await self.client.send(request, stream=True)) as response:
            if response.is_redirect and web_session():
                raise ImageUnavailable("redirects are not followed in the browser mode")
            if not response.is_success:
                raise ImageUnavailable(f"HTTP {response.status_code}")
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            declared = response.headers.get("content-length", "")
            if (plain_int(declared) or 0) > self.max_bytes:
                raise too_large
            chunks: list[bytes] = []
            received = 0
            async for chunk in response.aiter_bytes():
                received += len(chunk)
                if received > self.max_bytes:
                    raise too_large
                chunks.append(chunk)
        return b"".join(chunks), content_type

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                # In a browser session a redirect could lead anywhere: each address must be checked.
                follow_redirects=not web_session(),
                timeout=httpx.Timeout(self.timeout),
                headers={"Accept": "image/*"},
                limits=httpx.Limits(max_connections=8, max_keepalive_connections=4),
            )
        return self._client

    async def aclose(self) -> None:
        """Stop background fetches and close the client (when this fetcher made it)."""
        for task in [*self._background, *self._pending.values()]:
            task.cancel()
        if self._client is not None and self._own_client:
            await self._client.aclose()
            self._client = None


async def _browser_route(url: str) -> Route:
    """In a browser session the serving machine fetches images for whoever drives the page: only
    from public addresses (the webhooks' guard), connecting to the address that was checked; or
    from a server the operator named (the demo's pictures)."""
    if trusted_image_origin(url):
        return Route(url)
    try:
        address = await checked_address(url)
    except BlockedTarget as refused:
        raise ImageUnavailable("not a public address (the browser mode fetches only those)") from refused
    except OSError as failed:
        raise ImageUnavailable(f"the host does not resolve ({failed})") from failed
    return pinned(url, address)
