"""What the demo's tests share: a demo service process on a data directory of the test's own."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

QUEUEDESK = Path(sys.executable).parent / "queuedesk"
ADMIN_KEY = "demo-admin-key-0000000000000001"
WORKER_KEY = "demo-worker-key-0000000000000003"


def demo_environment(data_dir: Path, **extra: str) -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("QUEUEDESK_") or name == "QUEUEDESK_STATEMENT_GUARD"
    }
    environment.update(
        QUEUEDESK_DATA_DIR=str(data_dir),
        QUEUEDESK_CONFIG=str(data_dir / "config.toml"),
        XDG_CONFIG_HOME=str(data_dir / "config"),
        TERM="xterm-256color",
        **extra,
    )
    return environment


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped) holds nothing.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


class DemoService:
    """`python -m queuedesk.demo.backend` on `data_dir`, stopped by closing its stdin."""

    def __init__(self, data_dir: Path, *, bots: bool = False, pace: float = 0.1) -> None:
        command = [
            sys.executable,
            "-m",
            "queuedesk.demo.backend",
            "--data-dir",
            str(data_dir),
            "--pace",
            str(pace),
        ]
        command += [] if bots else ["--no-bots"]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(data_dir / "service.log").open("ab"),
            env=demo_environment(data_dir),
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        message = json.loads(line or b"{}")
        assert "url" in message, f"the demo service did not start: {line!r}"
        self.url: str = message["url"]
        self.side: str = message["side"]

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def wait_until(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")
