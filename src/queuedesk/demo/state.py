"""Where the demo keeps its files, and the lock that tells whether a demo is running.

In the user's data directory (`QUEUEDESK_DATA_DIR` moves it, as for the app's journal):
- `demo.db`: the demo's SQLite database;
- `demo.lock`: held (flock) by the running demo's service process for as long as it runs, with its
  pid and address in it; the kernel lets go of it when the process ends, however it ends;
- `demo-state.json`: the side server's last address and when the demo was last seen running, from
  which the next start shifts the demo's times;
- `demo.log`: what the demo's service process wrote.
"""

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from platformdirs import user_data_dir

from queuedesk.atomic_write import SHARED, write_atomically


def data_dir() -> Path:
    override = os.environ.get("QUEUEDESK_DATA_DIR")
    return Path(override) if override else Path(user_data_dir("queuedesk"))


@dataclass(frozen=True)
class DemoFiles:
    directory: Path

    @classmethod
    def default(cls) -> "DemoFiles":
        return cls(data_dir())

    @property
    def db(self) -> Path:
        return self.directory / "demo.db"

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.db}"

    @property
    def lock(self) -> Path:
        return self.directory / "demo.lock"

    @property
    def state(self) -> Path:
        return self.directory / "demo-state.json"

    @property
    def log(self) -> Path:
        return self.directory / "demo.log"

    def remove_database(self) -> None:
        for path in (self.db, Path(f"{self.db}-wal"), Path(f"{self.db}-shm"), self.state):
            path.unlink(missing_ok=True)

    def read_state(self) -> dict[str, Any]:
        try:
            value = json.loads(self.state.read_text())
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def write_state(self, **values: Any) -> None:
        write_atomically(self.state, json.dumps(values), permissions=SHARED)


@dataclass(frozen=True)
class Running:
    pid: int
    url: str


def running_demo(files: DemoFiles) -> Running | None:
    """The demo running now (its lock is held), or None."""
    try:
        handle = files.lock.open("r")
    except FileNotFoundError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                found = json.loads(handle.read() or "{}")
                return Running(int(found["pid"]), str(found["url"]))
            except (ValueError, KeyError, TypeError):
                return Running(0, "")  # running, still starting: no address written yet
        fcntl.flock(handle, fcntl.LOCK_UN)
        return None


class DemoLock:
    """The running demo's lock: taken before the database is touched, held until the process ends."""

    def __init__(self, files: DemoFiles) -> None:
        self.files = files
        self._handle: IO[str] | None = None

    def take(self) -> bool:
        self.files.directory.mkdir(parents=True, exist_ok=True)
        handle = self.files.lock.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._handle = handle
        return True

    def announce(self, url: str) -> None:
        assert self._handle is not None
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(json.dumps({"pid": os.getpid(), "url": url}))
        self._handle.flush()

    def release(self) -> None:
        if self._handle is None:
            return
        with contextlib.suppress(OSError):
            self._handle.seek(0)
            self._handle.truncate()
        self._handle.close()  # closing lets go of the flock
        self._handle = None
