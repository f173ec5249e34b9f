"""What one worker key can make `queuedesk serve` hold: issue 43's attack, with the server's RSS.

A queue of `--tasks` tasks, each with ~20 KB of text; the worker claims and releases each with the
largest draft allowed (64 KiB: claim, release with `data`, repeat), so that every page of tasks it
reads carries its drafts (more than the 4 MiB a page may hold). Then, for `--seconds`, it keeps
`--connections` connections asking for `GET …/tasks?limit=1000` and never reading the answers
(a 4 KiB receive window): a connection answered 429, or cut off by the server's send check, is
replaced at once by a new one. The server's RSS is sampled every 50 ms; its peak (VmHWM) is the
figure. `--serve-args` passes flags to `serve` (e.g. `--max-in-flight off`, the reference).

    .venv/bin/python bench/memory_per_key.py [--connections 32] [--seconds 30] [--serve-args ...]
"""

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import KEYS, ROLES_SEED, ServerProcess  # noqa: E402

DRAFT_CHARS = 65_000  # ~64 KiB as stored: the largest draft the server takes
TEXT_CHARS = 20_000
TCP_ESTABLISHED = 1  # the first byte of TCP_INFO: the state


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def _prepare(server: ServerProcess, tasks: int) -> str:
    with server.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        blocks = [{"id": "text", "name": "Text", "type": "text", "text": {}}]
        queue = admin.post(f"/orgs/{org}/queues", json={"name": "Memory", "data": blocks}).json()["id"]
        path = f"/orgs/{org}/queues/{queue}/tasks"
        for n in range(tasks):
            admin.post(
                f"{path}/create", json={"data": {"text": f"{n} " + "t" * TEXT_CHARS}}
            ).raise_for_status()
    with server.client("worker") as worker:
        drafted = 0
        for _ in range(tasks):
            task = worker.post(f"{path}/next")
            if task.status_code != 200:
                break
            released = worker.post(
                f"{path}/{task.json()['id']}/release", json={"data": {"text": "d" * DRAFT_CHARS}}
            )
            drafted += released.status_code == 200
        page = len(worker.get(path, params={"limit": 1000}).content)
    print(
        f"{tasks} tasks, {drafted} drafts of {DRAFT_CHARS} characters; one page read whole: {page / 2**20:.2f} MiB"
    )
    return f"{path}?limit=1000"


def _asking(server: ServerProcess, path: str) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Token {KEYS['worker']}\r\n\r\n".encode())
    sock.setblocking(False)
    return sock


def _spent(sock: socket.socket) -> bool:
    """Answered 429 (or anything but 200), or closed or cut off by the server: to be replaced."""
    if sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != TCP_ESTABLISHED:
        return True  # a reset: the peek below would still find the answer's first bytes
    try:
        head = sock.recv(12, socket.MSG_PEEK)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return len(head) == 0 or (len(head) >= 12 and not head.startswith(b"HTTP/1.1 200"))


def attack(server: ServerProcess, path: str, connections: int, seconds: float) -> dict[str, int]:
    counts = {"sent": 0, "replaced": 0}
    socks = [_asking(server, path) for _ in range(connections)]
    counts["sent"] = connections
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for i, sock in enumerate(socks):
            if _spent(sock):
                sock.close()
                socks[i] = _asking(server, path)
                counts["sent"] += 1
                counts["replaced"] += 1
        time.sleep(0.05)
    for sock in socks:
        sock.close()
    return counts


def run(tasks: int, connections: int, seconds: float, serve_args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        server = ServerProcess(Path(directory) / "memory.db", serve_args, seed=ROLES_SEED).start()
        assert server.process is not None
        pid = server.process.pid
        try:
            path = _prepare(server, tasks)
            before = _status_kib(pid, "VmRSS") / 1024
            high_before = _status_kib(pid, "VmHWM") / 1024
            peak = before
            done = threading.Event()

            def sample() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, _status_kib(pid, "VmRSS") / 1024)
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample)
            sampler.start()
            counts = attack(server, path, connections, seconds)
            done.set()
            sampler.join()
            other = httpx.get(
                f"{server.url}/me", headers={"Authorization": f"Token {KEYS['admin']}"}
            ).status_code
            print(
                f"serve {' '.join(serve_args) or '(defaults)'}: RSS before the attack {before:.0f} MiB, "
                f"peak sampled {peak:.0f} MiB (+{peak - before:.0f}), VmHWM {high_before:.0f} -> {_status_kib(pid, 'VmHWM') / 1024:.0f} MiB; "
                f"{counts['sent']} requests on {connections} connections in {seconds:g} s "
                f"({counts['replaced']} replaced after a 429 or a cut-off); another key afterwards: {other}"
            )
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=40.0)  # past two send checks (10 s each)
    parser.add_argument("--serve-args", nargs=argparse.REMAINDER, default=[])
    args = parser.parse_args()
    run(args.tasks, args.connections, args.seconds, args.serve_args)


if __name__ == "__main__":
    main()
