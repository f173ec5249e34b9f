"""Images of tasks: fetched with limits, cached for the session, shown in the terminal.

- `ImageFetcher` downloads an image address (http and https only) with a size cap, a timeout and
  a check that the bytes decode as an image, through one shared httpx client. Every answer, the
  bytes or the reason they cannot be shown, is remembered for the session, so a bad image is asked
  for once. `prefetch` warms the cache while the worker is still on the previous task.
- `ImageView` shows one address: a loading line while fetching, then the picture (textual-image),
  or a placeholder that says why it cannot be shown. The address is the caption.
- `ImageScreen` shows it full screen (the work screen's `z`); `open_externally` hands the address
  to the system's viewer without waiting for it (the work screen's `o`).

The app should own one fetcher: set `app.image_fetcher = ImageFetcher()` and `await
app.image_fetcher.aclose()` when it ends. Without that, `fetcher_for` makes one per app.

Renderer: the automatic one (Kitty/TGP or Sixel where the terminal answers for them, half cells
otherwise); `QUEUEDESK_IMAGE_RENDERER=halfcell` forces half cells, which tests and snapshots use
because the automatic choice differs between a terminal, tmux and pytest's captured output.
"""

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import threading
import weakref
import webbrowser
from collections import OrderedDict
from collections.abc import Callable
from io import BytesIO
from types import ModuleType
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

import httpx
from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.api.blocks import is_http_url
from queuedesk.api.numbers import plain_int
from queuedesk.api.public_addresses import BlockedTarget, Route, checked_address, pinned
from queuedesk.tui.browser_rules import trusted_image_origin
from queuedesk.tui.settings import web_session


class _NotATerminal:
    """Stands in for stdout while textual-image is imported inside a running app (see below)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _app_running() -> bool:
    try:
        from textual._context import active_app
    except ImportError:  # pragma: no cover - a Textual without it
        return False
    return active_app.get(None) is not None


def _import_textual_image() -> tuple[ModuleType, bool]:
    """Import textual-image; also say whether it could ask the terminal what it supports.

    textual-image is imported with this module, on purpose. Importing it asks the terminal which
    graphics it supports and how large a cell is, and only works before Textual starts reading
    stdin. Measured on this machine: 0.13-0.14 s in tmux, 0.02 s when stdout is not a terminal
    (TUI-NOTES: 0.6 s once in a real terminal); paid once, at start. So the app imports this module
    (or queuedesk.tui.forms) before `App.run()`. Imported later, inside the running app, the
    terminal's answer would arrive as typed keys (seen in tmux: "[?1;2c" in the focused field), so
    then the terminal is not asked at all and pictures use half cells, which work everywhere.
    """
    if not _app_running() or "textual_image.renderable" in sys.modules:
        import textual_image.widget as widgets

        return widgets, True
    real = sys.__stdout__
    sys.__stdout__ = _NotATerminal(real)  # type: ignore[misc, assignment]
    try:
        import textual_image.widget as widgets
    finally:
        sys.__stdout__ = real  # type: ignore[misc]
    return widgets, False


image_widgets, TERMINAL_ASKED = _import_textual_image()

from textual_image._terminal import get_cell_size  # noqa: E402 - the cell size the widgets use

MIB = 1024 * 1024
MAX_IMAGE_BYTES = 10 * MIB
TIMEOUT_SECONDS = 10.0
CACHE_BYTES = 200 * MIB  # the session's images kept in memory; the least recently used go first
LARGEST_SIDE = 1600  # pixels kept after decoding: enough for Kitty/Sixel, cheap to redraw
PICTURES_KEPT = 8  # decoded images kept (the open task's, the prefetched next one's, a few more)

RENDERER_VARIABLE = "QUEUEDESK_IMAGE_RENDERER"
Renderer = Literal["auto", "halfcell"]


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
            task.add_done_callback(lambda _t: self._pending.pop(url, None))
        # Shielded: a view that goes away while waiting must not cancel a download others share.
        return await asyncio.shield(task)

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


_fetchers: "weakref.WeakKeyDictionary[Any, ImageFetcher]" = weakref.WeakKeyDictionary()


def fetcher_for(node: DOMNode) -> ImageFetcher:
    """The app's fetcher: `app.image_fetcher` when the app has one, else one made for that app."""
    app = node.app
    own = getattr(app, "image_fetcher", None)
    if isinstance(own, ImageFetcher):
        return own
    if app not in _fetchers:
        _fetchers[app] = ImageFetcher()
    return _fetchers[app]


# --- showing --------------------------------------------------------------------------------------


def image_widget_class(renderer: str | None = None) -> Callable[..., Widget]:
    """The textual-image widget for `renderer` (default: `$QUEUEDESK_IMAGE_RENDERER`, else auto)."""
    choice = (renderer or os.environ.get(RENDERER_VARIABLE) or "auto").strip().lower()
    if choice == "halfcell" or not TERMINAL_ASKED:
        return image_widgets.HalfcellImage
    return image_widgets.Image


ImageState = Literal["loading", "shown", "unavailable", "empty"]
PANE_ROWS = 12  # a picture's height beside the form


def fit_cells(pixels: tuple[int, int], columns: int, rows: int) -> tuple[int, int]:
    """The largest size in cells within `columns` x `rows` that keeps the picture's proportions."""
    cell = get_cell_size()  # pixels per cell, asked of the terminal when textual-image was imported
    pixel_width, pixel_height = max(1, pixels[0]), max(1, pixels[1])
    width_for_rows = rows * cell.height * pixel_width / pixel_height / cell.width
    if width_for_rows <= columns:
        return max(1, round(width_for_rows)), rows
    height = columns * cell.width * pixel_height / pixel_width / cell.height
    return columns, max(1, round(height))


class ImageView(Widget):
    """One image address: loading, then the picture or the reason it cannot be shown; the caption."""

    DEFAULT_CSS = """
    ImageView { height: auto; }
    ImageView > .image-note { height: auto; padding: 1 2; color: $text-muted; border: dashed $panel; }
    ImageView > .image-note.-unavailable { color: $text-warning; border: dashed $warning; }
    ImageView > .image-caption { height: auto; color: $text-muted; }
    """

    def __init__(
        self,
        url: str | None,
        *,
        fetcher: ImageFetcher | None = None,
        renderer: str | None = None,
        max_rows: int | None = PANE_ROWS,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`max_rows`: the picture's height at most (None: as high as the view, less the caption)."""
        super().__init__(id=id, classes=classes)
        self.url = url
        self.state: ImageState = "empty"
        self.reason: str | None = None
        self.max_rows = max_rows
        self._fetcher = fetcher
        self._renderer = renderer
        self._picture_size: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        # A picture already fetched (prefetched with the task) is there on the first paint.
        picture = self.fetcher.cached_picture(self.url) if self.url else None
        if picture is not None:
            yield self._picture_widget(picture)
            self.state = "shown"
        note = Static("", classes="image-note", markup=False)
        note.display = picture is None
        yield note
        yield Static(self.url or "", classes="image-caption", markup=False)

    def on_mount(self) -> None:
        if self.state != "shown":
            self.show(self.url)

    @property
    def fetcher(self) -> ImageFetcher:
        return self._fetcher or fetcher_for(self)

    def show(self, url: str | None) -> None:
        """Show `url` (None: nothing to show)."""
        self.url = url
        self.query_one(".image-caption", Static).update(url or "")
        if not url:
            self._set_note("empty", "no image")
            return
        fetcher = self.fetcher
        picture = fetcher.cached_picture(url)
        if picture is not None:
            self._swap_picture(picture)
            return
        known = fetcher.cached(url)
        if isinstance(known, ImageUnavailable):
            self._set_note("unavailable", f"Image not shown: {known.reason}", reason=known.reason)
            return
        self._set_note("loading", "Loading image…")
        self.run_worker(self._load(fetcher, url), group="image", exclusive=True)

    async def _load(self, fetcher: ImageFetcher, url: str) -> None:
        try:
            picture = await fetcher.picture(url)
        except ImageUnavailable as error:
            if url == self.url:
                self._set_note("unavailable", f"Image not shown: {error.reason}", reason=error.reason)
            return
        if url == self.url:
            await self._show_picture(picture)

    def _picture_widget(self, picture: PILImage.Image) -> Widget:
        widget = image_widget_class(self._renderer)(picture, classes="image-picture")
        self._picture_size = picture.size
        self._fit(widget)
        return widget

    def _swap_picture(self, picture: PILImage.Image) -> None:
        """Show a picture at hand at once: the widget there takes it, or a new one is mounted."""
        self.workers.cancel_group(self, "image")
        current = self.query(".image-picture")
        if current:
            widget = current.first()
            widget.image = picture  # type: ignore[attr-defined]
            self._picture_size = picture.size
            self._fit(widget)
        else:
            self.mount(self._picture_widget(picture), before=0)
        self.query_one(".image-note", Static).display = False
        self.state, self.reason = "shown", None

    async def _show_picture(self, picture: PILImage.Image) -> None:
        await self.query(".image-picture").remove()
        await self.mount(self._picture_widget(picture), before=0)
        self.query_one(".image-note", Static).display = False
        self.state, self.reason = "shown", None

    def on_resize(self) -> None:
        self.refit()

    def set_max_rows(self, rows: int | None) -> None:
        """Change the picture's largest height (e.g. when the layout around it changes)."""
        if rows != self.max_rows:
            self.max_rows = rows
            self.refit()

    def refit(self) -> None:
        for widget in self.query(".image-picture"):
            self._fit(widget)

    def _fit(self, widget: Widget) -> None:
        """Size the picture in cells: as large as the room allows, never stretched."""
        if self._picture_size is None:
            return
        rows = self.max_rows if self.max_rows is not None else max(1, self.size.height - 1)
        columns = max(1, self.content_size.width or self.size.width or 40)
        width, height = fit_cells(self._picture_size, columns, rows)
        widget.styles.width = width
        widget.styles.height = height

    def _set_note(self, state: ImageState, text: str, *, reason: str | None = None) -> None:
        self.query(".image-picture").remove()
        note = self.query_one(".image-note", Static)
        note.update(text)
        note.display = True
        note.set_class(state == "unavailable", "-unavailable")
        self.state, self.reason = state, reason


class ImageScreen(ModalScreen[None]):
    """One image over the whole screen; `escape` (or `z`) closes it, `o` opens it externally."""

    DEFAULT_CSS = """
    ImageScreen { align: center middle; background: $background 90%; }
    ImageScreen > ImageView { width: 100%; height: 1fr; padding: 0 1; align-horizontal: center; }
    ImageScreen > ImageView > .image-caption { width: auto; }
    ImageScreen > .image-keys { dock: bottom; height: 1; color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,z,q", "close", "Close", id="image.close"),
        Binding("o", "open_externally", "Open externally", id="image.open"),
    ]

    def __init__(self, url: str, *, fetcher: ImageFetcher | None = None, renderer: str | None = None) -> None:
        super().__init__()
        self.url = url
        self._fetcher = fetcher
        self._renderer = renderer

    def compose(self) -> ComposeResult:
        yield ImageView(self.url, fetcher=self._fetcher, renderer=self._renderer, max_rows=None)
        yield Static("escape close · o open in the system viewer", classes="image-keys")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_open_externally(self) -> None:
        try:
            open_externally(self.url)
        except ImageUnavailable as error:
            self.notify(error.reason, title="Cannot open the image", severity="warning")


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


def open_externally(url: str) -> None:
    """Hand an http(s) address to the system's viewer and return at once.

    Raises `ImageUnavailable` for an address that is not http(s) or when there is no viewer to ask.
    A console browser is never started: it would fight the app for the terminal. In a browser
    session (`queuedesk web`) nothing is launched at all: the program would run on the host, for
    whoever drives the page.
    """
    if web_session():
        raise ImageUnavailable("opening an address is off in the browser mode: copy it from the task instead")
    check_address(url)
    quiet: dict[str, Any] = {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
    }
    if sys.platform == "darwin":
        subprocess.Popen(["open", url], **quiet)
    elif sys.platform == "win32":
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    else:
        opener = shutil.which("xdg-open")
        if opener is None:
            raise ImageUnavailable("no system viewer (xdg-open is not installed)")
        subprocess.Popen([opener, url], start_new_session=True, **quiet)
