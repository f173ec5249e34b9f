"""Time from `queuedesk demo` to the first screen with data, in a real terminal (tmux).

Each run starts `queuedesk demo` in a new tmux pane and polls the screen until the queue list shows
all three demo queues with their pending counts, then quits with ctrl+q. "fresh" runs add --fresh
(new demo data: the database is built first); "existing" runs reuse the database the previous run
left (its times are shifted to now). Targets: existing < 2 s, fresh < 5 s.

    .venv/bin/python bench/demo_start.py --runs 5 [--json bench/results/demo_start.json]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUEUEDESK = Path(sys.executable).parent / "queuedesk"
READY = [re.compile(rf"{name}\s+\d+") for name in ("Photo moderation", "Support triage", "Receipt checks")]


def screen(session: str) -> str:
    return subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
    ).stdout


def one_run(data_dir: Path, fresh: bool) -> float:
    session = f"qd-bench-demo-{os.getpid()}-{time.monotonic_ns()}"
    env = {
        "QUEUEDESK_DATA_DIR": str(data_dir),
        "XDG_CONFIG_HOME": str(data_dir / "config"),
        "TERM": "xterm-256color",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    command = f"{QUEUEDESK} demo{' --fresh' if fresh else ''}; sleep 30"
    started = time.perf_counter()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "30", *env_args, command], check=True
    )
    try:
        while True:
            text = screen(session)
            if all(pattern.search(text) for pattern in READY):
                elapsed = time.perf_counter() - started
                break
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"no queue list within 60 s:\n{text}")
            time.sleep(0.02)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=True)
        deadline = time.monotonic() + 30
        while (
            (data_dir / "demo.lock").exists()
            and (data_dir / "demo.lock").read_text()
            and time.monotonic() < deadline
        ):
            time.sleep(0.1)  # the service has let go of the lock: the next run starts from a stopped demo
        return elapsed
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qd-demo-bench-") as directory:
        data_dir = Path(directory)
        fresh, existing = [], []
        for _ in range(args.runs):
            fresh.append(one_run(data_dir, fresh=True))
            existing.append(one_run(data_dir, fresh=False))
    load = os.getloadavg()[0]
    result = {
        "fresh_seconds": fresh,
        "existing_seconds": existing,
        "fresh_median": statistics.median(fresh),
        "existing_median": statistics.median(existing),
        "load_average": load,
    }
    print(
        f"existing database: median {result['existing_median']:.2f} s  ({', '.join(f'{s:.2f}' for s in existing)})"
    )
    print(
        f"fresh (--fresh):   median {result['fresh_median']:.2f} s  ({', '.join(f'{s:.2f}' for s in fresh)})"
    )
    print(f"load average at the end: {load:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
