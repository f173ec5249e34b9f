"""One image address shown in the terminal: loading, then the picture or why it cannot be shown.

`ImageView` shows one address: a loading line while fetching, then the picture (textual-image),
or a placeholder that says why it cannot be shown. The address is the caption.

The app should own one fetcher: set `app.image_fetcher = ImageFetcher()` and `await
app.image_fetcher.aclose()` when it ends. Without that, `fetcher_for` makes one per app.

Renderer: the automatic one (Kitty/TGP or Sixel where the terminal answers for them, half cells
otherwise); `QUEUEDESK_IMAGE_RENDERER=halfcell` forces half cells, which tests and snapshots use
because the automatic choice differs between a terminal, tmux and pytest's captured output.
"""

import os
import weakref
from collections.abc import Callable
from typing import Any, Literal

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.compat.textual_image_private import get_cell_size, import_widgets
from queuedesk.tui.work.image_fetch import ImageFetcher, ImageUnavailable

image_widgets, TERMINAL_ASKED = import_widgets()  # asks the terminal when imported before the app runs

RENDERER_VARIABLE = "QUEUEDESK_IMAGE_RENDERER"
Renderer = Literal["auto", "halfcell"]


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
        retry_hint: str = "z, then r, tries again",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`max_rows`: the picture's height at most (None: as high as the view, less the caption)."""
        super().__init__(id=id, classes=classes)
        self.url = url
        self.state: ImageState = "empty"
        self.reason: str | None = None
        self.max_rows = max_rows
        self.retry_hint = retry_hint  # said after why a picture is not shown
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
            self._unavailable(known.reason)
            return
        self._set_note("loading", "Loading image…")
        self.run_worker(self._load(fetcher, url), group="image", exclusive=True)

    def retry(self) -> bool:
        """Ask the network again for a picture that could not be shown; whether there was one."""
        if self.state != "unavailable" or not self.url:
            return False
        self.fetcher.forget(self.url)
        self.show(self.url)
        return True

    def refresh_from_cache(self) -> None:
        """Show what the session knows now (a retry elsewhere may have fetched the picture)."""
        if self.state == "unavailable" and self.url and self.fetcher.cached_picture(self.url) is not None:
            self.show(self.url)

    async def _load(self, fetcher: ImageFetcher, url: str) -> None:
        try:
            picture = await fetcher.picture(url)
        except ImageUnavailable as error:
            if url == self.url:
                self._unavailable(error.reason)
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

    def _unavailable(self, reason: str) -> None:
        hint = f" ({self.retry_hint})" if self.retry_hint else ""
        self._set_note("unavailable", f"Image not shown: {reason}{hint}", reason=reason)

    def _set_note(self, state: ImageState, text: str, *, reason: str | None = None) -> None:
        self.query(".image-picture").remove()
        note = self.query_one(".image-note", Static)
        note.update(text)
        note.display = True
        note.set_class(state == "unavailable", "-unavailable")
        self.state, self.reason = state, reason
