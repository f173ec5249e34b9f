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


TICK = os.sysconf("SC_CLK_TCK")


def descendants_cpu(root: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each process under `root`, by its command."""
    parents: dict[int, tuple[int, str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            _name, rest = (entry / "stat").read_text().rsplit(")", 1)
            fields = rest.split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parents[int(entry.name)] = (int(fields[1]), command, (int(fields[11]) + int(fields[12])) / TICK)
    found: dict[str, float] = {}
    wanted = {root}
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _command, _cpu) in parents.items():
            if ppid in wanted and pid not in wanted:
                wanted.add(pid)
                changed = True
    for pid in wanted - {root}:
        _ppid, command, cpu = parents[pid]
        key = (
            "service"
            if "queuedesk.demo.backend" in command
            else "app"
            if "queuedesk demo" in command
            else "other"
        )
        found[key] = found.get(key, 0.0) + cpu
    return found


def one_run(data_dir: Path, fresh: bool) -> tuple[float, dict[str, float]]:
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
                shell = subprocess.run(
                    ["tmux", "display", "-p", "-t", session, "#{pane_pid}"], capture_output=True, text=True
                ).stdout
                cpu = descendants_cpu(int(shell))
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
        return elapsed, cpu
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
        fresh: list[float] = []
        existing: list[float] = []
        cpu: dict[str, list[dict[str, float]]] = {"fresh": [], "existing": []}
        for _ in range(args.runs):
            for kind, times in (("fresh", fresh), ("existing", existing)):
                elapsed, used = one_run(data_dir, fresh=kind == "fresh")
                times.append(elapsed)
                cpu[kind].append(used)
    load = os.getloadavg()[0]
    result = {
        "fresh_seconds": fresh,
        "existing_seconds": existing,
        "fresh_median": statistics.median(fresh),
        "existing_median": statistics.median(existing),
        "cpu_seconds_to_first_screen": cpu,
        "load_average": load,
    }
    for kind, times in (("existing database", existing), ("fresh (--fresh)", fresh)):
        key = "fresh" if kind.startswith("fresh") else "existing"
        app = statistics.median(c.get("app", 0.0) for c in cpu[key])
        service = statistics.median(c.get("service", 0.0) for c in cpu[key])
        print(
            f"{kind + ':':19} median {statistics.median(times):.2f} s  ({', '.join(f'{s:.2f}' for s in times)});"
            f" CPU to the first screen: app {app:.2f} s, service {service:.2f} s"
        )
    print(f"load average at the end: {load:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
