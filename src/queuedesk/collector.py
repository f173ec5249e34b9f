"""The garbage collector's tuning, all of it: off while a command starts, the app's start frozen and
the collector back 2 s after its first screen, the service's start frozen with a larger youngest
generation, an export's modules frozen.

Each process makes a few hundred thousand long-lived objects as it starts (modules, classes,
pydantic's schemas, routes) and next to no garbage, yet the collector walks them over and over.
"""

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Seconds after the app is mounted until the collector runs again: past the first painted queue list
# at any reasonable load (0.1-0.4 s after mounting), and the start makes next to no garbage.
APP_COLLECTOR_OFF_AT_START = 2.0
SERVICE_YOUNGEST = 20_000  # allocations between collections of the youngest generation (default: 700)
SERVICE_OLDER = 50


@contextmanager
def off_while_starting() -> Iterator[None]:
    """`queuedesk`'s start: the collector went over the start's objects some 150 times, ≈70 ms of
    the app's start. Off until the command runs (`on_for_a_command`), or, for the app, until its
    first screen is up (`app_started`)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def on_for_a_command() -> None:
    gc.enable()


def freeze_the_apps_start() -> None:
    """What the app's start made lives as long as the app: out of the collector's way. The first
    screen's styles and widgets are as long-lived, and it went over them ≈25 times (6-16 ms)."""
    gc.freeze()


def app_mounted(set_timer: Callable[[float, Callable[[], None]], object]) -> None:
    """The collector back on a while after the app's first screen (when `queuedesk` turned it off)."""
    if not gc.isenabled():
        set_timer(APP_COLLECTOR_OFF_AT_START, gc.enable)


def settle_for_serving() -> None:
    """Everything made at the service's start (modules, routes, the schema) lives as long as the
    process: frozen, the collector stops walking it over and over; a larger youngest generation
    means a collection every few hundred requests rather than every few. Together ≈7% of a task
    creation's time."""
    gc.freeze()
    gc.set_threshold(SERVICE_YOUNGEST, SERVICE_OLDER, SERVICE_OLDER)


def freeze_before_export() -> None:
    """httpx keeps each response in a reference cycle (response <-> stream), so a page's body (about
    1 MB) goes only when the collector makes a full pass, which it puts off while the oldest
    generation holds every imported module: 20,000 tasks kept up to 14 MB of bodies alive, or none,
    depending on which modules happened to load. Frozen, the modules are out of its count."""
    gc.freeze()
