"""`queuedesk web` in a child process, and the address with the key it prints."""

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.demo.support import QUEUEDESK, demo_environment
from tests.support.processes import free_port

ADDRESS = re.compile(r"the app on (http://\S+)")


@dataclass
class WebProcess:
    process: subprocess.Popen[bytes]
    port: int
    address: str  # as printed: with this run's key unless a password was given
    log: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app_processes(self) -> list[int]:
        """The app processes (textual-serve's children) running now."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_web(data_dir: Path, *args: str, **environment: str) -> WebProcess:
    port = free_port()
    log = data_dir / f"web-{port}.log"
    env = demo_environment(data_dir, **environment)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(QUEUEDESK), "web", "--port", str(port), *args], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = ADDRESS.search(log.read_text(errors="replace"))
        if found and _listening(port):
            return WebProcess(process, port, found.group(1), log)
        if process.poll() is not None:
            raise AssertionError(f"queuedesk web exited {process.returncode}: {log.read_text()}")
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"queuedesk web did not start: {log.read_text()}")


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0
