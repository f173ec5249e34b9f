"""One image over the whole screen (the work screen's `z`)."""

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from queuedesk.tui.terminal.system_viewer import open_externally
from queuedesk.tui.widgets.image_view import ImageView
from queuedesk.tui.work.image_fetch import ImageFetcher, ImageUnavailable


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
        Binding("r", "retry", "Try again", id="image.retry"),
    ]

    def __init__(self, url: str, *, fetcher: ImageFetcher | None = None, renderer: str | None = None) -> None:
        super().__init__()
        self.url = url
        self._fetcher = fetcher
        self._renderer = renderer

    def compose(self) -> ComposeResult:
        yield ImageView(
            self.url,
            fetcher=self._fetcher,
            renderer=self._renderer,
            max_rows=None,
            retry_hint="r tries again",
        )
        yield Static(
            "escape close · o open in the system viewer · r try again (a picture that failed)",
            classes="image-keys",
        )

    def action_close(self) -> None:
        self.dismiss(None)

    def action_retry(self) -> None:
        if not self.query_one(ImageView).retry():
            self.notify("The picture is shown: there is nothing to try again.", timeout=3)

    def action_open_externally(self) -> None:
        try:
            open_externally(self.url)
        except ImageUnavailable as error:
            self.notify(error.reason, title="Cannot open the image", severity="warning")
