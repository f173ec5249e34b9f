"""The files of the package one key press passes through: the `enter` that submits a task on the work
screen, from the app reading the key to the submission written in the journal.

The app runs headless (Textual's test driver) against a real `queuedesk serve`; while `enter` is
handled, every call into a module of `src/queuedesk` is noted with the nearest module of the package
that led to it (a callback run later, like the one `after_keys` holds, counts as called by the module
that runs it). Two figures:

- the walk: the files on a chain of calls from the app's key handler to the journal's write (what
  `docs/architecture.md` draws as "A key, from the terminal to the journal");
- every file entered meanwhile (the walk and the side trips off it: the clock, the status line...).

    .venv/bin/python bench/key_walk.py [--json bench/results/key_walk.json]
"""

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QUEUEDESK_DATA_DIR", tempfile.mkdtemp())

import httpx

from bench import UNLIMITED
from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import KEYS, ROLES_SEED, ServerProcess

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "queuedesk"
END = "tui/work/journal.py"


def ours(frame: FrameType | None) -> str | None:
    """The package's file of `frame` (relative to src/queuedesk), or None for any other code."""
    if frame is None:
        return None
    name = frame.f_code.co_filename
    return Path(name).relative_to(PACKAGE).as_posix() if name.startswith(str(PACKAGE)) else None


HANDOVER = ("tui/base.py", "after_keys")  # where the key's decision is held until the fields have read theirs


def stack_files(frame: FrameType | None) -> list[str]:
    """The package's files on the stack under `frame`, outermost first, each once."""
    files: list[str] = []
    while frame is not None:
        file = ours(frame)
        if file is not None and file not in files:
            files.insert(0, file)
        frame = frame.f_back
    return files


class Tracer:
    """Every call into the package while the key is handled; the stacks at the handover and at the
    journal's first write."""

    def __init__(self) -> None:
        self.entered: list[str] = []  # in the order first entered
        self.handed_over: list[str] = []  # the stack as the decision waits for the fields' keys
        self.written: list[str] = []  # the stack as the journal is first entered from the outbox
        self.side_trips: dict[str, set[str]] = defaultdict(set)  # caller's file -> callees' files

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        callee = ours(frame)
        if callee is None:
            return
        if callee not in self.entered:
            self.entered.append(callee)
        if (callee, frame.f_code.co_name) == HANDOVER and not self.handed_over:
            self.handed_over = stack_files(frame)
        if callee == END and not self.written and "tui/work/outbox.py" in (stack := stack_files(frame)):
            self.written = stack
        caller = frame.f_back
        while caller is not None and ours(caller) is None:
            caller = caller.f_back
        by = ours(caller)
        if by is not None and by != callee:
            self.side_trips[by].add(callee)

    def walk(self) -> list[str]:
        """The files that carry the key: the stack that hands the decision over, then the one that
        writes it, each file once."""
        return list(dict.fromkeys([*self.handed_over, *self.written]))

    def touched(self) -> list[str]:
        """The walk and the files its files call on the way (asked and answered: the rules, the form)."""
        walk = self.walk()
        called = {callee for file in walk for callee in self.side_trips[file]}
        return [file for file in self.entered if file in walk or file in called]


async def run(server: ServerProcess) -> dict[str, Any]:
    app = QueueDeskApp(Target(server.url, KEYS["worker"], None), settings=AppSettings(), clock=ManualClock())
    tracer = Tracer()
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or not app.known_queues:
            await pilot.pause(0.01)
        app.open_work(app.known_queues[0])
        screen: Any = None
        while screen is None or screen.current is None or not screen.ready:
            await asyncio.sleep(0.01)
            screen = app.screen if hasattr(app.screen, "current") else None
        await pilot.press("1")
        await pilot.pause()
        assert app.outbox is not None
        journal = app.outbox.journal
        sys.setprofile(tracer)
        try:
            await pilot.press("enter")
            for _ in range(500):
                if journal.in_state("held"):
                    break
                await asyncio.sleep(0.01)
        finally:
            sys.setprofile(None)
        assert journal.in_state("held"), "the submission never reached the journal"
    walk, touched = tracer.walk(), tracer.touched()
    return {
        "walk_files": len(walk),
        "walk": walk,
        "touched_files": len(touched),
        "touched": touched,
        "entered_files": len(tracer.entered),
        "entered": tracer.entered,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    try:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
            items = [{"data": {"paragraph": f"report {n}"}} for n in range(5)]
            admin.post(
                "/orgs/1/queues/1/tasks/import", json={"source": "manual", "tasks": items}
            ).raise_for_status()
        result = asyncio.run(run(server))
    finally:
        server.stop()
    print(f"the walk, {result['walk_files']} files: " + " -> ".join(result["walk"]))
    print(f"with what they call, {result['touched_files']} files: " + ", ".join(result["touched"]))
    print(f"every file entered, {result['entered_files']}: " + ", ".join(result["entered"]))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
