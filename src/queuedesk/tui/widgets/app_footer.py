"""The app's footer: Textual's, compact and without the palette's hint below 100 columns.

At 80 columns Textual's footer drew the last key under "^p palette" ("f1 Ke▏^p palette"). Narrow,
the keys sit closer together and the palette's hint goes (ctrl+p still opens it; f1 lists it).
"""

from textual import events
from textual.widgets import Footer

NARROW_BELOW = 100  # columns


class AppFooter(Footer):
    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < NARROW_BELOW
        self.compact = narrow
        self.show_command_palette = not narrow
