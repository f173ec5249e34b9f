"""Time from typing `queuedesk` to the first painted queue list, beside a bare Textual app.

Both run in a real terminal (tmux); the clock stops when the pane shows the first queue's name.
The app connects with a saved profile (a config file of its own), to a real `queuedesk serve`.
Both run with their modules compiled, after one unmeasured start each (see --no-bytecode-cache).

    .venv/bin/python bench/tui_start.py --runs 9 --json bench/results/tui_start.json
    .venv/bin/python bench/tui_start.py --runs 9 --before-src /work/main/src   # and another checkout

With --before-src, a third program runs in each round: the same `queuedesk`, with that checkout's
`src` first on PYTHONPATH (the code before a change), so before and after meet the same load.
`--before-src` may be given more than once (one more program a round each; `bench/compare.py` runs
it so with the revisions it compares).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import UNLIMITED
from tests.support import KEYS, ROLES_SEED, ServerProcess

BIN = Path(sys.executable).parent
# A tmux server of our own, kept up by an idle session: when the last session closes the server
# exits, and a session started meanwhile fails ("server exited unexpectedly") — with the default
# server, other people's sessions close too. Each run therefore measures the pane, not tmux starting.
TMUX = ["tmux", "-L", f"queuedesk-bench-{os.getpid()}"]


def cpu_seconds(root: int) -> float:
    """User and system CPU time of a process and its descendants so far (from /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents, used = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree, total = {root}, 0.0
    for pid in sorted(parents):  # a child's pid is almost always above its parent's
        if pid in tree or parents[pid] in tree:
            tree.add(pid)
            total += used.get(pid, 0.0)
    return total


def time_to_text(command: str, text: str, env: dict[str, str], timeout: float = 15) -> tuple[float, float]:
    """Seconds from starting `command` in a fresh tmux pane until the pane shows `text`, and the CPU
    seconds the command had used by then (a figure the machine's other load moves much less)."""
    session = f"bench{time.monotonic_ns()}"
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    started = time.perf_counter()
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "120", "-y", "40", *env_args, command], check=True
    )
    try:
        pane_pid = int(
            subprocess.run(
                [*TMUX, "display-message", "-p", "-t", session, "#{pane_pid}"], capture_output=True, text=True
            ).stdout
        )
        while time.perf_counter() - started < timeout:
            pane = subprocess.run(
                [*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if text in pane:
                return time.perf_counter() - started, cpu_seconds(pane_pid)
            time.sleep(0.005)
        raise RuntimeError(f"{command!r} did not show {text!r} within {timeout}s:\n{pane}")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run with this environment's bytecode settings, without the warm-up runs",
    )
    parser.add_argument(
        "--before-src",
        type=Path,
        action="append",
        default=[],
        help="also run `queuedesk` with this src directory first on PYTHONPATH, interleaved (repeatable)",
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed: apt-get install tmux")
    work = Path(tempfile.mkdtemp())
    server = ServerProcess(work / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    config = work / "config.toml"
    config.write_text(
        f'default_profile = "bench"\n[profiles.bench]\nurl = "{server.url}"\ntoken = "{KEYS["admin"]}"\n'
    )
    env = {"QUEUEDESK_CONFIG": str(config), "TERM": "xterm-256color"}
    if not args.no_bytecode_cache:
        # Compiled modules, as an installed package has them (pip compiles them). This checkout's
        # environment may set PYTHONDONTWRITEBYTECODE, and then every start compiled QueueDesk's own
        # modules again (Textual's came compiled from the wheel): a cost no user pays. The caches go
        # to a directory of our own, filled by one unmeasured start of each program.
        env |= {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    bare = f"{BIN / 'python'} {Path(__file__).with_name('bare_app.py')}"
    app = str(BIN / "queuedesk")
    app_times: list[tuple[float, float]] = []
    bare_times: list[tuple[float, float]] = []
    befores = {src: env | {"PYTHONPATH": str(src.resolve())} for src in args.before_src}
    before_times: dict[Path, list[tuple[float, float]]] = {src: [] for src in befores}
    load_before = os.getloadavg()
    try:
        subprocess.run([*TMUX, "new-session", "-d", "-s", "keeper", "sleep 86400"], check=True)
        if not args.no_bytecode_cache:
            time_to_text(bare, "Categorization ready", env, timeout=120)
            time_to_text(app, "Categorization", env, timeout=120)
            for before_env in befores.values():
                time_to_text(app, "Categorization", before_env, timeout=120)
            load_before = os.getloadavg()
        for _ in range(args.runs):
            bare_times.append(time_to_text(bare, "Categorization ready", env))
            app_times.append(time_to_text(app, "Categorization", env))
            for src, before_env in befores.items():
                before_times[src].append(time_to_text(app, "Categorization", before_env))
    finally:
        server.stop()
        subprocess.run([*TMUX, "kill-server"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    app_wall = [wall for wall, _cpu in app_times]
    bare_wall = [wall for wall, _cpu in bare_times]
    app_cpu = statistics.median(cpu for _wall, cpu in app_times)
    bare_cpu = statistics.median(cpu for _wall, cpu in bare_times)
    result = {
        "runs": args.runs,
        "bytecode_cache": not args.no_bytecode_cache,
        "app_median_s": round(statistics.median(app_wall), 3),
        "app_max_s": round(max(app_wall), 3),
        "bare_median_s": round(statistics.median(bare_wall), 3),
        "difference_s": round(statistics.median(app_wall) - statistics.median(bare_wall), 3),
        "app_s": [round(t, 3) for t in app_wall],
        "bare_s": [round(t, 3) for t in bare_wall],
        "app_cpu_median_s": round(app_cpu, 2),
        "bare_cpu_median_s": round(bare_cpu, 2),
        "app_cpu_s": [round(cpu, 3) for _wall, cpu in app_times],
        "bare_cpu_s": [round(cpu, 3) for _wall, cpu in bare_times],
        # 1-minute load average before and after: the machine is shared, and load moves the figures
        "load_1min": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    }
    result["befores"] = {}
    for src, times in before_times.items():
        before_wall = [wall for wall, _cpu in times]
        result["befores"][str(src)] = {
            "before_median_s": round(statistics.median(before_wall), 3),
            "before_s": [round(t, 3) for t in before_wall],
            "before_cpu_median_s": round(statistics.median(cpu for _wall, cpu in times), 2),
            "before_cpu_s": [round(cpu, 3) for _wall, cpu in times],
        }
    if before_times:  # the first one also as before (the form of the results kept so far)
        result |= {"before_src": str(args.before_src[0]), **result["befores"][str(args.before_src[0])]}
    print(f"queuedesk to first queue list: median {result['app_median_s']} s (max {result['app_max_s']} s)")
    print(f"bare Textual app, same way:     median {result['bare_median_s']} s")
    print(f"difference:                     {result['difference_s']} s")
    print(f"CPU time until then (median):   queuedesk {app_cpu:.2f} s, bare {bare_cpu:.2f} s")
    for src, before in result["befores"].items():
        print(
            f"before ({src}): median {before['before_median_s']} s, CPU {before['before_cpu_median_s']:.2f} s"
        )
    print(f"load average (1 min), before and after: {result['load_1min']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
