"""This checkout's server against another revision's, side by side on the same machine in one run.

REV (any git revision, e.g. `cec24a6` or the last landed main) is built once into a scratch virtual
environment (`git archive` of REV, a venv, `pip install '.[server]'` with this environment's library
versions as constraints, so that only QueueDesk's own code differs), cached under `--cache`. Both
servers start on a fresh SQLite database each with the same seed and the rate limit off; each gets
100 queues, one with 100,000 completed tasks and one with `--pending` new tasks (filled by each
revision's own `tests/fill.py`). Then wrk runs every scenario against each server in turn, the
order swapped every round, for `--rounds` rounds; the floor app (`bench/floor.py`) runs beside the
create scenario. Each figure is the median over the rounds with its spread (lowest-highest), printed
as now / REV; beside each, the server's CPU time per request (user + system of its process, divided
by wrk's request count), which the shared machine's load moves less than the request rate.

    .venv/bin/python bench/compare.py cec24a6 [--rounds 5] [--duration 5] [--connections 16]
        [--pending 1000000] [--json bench/results/compare.json]
    .venv/bin/python bench/compare.py 45c8d9b 95abda4      # several revisions, all in each round

With several revisions every round runs each of them, the order turned by one every round. Then
the app's two figures (leave them out with `--no-app`): the worker's submit → next task painted
(`bench/tui_work.py --tasks --app-tasks`, each revision's own copy of the script on its own code,
in this environment, one run each a round, the order turned as above) and the start to the first
painted queue list beside a bare Textual app (`bench/tui_start.py --runs ROUNDS` with each
revision's `src` as a `--before-src`, its rounds interleaved in the same way).

Needs `wrk` (Debian: apt-get install wrk) and, for the start, tmux.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.http_load import start_floor  # noqa: E402
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, free_port  # noqa: E402

LUA = Path(__file__).parent / "lua"
COMPLETED = 100_000
WORKERS = 64  # worker keys in the seed; the worker cycle uses one per connection
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

FILL = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.fill import fill_completed, fill_new
url, history, work, completed, pending = sys.argv[2:]
fill_completed(url, int(history), int(completed), "wes@acme.test",
               lambda n: {"paragraph": f"done {n}", "category": "red", "photo": None})
fill_new(url, int(work), int(pending), lambda n: {"paragraph": f"todo {n}", "category": None, "photo": None})
"""


@dataclass
class Scenario:
    name: str
    script: str
    path: str  # formatted with the queues' paths; the worker cycle gets the base URL
    per_connection_thread: bool = False  # the worker cycle: one wrk thread (one worker) per connection


SCENARIOS = [
    Scenario("create", "create.lua", "{work}/tasks/create"),
    Scenario("list completed", "get.lua", "{history}/tasks/completed?limit=50&offset=0"),
    # B2 (a long read: since session 14 in a reader process); 404 on revisions before B2.
    Scenario("list pending", "get.lua", "{work}/tasks?limit=50&offset=0"),
    Scenario("list queues", "get.lua", "/orgs/1/queues"),
    Scenario("/me", "get.lua", "/me"),
    Scenario("worker cycle", "worker.lua", "", per_connection_thread=True),
]


@dataclass
class Target:
    name: str
    python: str
    tree: Path  # the source tree whose tests/fill.py fills its database
    url: str = ""
    pid: int = 0
    history: str = ""
    work: str = ""
    process: subprocess.Popen[str] | None = None
    fill: subprocess.Popen[bytes] | None = None


@dataclass
class Run:
    round: int
    scenario: str
    target: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    cpu_us_per_request: float | None
    tasks_per_second: float | None = None
    load_average: float = 0.0


@dataclass
class Summary:
    scenario: str
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)


# --- building REV ------------------------------------------------------------------------------------


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def build(rev: str, cache: Path) -> Target:
    """REV's tree and a venv with it installed, built once per commit and kept under `cache`."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    home = cache / sha[:12]
    tree, venv = home / "tree", home / "venv"
    python = venv / "bin" / "python"
    if (home / "ready").exists():
        print(f"{rev}: {sha[:12]} from the cache ({home})", flush=True)
        return Target(rev, str(python), tree)
    print(f"{rev}: building {sha[:12]} in {home} (once)", flush=True)
    shutil.rmtree(home, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", sha], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    constraints = home / "constraints.txt"
    constraints.write_text("\n".join(line for line in frozen.splitlines() if "queuedesk" not in line) + "\n")
    install = [str(python), "-m", "pip", "install", "-q", f"{tree}[server]"]
    if subprocess.run([*install, "-c", str(constraints)]).returncode != 0:
        print(f"{rev}: this environment's versions do not fit its requirements; its own instead", flush=True)
        subprocess.run(install, check=True)
    (home / "ready").write_text(sha + "\n")
    return Target(rev, str(python), tree)


# --- the servers -------------------------------------------------------------------------------------


def seed() -> dict[str, Any]:
    """The tests' seed with a worker (and key) per worker-cycle connection."""
    made = json.loads(json.dumps(ROLES_SEED))
    made["organizations"][0]["users"] += [
        {"email": f"bench{n}@acme.test", "name": f"Bench {n}", "role": "worker", "api_key": worker_key(n)}
        for n in range(WORKERS)
    ]
    return made


def worker_key(n: int) -> str:
    return f"bench-worker-{n:02d}-0123456789abcdef"


def limits_off(python: str) -> list[str]:
    shown = subprocess.run([python, "-m", "queuedesk", "serve", "--help"], capture_output=True, text=True)
    return list(UNLIMITED) if "--rate-limit" in shown.stdout else []


def start(target: Target, directory: Path, pending: int) -> None:
    home = directory / target.name.replace("/", "_")
    home.mkdir()
    seed_file = home / "seed.json"
    seed_file.write_text(json.dumps(seed()))
    db_url = f"sqlite:///{home / 'queuedesk.db'}"
    port = free_port()
    command = [target.python, "-m", "queuedesk", "serve", "--db", db_url, "--port", str(port)]
    command += ["--seed", str(seed_file), *limits_off(target.python)]
    log = (home / "serve.log").open("w")
    target.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True, cwd=home)
    target.url, target.pid = f"http://127.0.0.1:{port}", target.process.pid
    deadline = time.monotonic() + 120
    while True:
        if target.process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(
                f"{target.name}: the server did not start:\n{(home / 'serve.log').read_text()}"
            )
        try:
            if httpx.get(f"{target.url}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    with httpx.Client(base_url=target.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:

        def queue(name: str) -> int:
            made = admin.post("/orgs/1/queues", json={"name": name, "data": CORE_BLOCKS})
            made.raise_for_status()
            return int(made.json()["id"])

        history, work = queue("history"), queue("work")
        for n in range(98):  # 100 queues in all
            queue(f"other {n}")
    target.history, target.work = f"/orgs/1/queues/{history}", f"/orgs/1/queues/{work}"
    target.fill = subprocess.Popen(
        [
            target.python,
            "-c",
            FILL,
            str(target.tree),
            db_url,
            str(history),
            str(work),
            str(COMPLETED),
            str(pending),
        ],
        cwd=home,
    )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


# --- wrk ---------------------------------------------------------------------------------------------


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(target: Target, scenario: Scenario, connections: int, duration: float) -> dict[str, Any]:
    url = target.url + scenario.path.format(history=target.history, work=target.work)
    threads = connections if scenario.per_connection_thread else 1
    env = {
        **os.environ,
        "QD_KEY": KEYS["admin"],
        "QD_KEYS": ",".join(worker_key(n) for n in range(connections)),
        "QD_QUEUE": target.work,
    }
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration:g}s", "--latency"]
    command += ["-s", str(LUA / scenario.script), url]
    cpu = cpu_seconds(target.pid) if target.pid else None
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    spent = cpu_seconds(target.pid) - cpu if cpu is not None else None
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed on {url}: {done.stdout}{done.stderr}")
    out = done.stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    worker = re.search(r"WORKER completed=(\d+) claimed=(\d+) empty=(\d+) failed=(\d+)", out)
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50": _ms(latency["50"]),
        "p99": _ms(latency["99"]),
        "errors": (int(non_2xx.group(1)) if non_2xx else 0)
        + (sum(map(int, sockets.groups())) if sockets else 0)
        + (int(worker.group(4)) if worker else 0),
        "cpu_us": round(spent / requests * 1e6, 1) if spent is not None and requests else None,
        "tasks_per_second": round(int(worker.group(1)) / duration, 1) if worker else None,
    }


def turned(targets: list[Target], round_: int) -> list[Target]:
    """Round 1 in the given order, then each round begun by the next target (two: swapped)."""
    shift = (round_ - 1) % len(targets)
    return targets[shift:] + targets[:shift]


# --- the app: submit → next, start -------------------------------------------------------------------


def app_work(target: Target, tasks: int) -> dict[str, Any]:
    """One `bench/tui_work.py` run: the target's own copy of the script on the target's own code, in
    this environment (whose libraries the scratch builds share; it has the tests' support)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = {**os.environ, "PYTHONPATH": str(target.tree / "src")}
        command = [sys.executable, str(target.tree / "bench" / "tui_work.py"), "--tasks", str(tasks)]
        done = subprocess.run([*command, "--json", out.name], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"{target.name}: tui_work failed:\n{done.stdout}{done.stderr[-3000:]}")
        got: dict[str, Any] = json.loads(Path(out.name).read_text())
    return got


def app_start(targets: list[Target], rounds: int) -> dict[str, Any]:
    """`bench/tui_start.py`: this checkout's app, the bare app and each other target's code, in turn."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sys.executable, str(ROOT / "bench" / "tui_start.py"), "--runs", str(rounds)]
        for target in targets:
            command += ["--before-src", str(target.tree / "src")]
        done = subprocess.run([*command, "--json", out.name], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"tui_start failed:\n{done.stdout}{done.stderr[-3000:]}")
        got: dict[str, Any] = json.loads(Path(out.name).read_text())
    starts = {"now": got["app_s"], "bare": got["bare_s"]}
    cpu = {"now": got["app_cpu_s"], "bare": got["bare_cpu_s"]}
    for target in targets:
        before = got["befores"][str(target.tree / "src")]
        starts[target.name], cpu[target.name] = before["before_s"], before["before_cpu_s"]
    return {"seconds": starts, "cpu_seconds": cpu, "load_1min": got["load_1min"]}


def app_figures(targets: list[Target], rounds: int, tasks: int) -> dict[str, Any]:
    """Submit → next per target and round (medians and p95 of each run), then the starts."""
    print(
        f"\n{'round':5} {'app: submit -> next':22} {'target':8} {'median ms':>9} {'p95 ms':>7} load",
        flush=True,
    )
    work: dict[str, list[dict[str, Any]]] = {t.name: [] for t in targets}
    for round_ in range(1, rounds + 1):
        for target in turned(targets, round_):
            got = app_work(target, tasks)
            got["load_average"] = round(os.getloadavg()[0], 2)
            work[target.name].append(got)
            print(
                f"{round_:<5} {'':22} {target.name:8} {got['submit_to_next_median_ms']:9.1f} "
                f"{got['submit_to_next_p95_ms']:7.1f} {got['load_average']:.1f}",
                flush=True,
            )
    start = app_start([t for t in targets if t.name != "now"], rounds)
    return {"submit_to_next": work, "start": start}


def print_app(app: dict[str, Any], now: str, revs: list[str]) -> dict[str, Any]:
    work, starts = app["submit_to_next"], app["start"]["seconds"]

    def medians(name: str, key: str) -> list[float]:
        return [run[key] for run in work[name]]

    ratios: dict[str, Any] = {}
    print(f"\n{'the app':28} {'now':30} " + " ".join(f"{rev:30}" for rev in revs))
    for key, label in (
        ("submit_to_next_median_ms", "submit -> next, median ms"),
        ("submit_to_next_p95_ms", "submit -> next, p95 ms"),
    ):
        cells = []
        for name in (now, *revs):
            values = medians(name, key)
            cells.append(f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})")
        print(f"{label:28} " + " ".join(f"{cell:30}" for cell in cells))
    for rev in revs:
        # the rate's ratio: now is faster when the reference's milliseconds are more
        median_ratio = [
            round(b / a, 3)
            for a, b in zip(
                medians(now, "submit_to_next_median_ms"),
                medians(rev, "submit_to_next_median_ms"),
                strict=True,
            )
        ]
        p95_share = [
            round(a / b, 3)
            for a, b in zip(
                medians(now, "submit_to_next_p95_ms"), medians(rev, "submit_to_next_p95_ms"), strict=True
            )
        ]
        ratios[f"submit_to_next vs {rev}"] = {
            "speed_per_round": median_ratio,
            "p95_now_over_rev_per_round": p95_share,
        }
        print(
            f"submit -> next vs {rev}: now {statistics.median(median_ratio):.2f}x as fast at the median "
            f"(per round {min(median_ratio):.2f}-{max(median_ratio):.2f}); p95 now / {rev} "
            f"{statistics.median(p95_share):.2f} (per round {min(p95_share):.2f}-{max(p95_share):.2f})"
        )
    bare = starts["bare"]
    cells = []
    for name in (now, *revs, "bare"):
        values = starts[name]
        over = [round(a - b, 3) for a, b in zip(values, bare, strict=True)]
        ratios[f"start {name}"] = {"seconds": values, "over_bare_per_round": over}
        extra = (
            ""
            if name == "bare"
            else f", over bare {statistics.median(over):+.3f} s ({min(over):+.3f} to {max(over):+.3f})"
        )
        cells.append(f"{name} {statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f}){extra}")
    print("start -> first painted list: " + "; ".join(cells))
    cpu = app["start"].get("cpu_seconds")
    if cpu:  # the CPU the start took until the list was painted: the machine's load moves it less
        shown = [
            f"{name} {statistics.median(cpu[name]):.3f} s"
            + (
                ""
                if name == "bare"
                else f" ({statistics.median(cpu[name]) - statistics.median(cpu['bare']):+.3f})"
            )
            for name in (now, *revs, "bare")
        ]
        print("  CPU until then, median (over bare): " + "; ".join(shown))
    print(f"load average (1 min) around the starts: {app['start']['load_1min']}")
    return ratios


# --- the report --------------------------------------------------------------------------------------


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "low": min(values), "high": max(values)}


def summarize(runs: list[Run], names: list[str]) -> list[Summary]:
    summaries = []
    for scenario in SCENARIOS:
        summary = Summary(scenario.name)
        for name in names:
            mine = [r for r in runs if r.scenario == scenario.name and r.target == name]
            if not mine:
                continue
            per_second = [r.tasks_per_second or r.requests_per_second for r in mine]
            cpu = [r.cpu_us_per_request for r in mine if r.cpu_us_per_request is not None]
            summary.figures[name] = {
                "per_second": spread(per_second),
                "cpu_us_per_request": spread(cpu) if cpu else None,
                "p50_ms": round(statistics.median(r.p50_ms for r in mine), 2),
                "p99_ms": round(statistics.median(r.p99_ms for r in mine), 2),
                "errors": sum(r.errors for r in mine),
            }
        summaries.append(summary)
    return summaries


def paired_ratios(runs: list[Run], scenario: str, a: str, b: str) -> list[float]:
    """a / b per round (the two ran back to back)."""
    ratios = []
    for round_ in sorted({r.round for r in runs}):
        one = [r for r in runs if r.round == round_ and r.scenario == scenario]
        x = next((r for r in one if r.target == a), None)
        y = next((r for r in one if r.target == b), None)
        if x and y:
            ratios.append(
                _ratio(
                    x.tasks_per_second or x.requests_per_second, y.tasks_per_second or y.requests_per_second
                )
            )
    return ratios


def _ratio(a: float, b: float) -> float:
    """a / b; infinite when b is 0 (a run in which wrk saw no answer within its 2 s)."""
    return round(a / b, 3) if b else float("inf")


def print_table(summaries: list[Summary], runs: list[Run], now: str, rev: str) -> dict[str, Any]:
    def figure(f: dict[str, Any]) -> str:
        s = f["per_second"]
        cpu = f["cpu_us_per_request"]
        cpu_text = f", {cpu['median']:.0f} µs CPU/req" if cpu else ""
        return f"{s['median']:,.0f} ({s['low']:,.0f}-{s['high']:,.0f}){cpu_text}"

    ratios: dict[str, Any] = {}
    print(f"\n{'scenario':20} {'now: median (low-high)':42} {rev + ': median (low-high)':42} now / {rev}")
    for summary in summaries:
        mine, theirs = summary.figures.get(now), summary.figures.get(rev)
        if not mine or not theirs:
            continue
        ratio = _ratio(mine["per_second"]["median"], theirs["per_second"]["median"])
        paired = paired_ratios(runs, summary.scenario, now, rev)
        cpu_ratio = None
        if mine["cpu_us_per_request"] and theirs["cpu_us_per_request"]:
            cpu_ratio = round(
                theirs["cpu_us_per_request"]["median"] / mine["cpu_us_per_request"]["median"], 3
            )
        ratios[summary.scenario] = {"median_ratio": round(ratio, 3), "paired": paired, "cpu_ratio": cpu_ratio}
        unit = " tasks/s" if summary.scenario == "worker cycle" else ""
        print(
            f"{summary.scenario + unit:20} {figure(mine):42} {figure(theirs):42} {ratio:.2f}x"
            f" (per round {min(paired):.2f}-{max(paired):.2f}; by CPU/req {cpu_ratio}x)"
        )
        floor = summary.figures.get("floor")
        if floor:
            share_now = _ratio(mine["per_second"]["median"], floor["per_second"]["median"])
            share_rev = _ratio(theirs["per_second"]["median"], floor["per_second"]["median"])
            ratios[summary.scenario]["share_of_floor"] = {now: round(share_now, 3), rev: round(share_rev, 3)}
            print(
                f"{'':20} floor {figure(floor)}: now at {share_now:.0%} of the floor, {rev} at {share_rev:.0%}"
                f" (per round now {min(paired_ratios(runs, summary.scenario, now, 'floor')):.2f}-"
                f"{max(paired_ratios(runs, summary.scenario, now, 'floor')):.2f})"
            )
    queues = {s.scenario: s for s in summaries}
    for name in (now, rev):
        listing = queues["list queues"].figures.get(name)
        me = queues["/me"].figures.get(name)
        if listing and me:
            share = _ratio(listing["per_second"]["median"], me["per_second"]["median"])
            ratios.setdefault("list queues / me", {})[name] = round(share, 3)
            print(f"list queues / /me for {name}: {share:.2f}x")
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "revs", nargs="+", metavar="rev", help="the git revisions to compare with (e.g. cec24a6)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--duration", type=float, default=5, help="seconds per wrk run (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--pending", type=int, default=1_000_000, help="new tasks in the work queue")
    parser.add_argument(
        "--only", help="only the scenarios whose name contains one of these (comma-separated)"
    )
    parser.add_argument("--no-floor", action="store_true", help="leave the floor app out")
    parser.add_argument("--no-app", action="store_true", help="leave the app's figures out")
    parser.add_argument("--app-tasks", type=int, default=60, help="tasks per tui_work run (default 60)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "queuedesk-compare")
    parser.add_argument("--json", type=Path, help="also write every run and the summary to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    if args.connections > WORKERS:
        sys.exit(f"at most {WORKERS} connections (one worker key each)")
    head = git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no", "src") else ""
    now = Target("now", sys.executable, ROOT)
    revs = [build(rev, args.cache) for rev in args.revs]
    scenarios = [
        s for s in SCENARIOS if not args.only or any(part in s.name for part in args.only.split(","))
    ]
    runs: list[Run] = []
    load_before = os.getloadavg()
    shown = "; ".join(f"{rev} = {git('rev-parse', '--short', rev)}" for rev in args.revs)
    print(f"now = {head}{dirty}; {shown}", flush=True)
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        targets = [now, *revs]
        floor_process = None
        try:
            for target in targets:
                start(target, directory, args.pending)
            for target in targets:
                if target.fill is not None and target.fill.wait() != 0:
                    raise RuntimeError(f"{target.name}: filling the database failed")
            floor = None
            if not args.no_floor and any(s.name == "create" for s in scenarios):
                floor_process, floor_url = start_floor(directory)
                floor = Target("floor", sys.executable, ROOT, floor_url, floor_process.pid)
                floor.history = floor.work = "/orgs/1/queues/1"
            for target in targets:  # warm both up, unmeasured
                for scenario in scenarios:
                    if not scenario.per_connection_thread:
                        wrk(target, scenario, args.connections, 1)
            print(
                f"{'round':5} {'scenario':16} {'target':8} {'req/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
                f"{'CPU µs/req':>10} {'errors':>6} load",
                flush=True,
            )
            for round_ in range(1, args.rounds + 1):
                order = turned(targets, round_)
                for scenario in scenarios:
                    for target in (*order, floor) if floor and scenario.name == "create" else order:
                        if target is None:
                            continue
                        got = wrk(target, scenario, args.connections, args.duration)
                        run = Run(
                            round_,
                            scenario.name,
                            target.name,
                            got["rps"],
                            round(got["p50"], 2),
                            round(got["p99"], 2),
                            got["errors"],
                            got["cpu_us"],
                            got["tasks_per_second"],
                            round(os.getloadavg()[0], 2),
                        )
                        runs.append(run)
                        tasks = f"  {run.tasks_per_second:,.0f} tasks/s" if run.tasks_per_second else ""
                        print(
                            f"{round_:<5} {scenario.name:16} {target.name:8} {run.requests_per_second:9,.0f} "
                            f"{run.p50_ms:7.2f} {run.p99_ms:7.2f} {run.cpu_us_per_request or 0:10.0f} "
                            f"{run.errors:6} {run.load_average:.1f}{tasks}",
                            flush=True,
                        )
        finally:
            for target in targets:
                if target.process is not None:
                    target.process.terminate()
                    target.process.wait(timeout=30)
            if floor_process is not None:
                floor_process.terminate()
                floor_process.wait(timeout=30)
    app = None if args.no_app else app_figures([now, *revs], args.rounds, args.app_tasks)
    load_after = os.getloadavg()
    summaries = summarize(runs, ["now", *args.revs, "floor"])
    ratios = {rev: print_table(summaries, runs, "now", rev) for rev in args.revs}
    if app is not None:
        ratios["app"] = print_app(app, "now", args.revs)
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "now": head + dirty,
            "revs": args.revs,
            "rounds": args.rounds,
            "duration_seconds": args.duration,
            "connections": args.connections,
            "pending": args.pending,
            "load_average_before": load_before,
            "load_average_after": load_after,
            "summary": [asdict(s) for s in summaries],
            "ratios": ratios,
            "runs": [asdict(r) for r in runs],
            "app": app,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
