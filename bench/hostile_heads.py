"""What 50 hostile connections sending endless request lines and headers cost `queuedesk serve`.

Measures the latency of one well-behaved client (`GET /orgs/{org}/queues`, one request at a time)
on an unloaded server, then again while a second process keeps 50 connections sending: half grow a
request line 64 KiB at a time, half one header value, each reconnecting whenever it is answered.
Samples the server's RSS every 0.1 s throughout.

    .venv/bin/python bench/hostile_heads.py [--requests 400] [--connections 50]
"""

import argparse
import multiprocessing
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

PIECE = b"a" * 65536


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024


def _hostile(port: int, grow_line: bool, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /" if grow_line else b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
            while not stop.is_set():
                sock.sendall(PIECE)
        except OSError:
            pass
        sock.close()


def _hostile_process(port: int, connections: int) -> None:
    stop = threading.Event()
    threads = [threading.Thread(target=_hostile, args=(port, i % 2 == 0, stop)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _latencies(url: str, org: int, count: int) -> list[float]:
    timings: list[float] = []
    with httpx.Client(
        base_url=url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=30
    ) as client:
        for _ in range(count):
            started = time.perf_counter()
            assert client.get(f"/orgs/{org}/queues").status_code == 200
            timings.append((time.perf_counter() - started) * 1000)
    return sorted(timings)


def _summary(timings: list[float]) -> str:
    p50 = timings[len(timings) // 2]
    p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
    return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--connections", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        server = ServerProcess(Path(directory) / "qd.db", seed=ROLES_SEED).start()
        assert server.process is not None
        pid = server.process.pid
        try:
            org = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {KEYS['admin']}"}).json()[
                "organization_id"
            ]
            _latencies(server.url, org, 50)  # warm up
            quiet = _latencies(server.url, org, args.requests)
            print(f"unloaded: {_summary(quiet)}; RSS {_rss_mib(pid):.0f} MiB")
            peak = [0.0]
            sampling = threading.Event()

            def sample() -> None:
                while not sampling.is_set():
                    peak[0] = max(peak[0], _rss_mib(pid))
                    time.sleep(0.1)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            hostile = multiprocessing.Process(
                target=_hostile_process, args=(server.port, args.connections), daemon=True
            )
            hostile.start()
            time.sleep(2)
            loaded = _latencies(server.url, org, args.requests)
            hostile.terminate()
            sampling.set()
            print(f"{args.connections} hostile connections: {_summary(loaded)}; peak RSS {peak[0]:.0f} MiB")
            ratio = loaded[int(len(loaded) * 0.99)] / quiet[int(len(quiet) * 0.99)]
            print(f"p99 loaded / unloaded: {ratio:.2f}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
