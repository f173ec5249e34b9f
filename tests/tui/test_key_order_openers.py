"""Every key that opens a screen or dialog, typed in one burst with the dialog's dismissal and the
keys after it: the keys after the dismissal act on the screen beneath, in order (issue 40).

The keys are read from the app, not listed here: on the queue list and on a queue's screen, as an
admin against the suite's real server, every key the screen, its panes and the app offer (its
`active_bindings`) is pressed alone first; those that put another screen on top are the openers.
Each is then typed in one burst with `escape` and keys whose effect shows on the screen beneath: on
the queue list `/ u n w` (the filter takes "unw"; `u`, `n` and `w` are the list's own keys, which
open People, a new task and work), on a queue's screen `3` (its Blocks tab). Before the fix,
`F escape enter 2` on the list lost the `2` (`test_key_bursts.py`): the flush dialog's `escape`
acted only once it came back up from the dialog's name field, after the keys typed behind it had
gone into that field.
"""

import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import TabbedContent

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.base import character_of
from tests.conftest import make_queue
from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import complete, create, home, open_queue, point_at
from tests.tui.test_key_bursts import SIZE

# Not tried: they leave the app or stop it; escape is the dismissal itself; ctrl+p is Textual's own
# command palette (a screen of Textual's, which the app's key order does not reach).
NOT_TRIED = frozenset({"ctrl+q", "ctrl+c", "ctrl+z", "escape", "ctrl+p"})
LANDING_SECONDS = 10.0  # a loaded machine
Reset = Callable[[], Awaitable[None]]


def burst(app: QueueDeskApp, *keys: str) -> None:
    """Queue every key (by name) for the app at once, as the terminal driver does with a burst."""
    for key in keys:
        app.post_message(events.Key(key, character_of(key)))


def offered_keys(screen: Screen[Any]) -> list[str]:
    """The keys the screen offers now, one per binding: the screen's, its panes' and the app's (not
    the focused widget's own: a table's cursor keys, a field's)."""
    keys = []
    for key, active in screen.active_bindings.items():
        ours = type(active.node).__module__.startswith("queuedesk.") or active.node is screen.app
        switches_tab = active.binding.action.startswith("tab(")  # a screen's tabs open no screen
        if (
            active.enabled
            and ours
            and active.node is not screen.focused
            and key not in NOT_TRIED
            and not switches_tab
        ):
            keys.append(key.split(",")[0])
    return keys


def pushed_screens(app: QueueDeskApp) -> list[str]:
    """The class names of the screens the app pushes from now on (the list grows as it runs)."""
    pushed: list[str] = []
    push = app.push_screen

    def recording(screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed.append(type(screen).__name__ if isinstance(screen, Screen) else str(screen))
        return push(screen, *args, **kwargs)

    app.push_screen = recording  # type: ignore[method-assign]
    return pushed


async def back_to(app: QueueDeskApp, pilot: Pilot[Any], start: Screen[Any]) -> None:
    """The screens above `start` closed, by escape (a dialog's own way), else from outside."""
    while app.screen is not start and start in app.screen_stack:
        top = app.screen
        await pilot.press("escape")
        await until(app, pilot, lambda: app.screen is not top or top.is_mounted, "the top screen is up")  # noqa: B023
        if app.screen is top:
            await pilot.press("escape")  # once more: the first left a field
        if app.screen is top:
            app.pop_screen()
        await pilot.pause()


async def openers(app: QueueDeskApp, pilot: Pilot[Any], start: Screen[Any], reset: Reset) -> dict[str, str]:
    """Each key the start screen offers that puts another screen on top, pressed alone: key → that
    screen's class name (a screen opens as its key is read: no waiting for what it loads)."""
    found: dict[str, str] = {}
    await reset()
    for key in offered_keys(start):
        await reset()
        if key not in offered_keys(start):
            continue  # another key's effect turned it off (a pause, a tab)
        await pilot.press(key)
        if app.screen is not start and start in app.screen_stack:
            found[key] = type(app.screen).__name__
    await reset()
    return found


async def bursts(
    app: QueueDeskApp,
    pilot: Pilot[Any],
    start: Screen[Any],
    found: dict[str, str],
    after: list[str],
    landed: Callable[[], bool],
    reset: Reset,
) -> list[str]:
    """Each opener typed in one burst with the keys `after` it: what went wrong, per key (the screen
    it opens not opened first, or the keys after it not landing on `start` as typed)."""
    pushed = pushed_screens(app)
    wrong = []
    for key, opened in sorted(found.items()):
        pushed.clear()
        burst(app, key, *after)
        deadline = time.monotonic() + LANDING_SECONDS
        while not landed() and time.monotonic() < deadline:
            await pilot.pause(0.02)
        await pilot.pause()  # a key that acted late shows now
        if pushed[:1] != [opened] or not landed() or app.screen is not start:
            typed = " ".join([key, *after])
            wrong.append(f"{typed}: pushed {pushed}, top {app.screen}\n{screen_text(app)}")
        await reset()
    return wrong


async def test_keys_after_a_dialogs_escape_reach_the_queue_list_in_order(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        start = await home(app, pilot)
        await until(app, pilot, lambda: str(queue["id"]) in start.table.rows, "the queue is listed")

        async def reset() -> None:
            await back_to(app, pilot, start)
            start.action_clear_filter()
            if start.poller.paused:
                start.poller.toggle_pause()
            point_at(start, queue["id"])
            start.table.focus()
            await pilot.pause()

        found = await openers(app, pilot, start, reset)
        # What the list offers an admin: work, review, a new task, the flush guard, a new queue, the
        # queue editor, the queue, People, the keys; too few found means the walk is broken.
        assert {"w", "v", "n", "F", "N", "E", "enter", "u", "f1"} <= set(found), found
        wrong = await bursts(
            app,
            pilot,
            start,
            found,
            ["escape", "slash", "u", "n", "w"],
            lambda: start.view.filter == "unw",
            reset,
        )
        assert not wrong, "\n".join(wrong)


async def test_keys_after_a_dialogs_escape_reach_the_queue_screen_in_order(
    make_app: MakeApp, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    queue = make_queue(admin, org_id)
    create(admin, org_id, queue, 2)
    complete(worker, org_id, queue)  # something to export (X) and to open (enter)
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        start = await open_queue(app, pilot, queue["id"])
        tabs = start.query_one(TabbedContent)

        async def reset() -> None:
            await back_to(app, pilot, start)
            start.action_tab("tab-completed")  # where export (X) and go to (g) are offered
            await pilot.pause()

        found = await openers(app, pilot, start, reset)
        assert {"w", "n", "F", "E", "g", "X", "enter", "f1"} <= set(found), found
        wrong = await bursts(
            app, pilot, start, found, ["escape", "3"], lambda: tabs.active == "tab-blocks", reset
        )
        assert not wrong, "\n".join(wrong)
