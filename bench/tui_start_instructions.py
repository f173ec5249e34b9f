"""Instructions the app's start executes, beside the bare Textual app's: a figure the machine's speed
and load do not move (the clock's figures in bench/tui_start.py move up to 2x from day to day).

Each program runs under `valgrind --tool=callgrind` in a tmux pane, as bench/tui_start.py runs it,
and is ended by bench/start_stop.py at `App.run` (imports and configuration) or at the first frame
that shows the queue list (for the bare app, its line). One unmeasured run first fills the bytecode
cache. valgrind comes from Debian: `apt-get install valgrind`. About 30 s a run.

    .venv/bin/python bench/tui_start_instructions.py --json bench/results/tui_start_instructions.json
    .venv/bin/python bench/tui_start_instructions.py --before-src /path/to/older/checkout/src

After `App.run` the count depends a little on timing (valgrind runs the app ≈50x slower, so timers
and the server's answers meet a different moment, and an extra frame may be drawn): repeated runs
differ by up to 5% there, and the lowest is kept; up to `App.run` they agree within 0.2%.
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import UNLIMITED
from bench.tui_start import TMUX
from tests.support import KEYS, ROLES_SEED, ServerProcess

PYTHON = Path(sys.executable)
START_STOP = Path(__file__).with_name("start_stop.py")


def instructions(program: str, point: str, env: dict[str, str], work: Path) -> int:
    """Instructions `program` executes until `point`, counted by callgrind in a fresh tmux pane."""
    log = work / f"callgrind-{time.monotonic_ns()}.log"
    command = (
        f"valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file={log} "
        f"{PYTHON} {START_STOP} {program} {point}"
    )
    session = f"count{time.monotonic_ns()}"
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "120", "-y", "40", *env_args, command], check=True
    )
    deadline = time.monotonic() + 300
    while subprocess.run([*TMUX, "has-session", "-t", session], capture_output=True).returncode == 0:
        if time.monotonic() > deadline:
            subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)
            raise RuntimeError(f"{program} {point} did not end within 300 s")
        time.sleep(0.5)
    found = re.search(r"Collected : (\d+)", log.read_text())
    if found is None:
        raise RuntimeError(f"no count in {log}:\n{log.read_text()}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=2, help="runs of each (the lowest count is kept)")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--before-src", type=Path, help="also count `queuedesk` with this src first on PYTHONPATH"
    )
    args = parser.parse_args()
    for tool in ("tmux", "valgrind"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is needed: apt-get install {tool}")
    work = Path(tempfile.mkdtemp())
    server = ServerProcess(work / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    config = work / "config.toml"
    config.write_text(
        f'default_profile = "bench"\n[profiles.bench]\nurl = "{server.url}"\ntoken = "{KEYS["admin"]}"\n'
    )
    base = {
        "QUEUEDESK_CONFIG": str(config),
        "QUEUEDESK_DATA_DIR": str(work / "data"),
        "TERM": "xterm-256color",
        "PYTHONDONTWRITEBYTECODE": "",
    }
    programs = {
        "bare": ("bare", base | {"PYTHONPYCACHEPREFIX": str(work / "pycache-bare")}),
        "app": ("app", base | {"PYTHONPYCACHEPREFIX": str(work / "pycache-app")}),
    }
    if args.before_src:
        programs["before"] = (
            "app",
            base
            | {
                "PYTHONPYCACHEPREFIX": str(work / "pycache-before"),
                "PYTHONPATH": str(args.before_src.resolve()),
            },
        )
    result: dict[str, object] = {"runs": args.runs}
    try:
        subprocess.run([*TMUX, "new-session", "-d", "-s", "keeper", "sleep 86400"], check=True)
        for name, (program, env) in programs.items():
            instructions(program, "run", env, work)  # fills the bytecode cache, unmeasured
            for point in ("run", "paint"):
                counts = sorted(instructions(program, point, env, work) for _ in range(args.runs))
                result[f"{name}_{point}"] = counts[0]  # timing only ever adds work (an extra frame)
                print(
                    f"{name:6} until {point:5}: {result[f'{name}_{point}']:>14,} instructions  (runs: {counts})"
                )
    finally:
        server.stop()
        subprocess.run([*TMUX, "kill-server"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    for name in programs:
        if name != "bare":
            ratio = result[f"{name}_paint"] / result["bare_paint"]  # type: ignore[operator]
            result[f"{name}_paint_over_bare"] = round(ratio, 2)
            print(f"{name} / bare at the painted list: {ratio:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
