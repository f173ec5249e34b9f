"""Make screenshots/*.svg: the app's main screens on the demo data, with a fixed clock.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 120x36] [--png]

The demo data is built from its seed for a fixed moment (FIXED_NOW) in a temporary directory, the
service runs as a real `queuedesk serve` process (its stats clock set to the same moment; a server
inside this process clashed with Textual's capture of output and answered 500) beside the demo's
side server for the pictures, and the app is driven with Textual's Pilot on a ManualClock, pictures
drawn in half cells. So the pictures change only when the app or the demo data does.

A screen that shows an error — a warning or error notification, or an error in the server's log
while it was made — is not pictured: the script stops with status 1 and names it. `--png` also renders
each SVG to PNG with headless Chromium, which draws them as a browser shows the SVGs (rsvg-convert,
used when there is no Chromium, drops the space after bold text and left-aligns right-aligned
numbers).
"""

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from textual.pilot import Pilot
from textual.widgets import Input

from queuedesk.api.config import AppSettings
from queuedesk.demo import data
from queuedesk.demo.content import IMAGE_BASE_PLACEHOLDER
from queuedesk.demo.options import KEYS
from queuedesk.demo.side_server import SideServer
from queuedesk.server.store.database import run_once
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target

os.environ["QUEUEDESK_IMAGE_RENDERER"] = "halfcell"  # read when a picture is shown
FIXED_NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)

Steps = Callable[[Pilot[None]], Awaitable[None]]

# `queuedesk serve` with the stats clock at the pictures' moment: argv is the moment, then serve's options.
SERVE = """
import sys
from datetime import datetime
from queuedesk.server.routes import stats
stats.utcnow = lambda: datetime.fromisoformat(sys.argv[1])
from queuedesk.cli import main
raise SystemExit(main(["serve", *sys.argv[2:]]))
"""
SERVER_LOG_ERRORS = re.compile(r"Traceback|\b(?:ERROR|CRITICAL)\b| 500 ")


class ScreenShowsError(Exception):
    """A picture that would show an error: its name and what was said."""

    def __init__(self, name: str, said: list[str]) -> None:
        super().__init__(f"{name}: " + "; ".join(said))
        self.name = name


def errors_shown(notifications: list[tuple[str, str]], server_log: str) -> list[str]:
    """What makes a picture wrong: each warning or error notification ((severity, text) pairs) and
    each line of the server's log that reports an error."""
    said = [f"{severity}: {text}" for severity, text in notifications if severity in ("warning", "error")]
    return said + [f"server: {line}" for line in server_log.splitlines() if SERVER_LOG_ERRORS.search(line)]


def keys(*pressed: str) -> Steps:
    async def run(pilot: Pilot[None]) -> None:
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(4):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


SCREENS: list[tuple[str, str, Steps]] = [
    ("queues", "admin", keys()),
    ("work-image", "admin", keys("enter", "w")),
    ("work-choices", "admin", keys("down", "enter", "w")),
    ("work-numbers-dates", "admin", keys("down", "down", "enter", "w")),
    ("history-detail", "supervisor", keys("enter", "2", "enter")),
    ("stats", "supervisor", keys("down", "enter", "4")),
    ("review", "supervisor", keys("v")),
    ("flush", "admin", keys("F")),
    ("webhook-log", "admin", keys("down", "enter", "5")),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def steady(svg: Path, addresses: dict[str, str]) -> None:
    """What would make every run's picture differ: this run's free ports (the file shows fixed ones
    of the same length, so nothing moves) and the id Rich draws at random for the SVG's styles."""
    text = svg.read_text()
    for real, shown in addresses.items():
        text = text.replace(real.removeprefix("http://"), shown.removeprefix("http://"))
    text = re.sub(r"terminal-\d+", f"terminal-{svg.stem}", text)
    svg.write_text(text)


def shown_address(real: str, port: int) -> str:
    host, real_port = real.rsplit(":", 1)
    return f"{host}:{str(port).rjust(len(real_port), '4')}"


async def shoot(
    name: str, role: str, steps: Steps, server: "Served", side: str, out: Path, size: tuple[int, int]
) -> Path:
    url = server.url
    app = QueueDeskApp(Target(url, KEYS[role], None), settings=AppSettings(), clock=ManualClock(FIXED_NOW))
    log_before = server.log_text()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await steps(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor is on or off by the moment
        await pilot.pause(0.1)
        wrong = errors_shown(
            [(said.severity, str(said)) for said in app.said], server.log_text()[len(log_before) :]
        )
        if wrong:
            await app.action_quit()
            raise ScreenShowsError(name, wrong)
        path = out / f"{name}.svg"
        app.save_screenshot(filename=path.name, path=str(out))
        steady(path, {url: shown_address(url, 8000), side: shown_address(side, 8001)})
        await app.action_quit()  # gives back what the work screens claimed
    return path


class Served:
    """`queuedesk serve` in a process of its own, its output in a log file."""

    def __init__(self, db_url: str, directory: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = directory / "serve.log"
        options = ["--db", db_url, "--host", "127.0.0.1", "--port", str(self.port), "--db-pool-size", "1"]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SERVE, FIXED_NOW.isoformat(), *options],
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    async def ready(self, seconds: float = 60) -> None:
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(int(seconds / 0.1)):
                if self.process.poll() is not None:
                    raise RuntimeError(f"queuedesk serve exited {self.process.returncode}: {self.log_text()}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.url}/openapi.json")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise RuntimeError(f"queuedesk serve did not answer within {seconds} s: {self.log_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def make(out: Path, size: tuple[int, int], only: set[str]) -> list[Path]:
    directory = Path(tempfile.mkdtemp(prefix="qd-screenshots-"))
    db_url = f"sqlite:///{directory / 'demo.db'}"
    side = SideServer()
    await side.start()
    await run_once(db_url, data.build, FIXED_NOW)
    await run_once(db_url, data.bring_to_now, timedelta(0), IMAGE_BASE_PLACEHOLDER, side.base_url)
    server = Served(db_url, directory)
    made = []
    try:
        await server.ready()
        for name, role, steps in SCREENS:
            if only and name not in only:
                continue
            made.append(await shoot(name, role, steps, server, side.base_url, out, size))
            print(f"screenshots: {made[-1]}", file=sys.stderr)
    finally:
        server.stop()
        await side.stop()
        shutil.rmtree(directory, ignore_errors=True)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", default="screenshots", type=Path)
    parser.add_argument("--size", default="120x36")
    parser.add_argument("--png", action="store_true", help="also render each SVG to PNG (Chromium)")
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="only this picture (repeatable)"
    )
    args = parser.parse_args()
    columns, rows = (int(part) for part in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        made = asyncio.run(make(args.out, (columns, rows), set(args.only)))
    except ScreenShowsError as wrong:
        print(f"screenshots: {wrong.name}.svg not made, the screen shows an error: {wrong}", file=sys.stderr)
        raise SystemExit(1) from None
    if args.png:
        for svg in made:
            render_png(svg)


def render_png(svg: Path) -> None:
    """The SVG as a browser draws it, at its own size; rsvg-convert when there is no Chromium."""
    png = svg.with_suffix(".png")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        with contextlib.suppress(FileNotFoundError):
            subprocess.run(["rsvg-convert", "-o", str(png), str(svg)], check=True)
        return
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg.read_text(encoding="utf-8"))
    width, height = (round(float(side) + 0.5) for side in box.groups()) if box else (1482, 929)
    subprocess.run(
        [
            browser,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={png}",
            f"--window-size={width},{height}",
            svg.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
    )


if __name__ == "__main__":
    main()
