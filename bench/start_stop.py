"""Start `queuedesk` (or the bare app) as a user would, and end the process at a chosen point.

    python bench/start_stop.py app run      # ends when App.run is called: imports and configuration
    python bench/start_stop.py app paint    # ends once a frame showing the queue list's rows is written
    python bench/start_stop.py bare paint   # bench/bare_app.py, ended at its first painted frame

Used by bench/tui_start_instructions.py, which runs it under valgrind to count the instructions a
start executes; the count does not move with the machine's speed or load, which the clock does.
"""

import os
import sys
from pathlib import Path
from typing import Any

import textual.app


def end_at_run() -> None:
    def run(self: textual.app.App[Any], *args: Any, **kwargs: Any) -> None:
        os._exit(0)

    textual.app.App.run = run  # type: ignore[method-assign]


def end_at_paint(painted: Any) -> None:
    display = textual.app.App._display

    def display_then_check(self: textual.app.App[Any], screen: Any, renderable: Any) -> None:
        display(self, screen, renderable)
        if renderable is not None and painted(screen):
            os._exit(0)

    textual.app.App._display = display_then_check  # type: ignore[method-assign]


def main() -> None:
    program, point = sys.argv[1], sys.argv[2]
    if point == "run":
        end_at_run()
    elif program == "app":
        end_at_paint(lambda screen: type(screen).__name__ == "QueuesScreen" and screen.loaded)
    else:
        end_at_paint(lambda screen: bool(screen.query("Static")))
    if program == "bare":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from bench.bare_app import Bare

        Bare().run()
    else:
        import gc

        # The app turns the collector on 2 s after mounting; under valgrind that comes before the
        # paint, and a user's start never has it.
        gc.enable = lambda: None
        from queuedesk.cli import main as queuedesk

        sys.argv = ["queuedesk"]
        queuedesk()


if __name__ == "__main__":
    main()
