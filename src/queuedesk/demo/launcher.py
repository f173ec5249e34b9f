"""`queuedesk demo`: the whole product in one command.

It starts the demo's service process (demo/backend.py: the embedded server on SQLite in the user's
data directory, on loopback and a free port, with the demo data, a side server for pictures and
webhooks, and the simulated colleagues), then opens the terminal app on it as the chosen role,
without reading or writing the user's profiles. Quitting the app (ctrl+q) stops the service
process, which gives back the colleagues' claims first; nothing the demo started outlives it.

A second `queuedesk demo` while one runs joins it (same server, same database; its own app), and
`--fresh` never wipes a running demo: the lock says one runs, so it joins instead and says so.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from queuedesk.demo.options import KEYS
from queuedesk.demo.state import DemoFiles, Running, running_demo
from queuedesk.service_environment import cleared

START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 15.0
PACE_VARIABLE = "QUEUEDESK_DEMO_PACE"  # scales the colleagues' pauses (tests: 0.1)


def _pace() -> float:
    try:
        return max(0.01, float(os.environ.get(PACE_VARIABLE, "1")))
    except ValueError:
        return 1.0


def keys_text(url: str) -> str:
    return f"""QueueDesk demo on {url}

  API keys:  admin       {KEYS["admin"]}
             supervisor  {KEYS["supervisor"]}
             worker      {KEYS["worker"]}

  The app:   queuedesk --url {url} --token {KEYS["worker"]}
  Try:       curl -H 'Authorization: Token {KEYS["worker"]}' {url}/orgs/1/queues
  The API document is at {url}/openapi.json."""


@dataclass
class DemoService:
    """The demo's service process, started by this command."""

    process: "subprocess.Popen[bytes]"
    url: str

    @classmethod
    def start(
        cls, files: DemoFiles, args: argparse.Namespace, *, meanwhile: Callable[[], None]
    ) -> "DemoService | Running":
        """Start the service process; `meanwhile` runs while it prepares (the app's imports)."""
        files.directory.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "queuedesk.demo.backend", "--data-dir", str(files.directory)]
        command += ["--port", str(args.port), "--pace", str(_pace())]
        command += ["--fresh"] if args.fresh else []
        command += ["--no-bots"] if args.no_bots else []
        with files.log.open("ab") as log:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,  # the terminal's ctrl+c reaches this command only; it stops the service in order
                env=cleared(
                    os.environ
                ),  # the user's QUEUEDESK_DB, _PORT... configure their own servers, not the demo's
            )
        assert process.stdout is not None
        meanwhile()
        line = _read_line(process.stdout, START_TIMEOUT_SECONDS)
        try:
            message = json.loads(line or b"{}")
        except ValueError:
            message = {}
        if "url" in message:
            return cls(process, str(message["url"]))
        process.wait(timeout=STOP_TIMEOUT_SECONDS)
        if "running" in message:
            found = message["running"]
            return Running(int(found.get("pid", 0)), str(found.get("url", "")))
        raise RuntimeError(f"the demo's server did not start (see {files.log})")

    def stop(self) -> int:
        """Stop it and wait: closing its stdin is the signal; SIGTERM, then SIGKILL, if it hangs."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                return self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                return self.process.wait()
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()


def _read_line(stream: IO[bytes], timeout: float) -> bytes:
    import selectors

    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if selector.select(timeout=deadline - time.monotonic()):
                return stream.readline()
        return b""
    finally:
        selector.close()


# What the app's first screen needs, imported while the service process prepares: the two starts
# overlap (on two cores the demo opens in about the time of the slower one).
APP_MODULES = (
    "PIL.Image",
    "textual.app",
    "queuedesk.tui.app",
    "queuedesk.tui.screens.queues",
    "httpcore",
    "anyio",
)


def preload_app() -> None:
    import contextlib
    import importlib

    for name in APP_MODULES:
        with contextlib.suppress(Exception):  # only a head start: a failure shows where it is used
            importlib.import_module(name)


def open_app(url: str, role: str) -> int:
    from queuedesk.tui.main import run_app

    args = argparse.Namespace(url=url, token=KEYS[role], org=None, profile=None, refresh=None)
    return run_app(args, save_profiles=False)


def run_demo(args: argparse.Namespace) -> int:
    files = DemoFiles.default()
    running = running_demo(files)
    if running is None and args.no_app:
        return _serve_in_foreground(files, args)
    service: DemoService | None = None
    if running is None:
        started = DemoService.start(
            files, args, meanwhile=preload_app if not (args.no_app or args.web) else _nothing
        )
        if isinstance(started, DemoService):
            service = started
        else:
            running = started
    if running is not None:
        _say_joining(running, args)
        if not running.url:
            return 1
        url = running.url
    else:
        assert service is not None
        url = service.url
    try:
        if args.no_app:
            print(keys_text(url), file=sys.stderr)
            return 0
        if args.web:
            from queuedesk.web import serve_web

            print(keys_text(url), file=sys.stderr)
            side = files.read_state().get("side_base")  # the demo's pictures, on loopback
            images = [side] if isinstance(side, str) and side else None
            return serve_web("127.0.0.1", args.web_port, demo_url=url, image_origins=images)
        return open_app(url, args.role)
    finally:
        if service is not None:
            service.stop()


def _nothing() -> None:
    pass


def _say_joining(running: Running, args: argparse.Namespace) -> None:
    if not running.url:
        print("queuedesk: a demo is starting right now; try again in a moment.", file=sys.stderr)
        return
    fresh = (
        " Its data stays as it is (--fresh never wipes a running demo); stop it first for new data."
        if args.fresh
        else ""
    )
    print(
        f"queuedesk: a demo is already running at {running.url} (process {running.pid}): joining it, "
        f"same server and database; quitting here leaves it running.{fresh}",
        file=sys.stderr,
    )


def _serve_in_foreground(files: DemoFiles, args: argparse.Namespace) -> int:
    """--no-app: today's behaviour, the service in this process until ctrl+c."""
    import asyncio

    from queuedesk.demo.backend import Options, main_async

    def announce(message: dict[str, object]) -> None:
        if "url" in message:
            print(keys_text(str(message["url"])) + "\n  Stop with Ctrl+C.", file=sys.stderr)

    options = Options(files, args.port, args.fresh, not args.no_bots, _pace())
    return asyncio.run(main_async(options, watch_stdin=False, announce=announce))
