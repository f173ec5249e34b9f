"""The floor for the app's start time: a bare Textual app that paints one line, measured the same way."""

from textual.app import App, ComposeResult
from textual.widgets import Static


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("Categorization ready")


if __name__ == "__main__":
    Bare().run()
