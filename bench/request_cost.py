"""CPU per request through uvicorn's protocol and the app, no network: this checkout against REV.

A wrk run on the shared two-core machine measures the load as much as the server. Here each request
goes through what `queuedesk serve` runs for it — the HTTP protocol uvicorn is given (with the
connection limits where the revision has them), the proxy-headers middleware and the app — fed as
bytes to `data_received` with a transport that keeps what is written, on uvloop, in one process,
one request on each of `--connections` connections at once (as wrk keeps them busy); the figure is
the process's CPU time per request over `--requests`, after a warm-up. REV is the same scratch
build `bench/compare.py` makes. Each round runs both, the order swapped every round.

    .venv/bin/python bench/request_cost.py cec24a6 [--rounds 5] [--requests 20000] [--json FILE]
"""

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORKER_KEY = "bench-worker-{n:02d}-0123456789abcdef"  # bench/compare.py's seed: one key per worker
CREATE_BODY = b'{"data": {"paragraph": "The printer is on fire", "category": "red"}}'
SCENARIOS = ("create", "/me", "list queues", "worker cycle")
QUEUES = 100
COMPLETE_BODY = b'{"data": {"category": "red"}}'
PENDING = 30_000  # new tasks in the work queue for the worker cycle: more than a run completes


def worker_key(n: int) -> str:
    return WORKER_KEY.format(n=n)


def claim_bytes(key: str, queue_path: str) -> bytes:
    return (
        f"POST {queue_path}/tasks/next HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        f"Authorization: Token {key}\r\nContent-Length: 0\r\n\r\n"
    ).encode()


def complete_bytes(key: str, queue_path: str, task_id: bytes) -> bytes:
    return (
        f"POST {queue_path}/tasks/{task_id.decode()}/complete HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        f"Authorization: Token {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(COMPLETE_BODY)}\r\n\r\n"
    ).encode() + COMPLETE_BODY


def request_bytes(scenario: str, key: str, queue_path: str) -> bytes:
    if scenario == "create":
        return (
            f"POST {queue_path}/tasks/create HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
            f"Authorization: Token {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(CREATE_BODY)}\r\n\r\n"
        ).encode() + CREATE_BODY
    path = "/me" if scenario == "/me" else queue_path.rsplit("/", 1)[0]  # list queues: the org's queues
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAuthorization: Token {key}\r\n\r\n".encode()


# --- the child: one revision's protocol and app in this process -------------------------------------


class Transport(asyncio.Transport):
    """Keeps count of the answers written; enough of a socket's transport for uvicorn."""

    def __init__(self, tally: "Transport | None" = None) -> None:
        super().__init__()
        self.answers = 0
        self.statuses: set[bytes] = set()
        self.closing = False
        self.tally = tally  # a connection's own transport also counts in the shared one
        # What this connection was sent since its last request: only a connection's own transport
        # keeps it (the worker cycle reads it); the shared one would grow for the whole run.
        self.written = b""
        self.last_request = b""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes) -> None:  # type: ignore[override]
        if self.tally is not None:
            self.written += data
        if data.startswith(b"HTTP/1.1 "):
            self.answers += 1
            self.statuses.add(data[9:12])
            if self.tally is not None:
                self.tally.answers += 1
                self.tally.statuses.add(data[9:12])

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def can_write_eof(self) -> bool:
        return False

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


async def measure(
    db_url: str,
    scenario: str,
    key: str,
    queue_path: str,
    requests: int,
    connections: int,
    profile: str | None,
) -> dict[str, Any]:
    import uvicorn
    from uvicorn.server import ServerState

    from queuedesk.server.app import create_app
    from queuedesk.server.settings import Settings

    try:
        settings = Settings(db_url=db_url, rate_limit=None)  # type: ignore[call-arg]
    except TypeError:  # a revision without rate limits
        settings = Settings(db_url=db_url)
    try:
        from queuedesk.server.http.connections import connection_options

        options = connection_options(settings)
    except ImportError:  # a revision without connection limits: uvicorn's own protocol
        options = {}
    config = uvicorn.Config(
        create_app(settings), log_level="warning", access_log=False, lifespan="off", **options
    )
    config.load()
    app = config.loaded_app
    # The lifespan by hand (the app opens its database there); `lifespan="off"` keeps uvicorn out of it.
    startup: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    await startup.put({"type": "lifespan.startup"})
    started = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    lifespan = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}}, startup.get, send))
    await started.wait()
    state = ServerState()
    transport = Transport()
    protocols = []
    own: list[Transport] = []
    for _ in range(connections):
        protocol = config.http_protocol_class(config=config, server_state=state, app_state={})  # type: ignore[call-arg]
        own.append(Transport(transport) if scenario == "worker cycle" else transport)
        protocol.connection_made(own[-1])
        protocols.append(protocol)
    raw = b"" if scenario == "worker cycle" else request_bytes(scenario, key, queue_path)
    # The worker cycle: connection n is worker n (its own key), claiming, then completing what it got.
    worker_keys = [worker_key(n) for n in range(connections)]

    def cycle_request(n: int) -> bytes:
        found = (
            re.search(rb'"id":(\d+)', own[n].written) if own[n].written.startswith(b"HTTP/1.1 200") else None
        )
        claimed = found is not None and b"/next " in own[n].last_request
        own[n].written = b""
        if claimed:
            assert found is not None
            request = complete_bytes(worker_keys[n], queue_path, found.group(1))
        else:
            request = claim_bytes(worker_keys[n], queue_path)
        own[n].last_request = request
        return request

    for mine in own:
        mine.last_request = b""

    async def one_each() -> None:
        """One request on every connection at once, as wrk keeps each connection busy."""
        answers = transport.answers
        for n, protocol in enumerate(protocols):
            protocol.data_received(cycle_request(n) if scenario == "worker cycle" else raw)
        while transport.answers < answers + connections:
            await asyncio.sleep(0)
        while state.tasks:  # a request's task finishes after its answer is written
            await asyncio.sleep(0)

    for _ in range(1000 // connections + 1):
        await one_each()
    steps = max(1, requests // connections)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        await one_each()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    requests = steps * connections
    for protocol in protocols:
        protocol.connection_lost(None)
    await startup.put({"type": "lifespan.shutdown"})
    await lifespan
    return {
        "cpu_us": round(cpu / requests * 1e6, 2),
        "wall_us": round(wall / requests * 1e6, 2),
        "statuses": sorted(s.decode() for s in transport.statuses),
    }


def child(args: argparse.Namespace) -> None:
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    got = runner(
        measure(args.db, args.scenario, args.key, args.queue, args.requests, args.connections, args.profile)
    )
    print(json.dumps(got))


# --- the parent ---------------------------------------------------------------------------------------


FILL = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.fill import fill_new
fill_new(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
         lambda n: {"paragraph": f"todo {n}", "category": None, "photo": None})
"""


def prepare(python: str, tree: Path, directory: Path) -> tuple[str, str]:
    """A seeded database with 100 queues, made by that revision's own server, and PENDING new tasks
    in the first (filled by that revision's own `tests/fill.py`)."""
    import httpx

    sys.path.insert(0, str(ROOT))
    from bench.compare import limits_off, seed
    from bench.compare import worker_key as seeded_worker_key
    from tests.support import CORE_BLOCKS, KEYS, free_port

    assert seeded_worker_key(3) == worker_key(3)

    directory.mkdir()
    (directory / "seed.json").write_text(json.dumps(seed()))
    db_url = f"sqlite:///{directory / 'queuedesk.db'}"
    port = free_port()
    command = [python, "-m", "queuedesk", "serve", "--db", db_url, "--port", str(port)]
    command += ["--seed", str(directory / "seed.json"), *limits_off(python)]
    server = subprocess.Popen(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(1200):
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        made = httpx.post(
            f"{url}/orgs/1/queues",
            json={"name": "work", "data": CORE_BLOCKS},
            headers={"Authorization": f"Token {KEYS['admin']}"},
        )
        made.raise_for_status()
        for n in range(1, QUEUES):  # list queues reads as many as bench/compare.py's servers hold
            httpx.post(
                f"{url}/orgs/1/queues",
                json={"name": f"queue {n}", "data": CORE_BLOCKS},
                headers={"Authorization": f"Token {KEYS['admin']}"},
            ).raise_for_status()
    finally:
        server.terminate()
        server.wait(timeout=30)
    queue_id = str(made.json()["id"])
    subprocess.run([python, "-c", FILL, str(tree), db_url, queue_id, str(PENDING)], cwd=directory, check=True)
    return db_url, f"/orgs/1/queues/{queue_id}"


def run_child(
    python: str, db_url: str, queue: str, scenario: str, requests: int, connections: int
) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from tests.support import KEYS

    command = [python, __file__, "--child", "--db", db_url, "--queue", queue, "--scenario", scenario]
    command += ["--key", KEYS["admin"], "--requests", str(requests), "--connections", str(connections)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT.parent)
    if done.returncode != 0:
        raise RuntimeError(f"{python} {scenario}: {done.stderr[-3000:]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if got["statuses"] != ["200"]:
        raise RuntimeError(f"{python} {scenario}: answers {got['statuses']}")
    return got


def parent(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    from bench.compare import build, git

    rev = build(args.rev, args.cache)
    pythons = {"now": sys.executable, args.rev: rev.python}
    trees = {"now": ROOT, args.rev: rev.tree}
    scenarios = [s for s in SCENARIOS if not args.only or any(part in s for part in args.only.split(","))]
    figures: dict[tuple[str, str], list[float]] = {}
    load_before = os.getloadavg()
    print(
        f"now = {git('rev-parse', '--short', 'HEAD')}; load average before: {load_before[0]:.2f}", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        databases = {
            name: prepare(python, trees[name], Path(tmp) / name.replace("/", "_"))
            for name, python in pythons.items()
        }
        names = list(pythons)
        for round_ in range(1, args.rounds + 1):
            for scenario in scenarios:
                for name in names if round_ % 2 else names[::-1]:
                    db_url, queue = databases[name]
                    got = run_child(pythons[name], db_url, queue, scenario, args.requests, args.connections)
                    figures.setdefault((scenario, name), []).append(got["cpu_us"])
                    print(
                        f"{round_:<3} {scenario:12} {name:10} {got['cpu_us']:7.1f} µs CPU/request "
                        f"(wall {got['wall_us']:.1f})  load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
    load_after = os.getloadavg()
    summary: dict[str, Any] = {}
    for scenario in scenarios:
        now, then = figures[(scenario, "now")], figures[(scenario, args.rev)]
        paired = [round(b / a, 3) for a, b in zip(now, then, strict=True)]
        summary[scenario] = {
            "now_us": now,
            "rev_us": then,
            "now_median": statistics.median(now),
            "rev_median": statistics.median(then),
            "rev_over_now_per_round": paired,
        }
        print(
            f"{scenario:8} now {statistics.median(now):6.1f} µs ({min(now):.1f}-{max(now):.1f}), "
            f"{args.rev} {statistics.median(then):6.1f} µs ({min(then):.1f}-{max(then):.1f}): "
            f"now at {statistics.median(then) / statistics.median(now):.2f}x {args.rev}'s rate "
            f"(per round {min(paired):.2f}-{max(paired):.2f})"
        )
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "rev": args.rev,
            "requests": args.requests,
            "load_before": load_before,
            "load_after": load_after,
        }
        args.json.write_text(json.dumps({**report, "summary": summary}, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", help="the git revision to compare with (e.g. cec24a6)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument(
        "--connections", type=int, default=16, help="requests fed at once, one per connection (16)"
    )
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "queuedesk-compare")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--only", help="only the scenarios whose name contains one of these (comma-separated)"
    )
    parser.add_argument("--profile", help="(with --child) write the timed requests' cProfile stats here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--queue", help=argparse.SUPPRESS)
    parser.add_argument("--scenario", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
    elif args.rev is None:
        parser.error("REV is needed")
    else:
        parent(args)


if __name__ == "__main__":
    main()
