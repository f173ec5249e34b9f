"""A typing fuzzer for the work screen: the installed `queuedesk` in tmux against a real server, keys
typed as generated sequences at 5-200 ms a key while the app is stopped at random (SIGSTOP/SIGCONT
of its process), and what the server recorded checked against what each sequence meant.

Every task carries a marker (`FUZZ-00042`) the fuzzer waits for on screen before it types for that
task, so it knows which task its keys are for. Sequences mix every editor of the work form (a
selection, a multiple selection, yes/no, a number, text typed or pasted, a date, an email) with
`tab`/`shift+tab`, `escape` out of a text field, `enter`, a double `enter`, skip, and undo (with
keys typed on the next task, which undo must keep as its draft). Some decisions are deliberate
bursts: the app is stopped, the submitting key and keys for the next task are typed, the app goes
on; those keys must be refused and named ("was not applied"), never applied.

Results are written as they come (one JSON line per task checked, then a summary line), so a cut
run still counts:

    .venv/bin/python bench/typing_fuzz.py --tasks 1000 --out bench/results/typing_fuzz.jsonl
"""

import argparse
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from tests.support import KEYS, ROLES_SEED, ServerProcess

QUEUEDESK = Path(sys.executable).parent / "queuedesk"
OPTIONS = [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}, {"id": "green", "name": "Green"}]
BLOCKS: list[dict[str, Any]] = [
    {"id": "marker", "name": "Marker", "type": "text", "text": {"read_only": True}},
    {"id": "kind", "name": "Kind", "type": "single_selection", "single_selection": {"options": OPTIONS}},
    {"id": "tags", "name": "Tags", "type": "multiple_selection", "multiple_selection": {"options": OPTIONS}},
    {"id": "ok", "name": "OK", "type": "binary"},
    {"id": "count", "name": "Count", "type": "number"},
    {"id": "note", "name": "Note", "type": "text"},
    {"id": "when", "name": "When", "type": "date"},
    {"id": "mail", "name": "Mail", "type": "email"},
]
FIELDS = ["kind", "tags", "ok", "count", "note", "when", "mail"]
TEXT_FIELDS = {"count", "note", "when", "mail"}  # one-line fields: letters are text there
MARKER = re.compile(r"FUZZ-(\d{5})")
# Letters that are keys of the screen elsewhere (skip, undo, image, yes/no) and digits: text here.
TEXT_ALPHABET = "sunozyabcdefgh 1234"
REACTION_SECONDS = 0.06
TMUX_NAMES = {"enter": "Enter", "tab": "Tab", "shift+tab": "BTab", "escape": "Escape", "f6": "F6", "f7": "F7"}


# --- what a sequence means ---------------------------------------------------------------------


@dataclass
class Form:
    """What the worker has entered on one task, as the app should hold it."""

    kind: str | None = None
    tags: set[str] = field(default_factory=set)
    ok: bool | None = None
    texts: dict[str, str] = field(default_factory=lambda: dict.fromkeys(TEXT_FIELDS, ""))

    def expected(self) -> dict[str, Any]:
        count = self.texts["count"].strip()
        note = self.texts["note"]
        return {
            "kind": self.kind,
            "tags": [o["id"] for o in OPTIONS if o["id"] in self.tags] or None,
            "ok": self.ok,
            "count": int(count) if count else None,
            "note": note if note.strip() else None,
            "when": self.texts["when"].strip() or None,
            "mail": self.texts["mail"].strip() or None,
        }


@dataclass
class Typing:
    """Keys for one task and what they do to its form; `focus` is the index in FIELDS."""

    rng: random.Random
    form: Form
    focus: int = 0
    keys: list[tuple[str, str]] = field(default_factory=list)  # (how: key/text/paste, what)

    def key(self, name: str) -> None:
        self.keys.append(("key", name))

    def edit(self) -> None:
        name = FIELDS[self.focus]
        rng = self.rng
        if name == "kind":
            digit = rng.choice("123")
            self.key(digit)
            self.form.kind = OPTIONS[int(digit) - 1]["id"]
        elif name == "tags":
            digit = rng.choice("123")
            self.key(digit)
            self.form.tags ^= {OPTIONS[int(digit) - 1]["id"]}
        elif name == "ok":
            letter = rng.choice("yn")
            self.key(letter)
            self.form.ok = letter == "y"
        elif name == "count":
            digits = str(rng.randint(0, 99)) if not self.form.texts["count"] else str(rng.randint(0, 9))
            self.keys.append(("text", digits))
            self.form.texts["count"] += digits
        elif name == "note":
            words = "".join(rng.choice(TEXT_ALPHABET) for _ in range(rng.randint(1, 8)))
            self.keys.append(("paste" if rng.random() < 0.3 else "text", words))
            self.form.texts["note"] += words
        elif name == "when" and not self.form.texts["when"]:
            day = f"2026-11-{rng.randint(10, 28)}"
            self.keys.append(("text", day))
            self.form.texts["when"] = day
        elif name == "mail" and not self.form.texts["mail"]:
            mail = f"w{rng.randint(1, 99)}@acme.test"
            self.keys.append(("text", mail))
            self.form.texts["mail"] = mail

    def move(self) -> None:
        rng = self.rng
        if self.focus < len(FIELDS) - 1 and (self.focus == 0 or rng.random() < 0.75):
            if FIELDS[self.focus] in TEXT_FIELDS and rng.random() < 0.3:
                self.key("escape")  # out of the field to the form; tab goes to the field after it
            self.key("tab")
            self.focus += 1
        elif self.focus > 0:
            self.key("shift+tab")
            self.focus -= 1

    def fill(self, steps: int) -> None:
        for _ in range(steps):
            if self.rng.random() < 0.55:
                self.edit()
            else:
                self.move()


# --- the terminal --------------------------------------------------------------------------------


class Terminal:
    """The installed command in a tmux pane of a tmux server of its own; its process can be stopped."""

    def __init__(self, url: str, home: Path, width: int = 120, height: int = 40) -> None:
        self.socket = f"qd-fuzz-{os.getpid()}-{time.monotonic_ns()}"
        env = {
            "QUEUEDESK_URL": url,
            "QUEUEDESK_TOKEN": KEYS["worker"],
            "QUEUEDESK_CONFIG": str(home / "config.toml"),
            "QUEUEDESK_DATA_DIR": str(home / "data"),
            "TERM": "xterm-256color",
        }
        env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "fuzz",
            "-x",
            str(width),
            "-y",
            str(height),
            *env_args,
            # Not `exec`: tmux continues at once a pane's own process that stops (its SIGCHLD
            # handler), so a stall of the pane's process lasted only until tmux saw it. The app is
            # the shell's child here, and stays stopped as long as it is meant to.
            f"{QUEUEDESK}; sleep 1",
        )
        self.pid = self._app_pid(int(self.tmux("display", "-p", "-t", "fuzz", "#{pane_pid}").strip()))
        self.lock = threading.Lock()  # held by whoever stops the app, until it is continued

    @staticmethod
    def _app_pid(shell: int, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = subprocess.run(["pgrep", "-P", str(shell)], capture_output=True, text=True).stdout.split()
            if found:
                return int(found[0])
            time.sleep(0.05)
        raise RuntimeError("the app did not start in the pane")

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False)
        return done.stdout

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "fuzz")

    def send(self, how: str, what: str) -> None:
        if how == "key":
            self.tmux("send-keys", "-t", "fuzz", TMUX_NAMES.get(what, what))
        elif how == "text":
            self.tmux("send-keys", "-t", "fuzz", "-l", what)
        else:  # a paste, as the terminal brackets it
            self.tmux("set-buffer", "-b", "fuzz", what)
            self.tmux("paste-buffer", "-p", "-d", "-b", "fuzz", "-t", "fuzz")

    def wait_for(self, check: Any, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.text()
            if check(screen):
                return screen
            time.sleep(0.02)
        return None

    def stop(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def go_on(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.go_on()
        self.tmux("kill-server")


class Stalls(threading.Thread):
    """Stops the app now and then for 50-400 ms, as a loaded machine or an SSH link does."""

    def __init__(self, terminal: Terminal, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.terminal = terminal
        self.rng = rng
        self.running = True
        self.count = 0

    def run(self) -> None:
        while self.running:
            time.sleep(self.rng.uniform(0.2, 1.5))
            with self.terminal.lock:
                if not self.running:
                    return
                self.terminal.stop()
                time.sleep(self.rng.uniform(0.05, 0.4))
                self.terminal.go_on()
                self.count += 1


# --- the run -------------------------------------------------------------------------------------


@dataclass
class Run:
    rng: random.Random
    terminal: Terminal
    out: Any
    queue_path: str
    markers: dict[int, int]  # marker number -> task id
    expected: dict[int, dict[str, Any]] = field(default_factory=dict)  # task id -> values submitted
    skipped: set[int] = field(default_factory=set)
    drafts: dict[int, Form] = field(default_factory=dict)  # marker -> what undo kept
    sequences: int = 0
    bursts: int = 0
    refusals_seen: int = 0
    burst_applied: int = 0
    checked: set[int] = field(default_factory=set)
    wrong: int = 0
    frozen: int = 0

    def type_keys(self, keys: list[tuple[str, str]]) -> None:
        """Typed whether the app is stopped or not: a stall's keys are read at once when it goes on
        (`escape` and the key after it too: tui/keys/escape_prefix.py reads them as two keys)."""
        for how, what in keys:
            self.terminal.send(how, what)
            time.sleep(self.rng.uniform(0.005, 0.2))

    def marker_on_screen(self, timeout: float = 30.0, other_than: int | None = None) -> int | None:
        def shows(screen: str) -> bool:
            found = MARKER.search(screen)
            return found is not None and int(found.group(1)) != other_than

        screen = self.terminal.wait_for(shows, timeout)
        if screen is None:
            return None
        found = MARKER.search(screen)
        assert found is not None
        # A worker reads the task before typing: a key within a frame of the paint may still meet the
        # app before it has made the task current (the frame is written a moment before that).
        time.sleep(REACTION_SECONDS)
        return int(found.group(1))

    def next_marker(self, after: int) -> int | None:
        marker = self.marker_on_screen(other_than=after)
        if marker is None and "The queue is empty" in self.terminal.text():
            self.write({"queue_empty_after": after})
            return None  # every task done
        if marker is None:
            self.frozen += 1
            self.write({"frozen_after": after, "screen": self.terminal.text()})
        return marker

    def write(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def one_task(self, marker: int, typing: Typing | None = None) -> int | None:
        """Type a sequence for the task on screen (going on with `typing`, keys already typed on
        it); the marker shown next (None: the form froze, or no task is left)."""
        rng = self.rng
        if typing is None:
            typing = Typing(rng, self.drafts.pop(marker, None) or Form())
        form = typing.form
        typing.fill(rng.randint(2, 12))
        self.sequences += 1
        task_id = self.markers[marker]
        ending = rng.choices(["enter", "double", "burst", "skip", "undo"], [50, 12, 12, 8, 18])[0]
        self.write({"marker": marker, "keys": [what for _how, what in typing.keys], "ending": ending})
        if ending == "skip":
            typing.key("f6" if FIELDS[typing.focus] in TEXT_FIELDS else "s")
            self.type_keys(typing.keys)
            self.skipped.add(task_id)
            return self.next_marker(marker)
        self.expected[task_id] = form.expected()
        if ending == "burst":
            self.type_keys(typing.keys)
            return self.burst_after(marker)
        typing.key("enter")
        self.type_keys(typing.keys)
        if ending == "double":
            time.sleep(0.08)
            self.type_keys([("key", "enter")])
            return self.next_marker(marker)
        following = self.next_marker(marker)
        if following is None or ending != "undo":
            return following
        # Keys on the next task, then undo: the task sent comes back; sent again, the next one comes
        # back with what was typed on it.
        later = Typing(rng, Form())
        later.fill(rng.randint(1, 4))
        undo_key = "f7" if FIELDS[later.focus] in TEXT_FIELDS else "u"
        self.write({"marker": following, "keys": [what for _how, what in later.keys], "ending": undo_key})
        self.type_keys([*later.keys, ("key", undo_key)])
        screen = self.terminal.wait_for(
            lambda s: (
                "Too late to undo" in s or ((m := MARKER.search(s)) is not None and int(m.group(1)) == marker)
            ),
            30,
        )
        if screen is None:
            self.frozen += 1
            self.write({"undo_failed": marker, "screen": self.terminal.text()})
            return None
        if "Too late to undo" in screen:  # the grace ran out (stalls): said, and the keys stay
            self.write({"undo_too_late": marker})
            self.sequences -= 1  # counted again as the same task goes on
            later.keys.clear()  # typed already: the task goes on from where they left it
            return self.one_task(following, later)
        time.sleep(REACTION_SECONDS)
        self.drafts[following] = later.form
        self.type_keys([("key", "enter")])
        return self.next_marker(marker)

    def burst_after(self, marker: int) -> int | None:
        """The submit and keys for the next task typed while the app is stopped: those are refused."""
        burst = [("key", "enter"), ("key", self.rng.choice("123")), ("key", "tab"), ("text", "zz")]
        with self.terminal.lock:
            self.terminal.stop()
            for how, what in burst:
                self.terminal.send(how, what)
            time.sleep(self.rng.uniform(0.05, 0.2))
            self.terminal.go_on()
        self.bursts += 1
        following = self.next_marker(marker)
        if following is not None:
            said = self.terminal.wait_for(lambda s: "was not applied" in s, 5.0)
            self.refusals_seen += said is not None
            screen = self.terminal.text()
            if "●" in screen or "■" in screen:  # a key of the burst was applied to the next task
                self.burst_applied += 1
                self.write({"burst_applied": following, "screen": screen})
        return following

    def check(self, admin: httpx.Client) -> None:
        """Compare what the server has completed since the last check with what was meant (a task
        is checked once, as soon as it is completed: results come as the run goes)."""
        done: dict[int, dict[str, Any]] = {}
        url: str | None = f"{self.queue_path}/tasks/completed?limit=1000"
        while url:
            page = admin.get(url).json()
            done.update({t["id"]: t["data"] for t in page["tasks"]})
            url = page.get("next") if page["tasks"] else None
        for task_id in sorted(set(done) - self.checked):
            self.checked.add(task_id)
            meant = self.expected.get(task_id)
            if meant is None:  # skipped, or never meant to be sent
                self.wrong += 1
                self.write({"task": task_id, "ok": False, "completed_unmeant": done[task_id]})
                continue
            got = {name: done[task_id].get(name) for name in FIELDS}
            ok = got == meant
            self.wrong += not ok
            self.write({"task": task_id, "ok": ok, **({} if ok else {"meant": meant, "got": got})})


def make_server(tasks: int) -> tuple[ServerProcess, str, dict[int, int]]:
    server = ServerProcess(Path(tempfile.mkdtemp()) / "fuzz.db", [], seed=ROLES_SEED).start()
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
        made = admin.post("/orgs/1/queues", json={"name": "Typing fuzz", "data": BLOCKS})
        made.raise_for_status()
        path = f"/orgs/1/queues/{made.json()['id']}"
        items = [{"data": {"marker": f"FUZZ-{n:05d}"}} for n in range(1, tasks + 1)]
        # (in chunks: the server takes at most 1,000 tasks an import)
        for start in range(0, len(items), 1000):
            chunk = items[start : start + 1000]
            admin.post(f"{path}/tasks/import", json={"source": "manual", "tasks": chunk}).raise_for_status()
        listed = []
        while len(listed) < tasks:
            page = admin.get(f"{path}/tasks", params={"limit": 1000, "offset": len(listed)}).json()["tasks"]
            if not page:
                break
            listed += page
    markers = {int(t["data"]["marker"][5:]): t["id"] for t in listed}
    return server, path, markers


def fuzz(tasks: int, seed: int, out_path: Path) -> dict[str, Any]:
    server, path, markers = make_server(tasks + tasks // 2 + 10)  # undo and skip take more than one
    home = Path(tempfile.mkdtemp())
    terminal = Terminal(server.url, home)
    rng = random.Random(seed)
    stalls = Stalls(terminal, random.Random(seed + 1))
    summary: dict[str, Any] = {}
    with out_path.open("a") as out:
        run = Run(rng, terminal, out, path, markers)
        run.write({"start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "tasks": tasks, "seed": seed})
        try:
            if terminal.wait_for(lambda s: "Typing fuzz" in s, 30) is None:
                raise RuntimeError(f"the app did not open:\n{terminal.text()}")
            # (The queue list's filter takes keys only once it shows: not the work screen's mechanism.)
            run.type_keys([("text", "/")])
            terminal.wait_for(lambda s: "filter by name" in s, 10)
            run.type_keys([("text", "Typing fuzz")])
            terminal.wait_for(lambda s: "Categorization" not in s, 10)  # the list filtered to it
            run.type_keys([("key", "enter"), ("key", "w")])
            marker = run.marker_on_screen()
            if marker is None:
                raise RuntimeError(f"the work screen did not open:\n{terminal.text()}")
            stalls.start()
            handled = 0
            with httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}
            ) as admin:
                while marker is not None and handled < tasks:
                    marker = run.one_task(marker)
                    handled += 1
                    if handled % 20 == 0:
                        run.check(admin)
                        run.write(
                            {
                                "progress": handled,
                                "checked": len(run.checked),
                                "wrong": run.wrong,
                                "frozen": run.frozen,
                            }
                        )
            stalls.running = False
            with terminal.lock:
                pass
            run.type_keys([("key", "escape"), ("key", "escape")])  # leaving sends what waits
            terminal.wait_for(lambda s: "Typing fuzz" in s and "FUZZ-" not in s, 20)
            time.sleep(1)
        finally:
            stalls.running = False
            terminal.close()
            with httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}
            ) as admin:
                run.check(admin)
            server.stop()
            summary = {
                "summary": True,
                "tasks_typed_for": run.sequences,
                "completed_checked": len(run.checked),
                "submitted": len(run.expected),
                "skipped": len(run.skipped),
                "wrong_values": run.wrong + run.burst_applied,
                "frozen_forms": run.frozen,
                "bursts": run.bursts,
                "bursts_refused_and_named": run.refusals_seen,
                "stalls": stalls.count,
            }
            run.write(summary)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--out", type=Path, default=Path("bench/results/typing_fuzz.jsonl"))
    args = parser.parse_args()
    # A run stopped with SIGTERM still checks what was completed, writes its summary and cleans up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    summary = fuzz(args.tasks, args.seed, args.out)
    for key, value in summary.items():
        print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
