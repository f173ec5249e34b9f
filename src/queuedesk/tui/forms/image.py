"""`image` blocks: the picture (its address as caption) in the work screen; an address to type when
creating a task."""

from typing import ClassVar

from textual.widget import Widget

from queuedesk.tui.forms.link import LinkEditor
from queuedesk.tui.widgets.image_view import ImageView


class ImageEditor(LinkEditor):
    DEFAULT_PLACEHOLDER: ClassVar[str] = "https://…/picture.png"
    HINT: ClassVar[str] = "image address · esc leaves field"

    def read_only_view(self) -> Widget:
        return ImageView(self.url, classes="editor-value -image")

    def show_text(self) -> None:
        if self.editable:
            super().show_text()
        else:
            self.query_one(ImageView).show(self.url)

    @property
    def url(self) -> str | None:
        """The image's address, if any (for `z` full screen and `o` open externally)."""
        return self._text.strip() or None
