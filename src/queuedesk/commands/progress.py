"""Progress of a long import or export on stderr.

On a terminal, a rich progress bar with the rate and the time left. Piped (cron, CI logs), a plain
line now and then, so a log shows that a long run is alive without being flooded.
"""

import sys
import time
from types import TracebackType
from typing import TextIO

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress
from rich.progress import Task as RichTask
from rich.text import Text

from queuedesk.api.terminal_text import shown
from queuedesk.commands.terminal_streams import console, terminal_of

PLAIN_INTERVAL_SECONDS = 10.0


class RateColumn(ProgressColumn):
    """`1,234 rows/s`."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: RichTask) -> Text:
        speed = task.finished_speed or task.speed
        return Text(
            f"{speed:,.0f} {self.unit}/s" if speed else f"? {self.unit}/s", style="progress.data.speed"
        )


class Progress:
    """`with Progress("Importing 'Triage'", "rows", total=10_000) as progress: progress.advance(500)`."""

    def __init__(
        self,
        label: str,
        unit: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        interval: float = PLAIN_INTERVAL_SECONDS,
    ) -> None:
        self.label, self.unit, self.total = label, unit, total
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.done = 0
        self._started = time.monotonic()
        self._last_line = self._started
        self._bar: RichProgress | None = None
        self._task_id: TaskID | None = None
        if self.stream.isatty():
            self._bar = RichProgress(
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                MofNCompleteColumn(),
                RateColumn(unit),
                TimeRemainingColumn(),
                console=console(file=terminal_of(self.stream)),
            )

    def __enter__(self) -> "Progress":
        if self._bar is not None:
            self._bar.start()
            self._task_id = self._bar.add_task(shown(self.label), total=self.total)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, count: int, total: int | None = None) -> None:
        self.done += count
        if total is not None:
            self.total = max(total, self.done)
        if self._bar is not None and self._task_id is not None:
            self._bar.update(self._task_id, completed=self.done, total=self.total)
            return
        now = time.monotonic()
        if now - self._last_line >= self.interval:
            self._last_line = now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def line(self, now: float) -> str:
        rate = self.done / max(now - self._started, 1e-9)
        if not self.total:
            return f"{self.label}: {self.done:,} {self.unit}, {rate:,.0f} {self.unit}/s"
        share = self.done * 100 // self.total
        left = (self.total - self.done) / rate if rate else 0
        return (
            f"{self.label}: {self.done:,} / {self.total:,} {self.unit} ({share}%), "
            f"{rate:,.0f} {self.unit}/s, about {left:,.0f} s left"
        )
