"""Completions per bucket as a sparkline, with its scale on the left and the time under it.

The Stats tab shows it anew on every live refresh (every 5 s, or every 0.2 s in the memory bench):
only what changed is put in, so an unchanged chart is not laid out and painted again each time.
"""

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Sparkline, Static

SCALE_WIDTH = 6


class CompletionsChart(Vertical):
    DEFAULT_CSS = f"""
    CompletionsChart {{ height: auto; }}
    CompletionsChart > Horizontal {{ height: 20vh; min-height: 3; max-height: 10; }}
    CompletionsChart #chart-scale {{ width: {SCALE_WIDTH}; height: 100%; color: $text-muted; }}
    CompletionsChart Sparkline {{ height: 100%; }}
    CompletionsChart #chart-axis {{ height: 1; color: $text-muted; padding-left: {SCALE_WIDTH}; }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.counts: list[int] = []
        self.labels: tuple[str, str, str] = ("", "", "")

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("", id="chart-scale")
            yield Sparkline([], id="chart-bars")
        yield Static("", id="chart-axis")

    def show(self, counts: Sequence[int], labels: tuple[str, str, str]) -> None:
        """`labels`: under the first bar, the middle one and the last one."""
        self.counts, self.labels = list(counts), labels
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        bars = self.query_one(Sparkline)
        counts = self.counts
        room = max(1, self.size.width - SCALE_WIDTH)
        per = max(1, room // len(counts)) if counts else 1
        width = per * len(counts) if counts else room
        bars.styles.width = width
        # Every bar `per` cells wide (the Sparkline splits its data into one part per cell), and a
        # zero beside each value: the Sparkline measures bars from the smallest value it is given,
        # and a bucket with 2 completions must not look empty because no bucket had fewer.
        bars.data = [x for count in counts for _ in range(per) for x in (count, 0)]
        height = max(1, self.query_one(Horizontal).size.height or 3)
        top = max(counts, default=0)
        top_label = f"{top:>{SCALE_WIDTH - 1}}" if top else ""  # an empty period: one 0, at the foot
        scale = [top_label] + [""] * max(0, height - 2) + [f"{0:>{SCALE_WIDTH - 1}}"]
        update_if_changed(self.query_one("#chart-scale", Static), "\n".join(scale[:height]))
        update_if_changed(self.query_one("#chart-axis", Static), _axis(self.labels, width))


def update_if_changed(static: Static, content: str | Text) -> None:
    """`static.update(content)` unless it shows that already: an update lays the screen out and paints
    it again even when nothing changed, and each paint leaves cyclic garbage (strips that cache
    themselves) for the collector."""
    shown = static.content
    if isinstance(shown, Text) and isinstance(content, Text):
        same = shown == content and shown.style == content.style  # Text's == compares text and spans
    else:
        same = type(shown) is str and type(content) is str and shown == content
    if not same:
        static.update(content)


def _axis(labels: tuple[str, str, str], width: int) -> Text:
    first, middle, last = labels
    line = [" "] * max(width, len(first) + len(middle) + len(last) + 2)
    line[: len(first)] = first
    start = max(len(first) + 1, (width - len(middle)) // 2)
    if start + len(middle) < width - len(last):
        line[start : start + len(middle)] = middle
    line[width - len(last) : width] = last
    return Text("".join(line).rstrip())
