"""The terminal app under Textual's Pilot: an app for a server and key on the manual clock, waiting
for what the app does (its workers, then a condition), and the text it paints."""

import contextlib
import time
from collections.abc import Callable
from datetime import datetime

from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support.processes import ServerProcess
from tests.support.seeds import KEYS

# `until` gives up after at least this many rounds of the app's work and this many seconds: a round
# is quick on a quiet machine, and a loaded one needs the time.
ROUNDS = 40
SECONDS = 20.0


def app_for(
    server: ServerProcess | str,
    role: str = "admin",
    *,
    token: str | None = None,
    clock: ManualClock | None = None,
    now: datetime | None = None,
    source: str = "flags",
    config_file: str = "",
    **settings: object,
) -> QueueDeskApp:
    """The app connected to `server` (or a URL) as `role` (or with `token`), on a manual clock
    (2026-11-23 09:30 UTC unless `now`); `source` is where the connection came from, as the app
    tells it; `config_file` the file it says its settings came from."""
    if clock is None:
        clock = ManualClock(now) if now is not None else ManualClock()
    url = server if isinstance(server, str) else server.url
    target = Target(url, token if token is not None else KEYS[role], None, source)
    settings_in_force = AppSettings(**settings)  # type: ignore[arg-type]
    return QueueDeskApp(target, settings=settings_in_force, clock=clock, config_file=config_file)


def screen_text(app: App[object]) -> str:
    """Every line the top screen paints now (toasts included when notifications are on)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def stop_blinking(app: App[object]) -> None:
    """The text cursors on the top screen drawn steadily: a picture taken mid-blink differs by it."""
    for widget in app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]


async def idle(app: App[object], pilot: Pilot) -> None:
    """Wait for the app's workers. One cancelled because a newer one of its exclusive group took
    its place is no failure (`wait_for_complete` raises for it); a failed one still is."""
    with contextlib.suppress(WorkerCancelled):
        await app.workers.wait_for_complete()
    await pilot.pause()


async def settle(app: App[object], pilot: Pilot, rounds: int = 3) -> None:
    """Let the app finish what it started: its workers, then the messages they posted."""
    for _ in range(rounds):
        await idle(app, pilot)


async def until(app: App[object], pilot: Pilot, condition: Callable[[], object], what: str) -> None:
    """Wait, a round of the app's work at a time, until `condition()` holds; fail naming `what`."""
    deadline = time.monotonic() + SECONDS
    rounds = 0
    while not condition():
        rounds += 1
        if rounds > ROUNDS and time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}\n--- screen ---\n{screen_text(app)}")
        await idle(app, pilot)
        if rounds > ROUNDS:  # what is awaited is outside the app (a server, a thread): give it time
            await pilot.pause(0.05)


async def settled_picture(app: App[object], pilot: Pilot) -> None:
    """Wait until what the top screen paints, and which widget has the focus, stay the same over two
    rounds of the app's work. Textual rebuilds the footer a round or more after the focus moves, and
    a pane may move the focus once its page came: a picture taken when the workers are done can
    still be one round early on a loaded machine."""
    last: tuple[str, object] | None = None
    deadline = time.monotonic() + SECONDS
    for rounds in range(1, 10 * ROUNDS):
        await settle(app, pilot, rounds=1)
        await pilot.pause(0.02)
        now = (screen_text(app), app.screen.focused)
        if now == last:
            return
        last = now
        if rounds > ROUNDS and time.monotonic() > deadline:
            break
    raise AssertionError(f"the picture never settled\n--- screen ---\n{screen_text(app)}")


async def settled_footer(app: App[object], pilot: Pilot) -> str:
    """The footer's line once painted and the same two rounds running: Textual rebuilds the footer a
    round or more after the focus or the bindings change, later still on a loaded machine (an
    assertion that a key is *not* there must not pass on a footer not yet painted)."""
    last = None
    for _ in range(ROUNDS):
        await settle(app, pilot)
        line = screen_text(app).splitlines()[-1]
        if line.strip() and line == last:
            return line
        last = line
    raise AssertionError(f"the footer never settled\n--- screen ---\n{screen_text(app)}")
