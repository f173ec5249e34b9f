"""The demo's service process: the embedded server, the side server and the colleagues, in one loop.

`queuedesk demo` starts it as a child (`python -m queuedesk.demo.backend`) and reads one JSON line
from its stdout once it serves: `{"url": ...}`, or `{"running": {...}}` when another demo holds the
lock. It stops when its stdin closes (the app ended, or the parent died: nothing is left behind
either way), on SIGTERM or SIGINT: the colleagues give back what they hold, then the server, then
the side server stop, and the lock goes. `queuedesk demo --no-app` runs the same in the foreground.
"""

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta

import uvicorn

from queuedesk.api.timestamps import utcnow
from queuedesk.demo import data
from queuedesk.demo.bots import Colleagues
from queuedesk.demo.content import IMAGE_BASE_PLACEHOLDER
from queuedesk.demo.side_server import SideServer
from queuedesk.demo.state import DemoFiles, DemoLock, running_demo
from queuedesk.server.app import create_app
from queuedesk.server.http.connections import connection_options
from queuedesk.server.settings import Settings
from queuedesk.server.store.database import run_once
from queuedesk.server.store.types import from_micros, to_micros
from queuedesk.service_defaults import DEFAULT_LEASE_SECONDS

STATE_EVERY_SECONDS = 30.0  # how often "last seen running" is written (a crash loses at most this)
log = logging.getLogger("queuedesk.demo")


@dataclass(frozen=True)
class Options:
    files: DemoFiles
    port: int = 0
    fresh: bool = False
    bots: bool = True
    pace: float = 1.0


class _QuietServer(uvicorn.Server):
    """uvicorn without its own signal handling: the demo decides the order in which things stop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def prepare(options: Options, side_base: str) -> tuple[str, bool]:
    """Build the demo database or bring it to now; what happened, for the log, and whether the
    database is new (the colleagues set up the consensus queue then)."""
    files = options.files
    if options.fresh:
        files.remove_database()
    files.directory.mkdir(parents=True, exist_ok=True)
    now = utcnow()
    if not files.db.exists():
        built = await run_once(files.db_url, data.build, now)
        await run_once(files.db_url, data.bring_to_now, timedelta(0), IMAGE_BASE_PLACEHOLDER, side_base)
        said = f"new demo data: {built.pending} pending, {built.completed} completed, {built.deliveries} deliveries"
        return said, True
    state = files.read_state()
    last_seen = state.get("last_seen")
    shift = now - from_micros(int(last_seen)) if isinstance(last_seen, int) else timedelta(0)
    old_base = str(state.get("side_base") or IMAGE_BASE_PLACEHOLDER)
    await run_once(files.db_url, data.bring_to_now, max(shift, timedelta(0)), old_base, side_base)
    return f"demo data brought forward by {shift}", False


def _bind(port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(512)
    listener.set_inheritable(False)
    return listener


async def run(options: Options, announce: Callable[[dict[str, object]], None], stop: asyncio.Event) -> int:
    lock = DemoLock(options.files)
    if not lock.take():
        running = running_demo(options.files)
        announce({"running": {"pid": running.pid, "url": running.url} if running else {}})
        return 3
    side = SideServer()
    listener: socket.socket | None = None
    try:
        await side.start()
        started = time.monotonic()
        said, first_run = await prepare(options, side.base_url)
        log.info(said)
        listener = _bind(options.port)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        settings = Settings(
            db_url=options.files.db_url,
            host="127.0.0.1",
            port=listener.getsockname()[1],
            lease_seconds=DEFAULT_LEASE_SECONDS,
            allow_private_webhooks=True,
            db_pool_size=1,
        )
        config = uvicorn.Config(
            create_app(settings),
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=3,
            **connection_options(settings),
        )
        server = _QuietServer(config)
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            if serving.done():
                return 2
            await asyncio.sleep(0.01)
        lock.announce(url)
        options.files.write_state(side_base=side.base_url, last_seen=to_micros(utcnow()))
        log.info("serving %s (ready in %.2f s)", url, time.monotonic() - started)
        colleagues = Colleagues(url, side.base_url, pace=options.pace, first_run=first_run)
        if options.bots:
            colleagues.start()
        announce({"url": url, "side": side.base_url})
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), STATE_EVERY_SECONDS)
            options.files.write_state(side_base=side.base_url, last_seen=to_micros(utcnow()))
        await colleagues.stop()  # they give back what they hold while the server still answers
        server.should_exit = True
        await serving
        log.info(
            "stopped: colleagues completed %d, reviewed %d, added %d",
            colleagues.completed,
            colleagues.reviewed,
            colleagues.created,
        )
        return 0
    finally:
        await side.stop()
        if listener is not None:
            listener.close()
        lock.release()


def _stop_on_eof(stop: asyncio.Event) -> None:
    """The parent ends (or dies) -> our stdin closes -> stop."""
    loop = asyncio.get_running_loop()

    def watch() -> None:
        with contextlib.suppress(Exception):
            while sys.stdin.buffer.read(1024):
                pass
        loop.call_soon_threadsafe(stop.set)

    import threading

    threading.Thread(target=watch, name="demo-parent-watch", daemon=True).start()


async def main_async(
    options: Options, *, watch_stdin: bool, announce: Callable[[dict[str, object]], None]
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    if watch_stdin:
        _stop_on_eof(stop)
    return await run(options, announce, stop)


def _print_line(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m queuedesk.demo.backend")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--no-bots", action="store_true")
    parser.add_argument("--pace", type=float, default=1.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from pathlib import Path

    options = Options(DemoFiles(Path(args.data_dir)), args.port, args.fresh, not args.no_bots, args.pace)
    return asyncio.run(main_async(options, watch_stdin=True, announce=_print_line))


if __name__ == "__main__":
    sys.exit(main())
