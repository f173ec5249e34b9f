"""The app ends without a word from Python or asyncio about work it left behind (issue 40).

Two such words were printed as the app ended: "Task exception was never retrieved" (a shared image
download that failed once every view that asked for it had gone: `ImageFetcher`), and "coroutine
Poller._poll was never awaited" (a refresh queued as the app quit: its coroutine was made, its
worker cancelled before it started). Both are impossible by construction now; these tests record
everything asyncio reports to its exception handler and every RuntimeWarning while the app's ending
paths run, a full garbage collection included (both words are said when the object is collected),
and fail on any.
"""

import asyncio
import contextlib
import gc
import warnings
from collections.abc import Iterator

import httpx
from textual.messages import ExitApp

from queuedesk.tui.work.image_fetch import ImageFetcher, ImageUnavailable
from tests.conftest import make_queue
from tests.support.pilot import settle, until
from tests.support.processes import free_port
from tests.tui.conftest import MakeApp
from tests.tui.test_app import create, home, open_queue
from tests.tui.test_work import open_work

SIZE = (120, 40)
PHASE_SECONDS = 90.0


@contextlib.contextmanager
def left_behind() -> Iterator[list[str]]:
    """What asyncio reports to the loop's exception handler, and every RuntimeWarning, while the
    block runs and at a full collection after it: the list is filled as the block ends."""
    loop = asyncio.get_running_loop()
    said: list[str] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: said.append(f"{context.get('message')}: {context}"))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield said
            gc.collect()
            gc.collect()
        said.extend(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning))
    finally:
        loop.set_exception_handler(before)


async def test_a_refresh_cancelled_before_it_started_leaves_no_coroutine_behind(make_app: MakeApp) -> None:
    app = make_app("admin")
    with left_behind() as said:
        async with app.run_test(size=SIZE) as pilot:
            screen = await home(app, pilot)
            await settle(app, pilot)
            screen.poller.poll_now()  # queued: its worker made, not started
            screen.workers.cancel_group(screen, "poll")  # as the app's end cancels it
            await pilot.press("ctrl+q")
    assert not said, said


async def test_a_failed_download_nobody_waits_for_any_more_is_not_left_unretrieved() -> None:
    fetcher = ImageFetcher(timeout=5.0)
    url = f"http://127.0.0.1:{free_port()}/gone.png"  # nobody listens: refused at once
    with left_behind() as said:
        asking = asyncio.get_running_loop().create_task(fetcher.fetch(url))
        await asyncio.sleep(0)  # the download started
        asking.cancel()  # the view that asked went away; the download (shared, shielded) goes on
        with contextlib.suppress(asyncio.CancelledError):
            await asking
        for _ in range(500):
            if fetcher.cached(url) is not None:
                break
            await asyncio.sleep(0.01)
        del asking
        await fetcher.aclose()
    assert not said, said
    assert isinstance(fetcher.cached(url), ImageUnavailable)  # remembered for whoever asks next


async def test_quitting_from_every_kind_of_screen_leaves_nothing_behind(
    make_app: MakeApp, admin: httpx.Client, org_id: int
) -> None:
    """ctrl+q on the queue list, on a queue's screen (its live tabs refreshing) and on the work
    screen while the task's image is still being fetched (from an address nobody answers); and the
    work screen's browser tab closing."""
    queue = make_queue(admin, org_id)
    create(admin, org_id, queue, 2, photo=f"http://127.0.0.1:{free_port()}/p.png")
    with left_behind() as said:
        async with asyncio.timeout(PHASE_SECONDS):  # a phase that never ends fails by its name
            async with make_app("admin").run_test(size=SIZE) as pilot:
                await home(pilot.app, pilot)  # type: ignore[arg-type]
                await pilot.press("ctrl+q")
        app = make_app("admin")
        async with asyncio.timeout(PHASE_SECONDS):
            async with app.run_test(size=SIZE) as pilot:
                await open_queue(app, pilot, queue["id"])
                await pilot.press("4", "5")  # Stats and Webhook: refreshed live
                await settle(
                    app, pilot
                )  # the tabs' underline still moving as the app ends: Pilot waits for ever
                await pilot.press("ctrl+q")
        app = make_app("worker")
        async with asyncio.timeout(PHASE_SECONDS):
            async with app.run_test(size=SIZE) as pilot:
                await open_work(app, pilot, queue)
                await until(app, pilot, lambda: type(app.screen).__name__ == "WorkScreen", "the work screen")
                await pilot.press("ctrl+q")
                await until(app, pilot, lambda: not app.is_running or app.screen.is_modal, "quitting")
                if app.is_running:  # unsent work asks first: keep it for the next start
                    await pilot.press("k")
        app = make_app("worker")
        async with asyncio.timeout(PHASE_SECONDS):
            async with app.run_test(size=SIZE) as pilot:
                await open_work(app, pilot, queue)
                await until(app, pilot, lambda: type(app.screen).__name__ == "WorkScreen", "the work screen")
                app.post_message(ExitApp())  # a browser session's tab closed (textual-serve's `quit`)
                await until(app, pilot, lambda: not app.is_running, "the app ended")
    assert not said, said
