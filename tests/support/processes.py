"""`queuedesk` in child processes: the server on a free loopback port, and one-off CLI runs."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from queuedesk.service_environment import cleared
from tests.support.loopback import loopback_client
from tests.support.postgres import postgres_database
from tests.support.seeds import KEYS


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def queuedesk_command() -> list[str]:
    return [sys.executable, "-m", "queuedesk"]


def run_cli(args: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*queuedesk_command(), *args], capture_output=True, text=True, timeout=timeout)


@dataclass
class ServerProcess:
    """`queuedesk serve` in a child process, stopped on `stop()`."""

    db_path: Path
    extra_args: list[str] = field(default_factory=list)
    seed: dict[str, Any] | None = None
    backend: str = "sqlite"
    database_url: str | None = None  # instead of the backend's own database (e.g. through a proxy)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None
    log_path: Path | None = None
    # QUEUEDESK_ variables the server is given on purpose; those of the shell are cleared.
    environment: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def db_url(self) -> str:
        """SQLite: the file at db_path. PostgreSQL: a database of its own, the same for the same db_path."""
        if self.database_url is not None:
            return self.database_url
        if self.backend == "postgresql":
            return postgres_database(str(self.db_path))
        return f"sqlite:///{self.db_path}"

    def start(self, timeout: float = 60) -> "ServerProcess":  # a loaded machine needs the time
        args = ["serve", "--db", self.db_url, "--port", str(self.port), *self.extra_args]
        if self.seed is not None:
            seed_path = self.db_path.with_suffix(".seed.json")
            seed_path.write_text(json.dumps(self.seed))
            args += ["--seed", str(seed_path)]
        self.log_path = self.db_path.with_suffix(f".{self.port}.log")
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [*queuedesk_command(), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env={**cleared(os.environ), **self.environment},
        )
        deadline = time.monotonic() + timeout
        with loopback_client(self.url, timeout=1) as probe:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"queuedesk serve exited {self.process.returncode}:\n{self.log()}")
                try:
                    if probe.get("/healthz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"queuedesk serve did not answer within {timeout}s:\n{self.log()}")

    @contextlib.contextmanager
    def running(self) -> Iterator["ServerProcess"]:
        """Started for the `with` block, stopped after it."""
        self.start()
        try:
            yield self
        finally:
            self.stop()

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def work_processes(self) -> set[int]:
        """The work processes (`server/store/work_processes.py`) this server started, from any of
        its threads; not multiprocessing's resource tracker, which comes with them."""
        assert self.process is not None
        found: set[int] = set()
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
                found.update(int(child) for child in (task / "children").read_text().split())
        return {child for child in found if b"spawn_main" in _cmdline(child)}

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def client(self, role: str = "admin", **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Token {KEYS[role]}"} if role else {}
        return loopback_client(self.url, headers=headers, timeout=30, **kwargs)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:  # ended meanwhile
        return b""
