"""CPU per request with the metrics and the access log on, against both off, in this checkout.

The same in-process harness as `bench/request_cost.py` (uvicorn's protocol fed bytes, the app, no
network, one request on each of `--connections` connections at once): "on" is a server given a
metrics token, its access log written as JSON lines at info to a file (as `--log-format json` writes
them to stderr); "off" has no metrics token and no access log. Each round runs both, the order
swapped every round; the figure is the process's CPU time per request.

    .venv/bin/python bench/ops_cost.py [--rounds 6] [--requests 20000] [--scenario create]
"""

import argparse
import asyncio
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ("off", "on")


def _counting_write(self: Any, data: bytes) -> None:
    """request_cost's transport counting the answers without keeping what was written (it keeps
    it for the worker cycle, growing over a whole run of creates: most of their CPU, both modes)."""
    if data.startswith(b"HTTP/1.1 "):
        self.answers += 1
        self.statuses.add(data[9:12])
        if self.tally is not None:
            self.tally.answers += 1
            self.tally.statuses.add(data[9:12])


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    import queuedesk.server.settings as settings_module
    from bench import request_cost
    from bench.request_cost import measure
    from queuedesk.server.ops import logs

    if args.mode == "on":
        logs.configure("json", "info")
        made = functools.partial(
            settings_module.Settings, metrics_token="bench-token", access_log=True, log_format="json"
        )
    else:
        made = functools.partial(settings_module.Settings, metrics_token=None, access_log=False)
    settings_module.Settings = made  # type: ignore[misc]  # what measure() builds its app with
    request_cost.Transport.write = _counting_write  # type: ignore[method-assign]
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    got = runner(measure(args.db, args.scenario, args.key, args.queue, args.requests, args.connections, None))
    print(json.dumps(got))


def run_child(mode: str, db_url: str, queue: str, args: argparse.Namespace, log: Path) -> dict[str, Any]:
    from tests.support import KEYS

    command = [sys.executable, __file__, "--child", "--mode", mode, "--db", db_url, "--queue", queue]
    command += ["--scenario", args.scenario, "--key", KEYS["admin"], "--requests", str(args.requests)]
    command += ["--connections", str(args.connections)]
    with log.open("w") as stderr:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=ROOT.parent)
    if done.returncode != 0:
        raise RuntimeError(f"{mode}: {log.read_text()[-3000:]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if got["statuses"] != ["200"]:
        raise RuntimeError(f"{mode}: answers {got['statuses']}")
    got["log_lines"] = sum(1 for _ in log.open())
    return got


def parent(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    from bench.request_cost import prepare

    figures: dict[str, list[float]] = {mode: [] for mode in MODES}
    load_before = os.getloadavg()
    print(
        f"load average before: {load_before[0]:.2f}; {args.scenario}, {args.requests} requests a run",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        db_url, queue = prepare(sys.executable, ROOT, Path(tmp) / "db")
        for round_ in range(1, args.rounds + 1):
            for mode in MODES if round_ % 2 else MODES[::-1]:
                got = run_child(mode, db_url, queue, args, Path(tmp) / f"{mode}.log")
                figures[mode].append(got["cpu_us"])
                print(
                    f"{round_:<3} {mode:3} {got['cpu_us']:7.1f} µs CPU/request (wall {got['wall_us']:.1f}), "
                    f"{got['log_lines']} log lines  load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    paired = [round(on / off, 3) for on, off in zip(figures["on"], figures["off"], strict=True)]
    on, off = statistics.median(figures["on"]), statistics.median(figures["off"])
    print(
        f"{args.scenario}: off {off:.1f} µs, on {on:.1f} µs: on at {on / off:.3f}x off "
        f"(per round {min(paired):.3f}-{max(paired):.3f}); load average after {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--scenario", default="create", choices=("create", "/me", "list queues"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--queue", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
    else:
        parent(args)


if __name__ == "__main__":
    main()
