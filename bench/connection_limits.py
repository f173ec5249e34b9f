"""What idle connections cost `queuedesk serve`, and what the per-key rate limiter costs.

1. Opens N idle connections (connect, send nothing) to a server and records its open descriptors
   and RSS after 1 s and after the header timeout, and whether a normal request is still answered.
   `--serve-args` passes flags to `serve` (e.g. to try another --max-connections); `--src DIR`
   runs another checkout's code (e.g. main's, to compare).
2. wrk on `GET /orgs/1/queues` with one key, with the limiter on (a limit it never reaches) and off.

    .venv/bin/python bench/connection_limits.py [--idle 10000] [--duration 10] [--src DIR]
"""

import argparse
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.http_load import wrk  # noqa: E402
from tests.support import KEYS, ROLES_SEED, ServerProcess  # noqa: E402


def _usage(pid: int) -> tuple[int, float]:
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    status = Path(f"/proc/{pid}/status").read_text()
    rss_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return fds, rss_kb / 1024


def _healthy(url: str) -> str:
    try:
        return str(httpx.get(f"{url}/healthz", timeout=5).status_code)
    except httpx.HTTPError as exc:
        return type(exc).__name__


def idle(directory: Path, count: int, serve_args: list[str], wait: float) -> None:
    server = ServerProcess(directory / "idle.db", serve_args, seed=ROLES_SEED).start()
    assert server.process is not None
    pid = server.process.pid
    try:
        print(f"server at start: {_usage(pid)[0]} fds, {_usage(pid)[1]:.0f} MB RSS")
        socks: list[socket.socket] = []
        refused = 0
        for _ in range(count):
            try:
                socks.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            except OSError:
                refused += 1
        for label, pause in (("after 1 s", 1.0), (f"after {wait:g} s", wait - 1)):
            time.sleep(pause)
            fds, rss = _usage(pid)
            print(
                f"{count} idle connections, {label}: {fds} fds, {rss:.0f} MB RSS; /healthz: {_healthy(server.url)}"
            )
        closed = sum(1 for s in socks if _closed_by_server(s))
        print(f"closed by the server: {closed} of {len(socks)} (connect failures: {refused})")
        for sock in socks:
            sock.close()
    finally:
        server.stop()


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0.01)
    try:
        while sock.recv(65536):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def limiter(directory: Path, duration: float, rounds: int) -> None:
    for _ in range(rounds):
        for label, flags in (("off", ["--rate-limit", "off"]), ("on", ["--rate-limit", "100000000"])):
            server = ServerProcess(directory / f"rate-{label}.db", flags, seed=ROLES_SEED).start()
            try:
                result = wrk(
                    f"{server.url}/orgs/1/queues", "get.lua", 16, duration, {"QD_KEY": KEYS["admin"]}
                )
            finally:
                server.stop()
            print(
                f"limiter {label:3}: {result['rps']:,.0f} req/s, p50 {result['p50']:.1f} ms, p99 {result['p99']:.1f} ms, errors {result['errors']}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--idle", type=int, default=10_000, help="idle connections to open")
    parser.add_argument("--wait", type=float, default=12, help="seconds to watch them")
    parser.add_argument("--serve-args", default="", help="extra flags for serve")
    parser.add_argument("--src", help="run this src/ directory's queuedesk instead (e.g. main's)")
    parser.add_argument("--duration", type=float, default=10, help="seconds per wrk run (0: skip)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.src:
        os.environ["PYTHONPATH"] = f"{args.src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds the idle connections
    with tempfile.TemporaryDirectory() as tmp:
        idle(Path(tmp), args.idle, args.serve_args.split(), args.wait)
        if args.duration > 0:
            limiter(Path(tmp), args.duration, args.rounds)


if __name__ == "__main__":
    main()
