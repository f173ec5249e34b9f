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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CREATE_BODY = b'{"data": {"paragraph": "The printer is on fire", "category": "red"}}'
SCENARIOS = ("create", "/me", "list queues")
QUEUES = 100


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

    def __init__(self) -> None:
        super().__init__()
        self.answers = 0
        self.statuses: set[bytes] = set()
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes) -> None:  # type: ignore[override]
        if data.startswith(b"HTTP/1.1 "):
            self.answers += 1
            self.statuses.add(data[9:12])

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
    for _ in range(connections):
        protocol = config.http_protocol_class(config=config, server_state=state, app_state={})  # type: ignore[call-arg]
        protocol.connection_made(transport)
        protocols.append(protocol)
    raw = request_bytes(scenario, key, queue_path)

    async def one_each() -> None:
        """One request on every connection at once, as wrk keeps each connection busy."""
        answers = transport.answers
        for protocol in protocols:
            protocol.data_received(raw)
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


def prepare(python: str, directory: Path) -> tuple[str, str]:
    """A seeded database with 100 queues, made by that revision's own server."""
    import httpx

    sys.path.insert(0, str(ROOT))
    from bench.compare import limits_off, seed
    from tests.support import CORE_BLOCKS, KEYS, free_port

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
        return db_url, f"/orgs/1/queues/{made.json()['id']}"
    finally:
        server.terminate()
        server.wait(timeout=30)


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
    figures: dict[tuple[str, str], list[float]] = {}
    load_before = os.getloadavg()
    print(
        f"now = {git('rev-parse', '--short', 'HEAD')}; load average before: {load_before[0]:.2f}", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        databases = {name: prepare(python, Path(tmp) / name) for name, python in pythons.items()}
        names = list(pythons)
        for round_ in range(1, args.rounds + 1):
            for scenario in SCENARIOS:
                for name in names if round_ % 2 else names[::-1]:
                    db_url, queue = databases[name]
                    got = run_child(pythons[name], db_url, queue, scenario, args.requests, args.connections)
                    figures.setdefault((scenario, name), []).append(got["cpu_us"])
                    print(
                        f"{round_:<3} {scenario:8} {name:10} {got['cpu_us']:7.1f} µs CPU/request "
                        f"(wall {got['wall_us']:.1f})  load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
    load_after = os.getloadavg()
    summary: dict[str, Any] = {}
    for scenario in SCENARIOS:
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
