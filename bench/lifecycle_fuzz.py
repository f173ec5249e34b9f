"""The lifecycle fuzzer's long run (tests/support/lifecycle_fuzz.py says what it does; the short run
is tests/tui/test_lifecycle_fuzz.py): the app as a worker, a supervisor and an admin in turn, an app
per episode, against a real `queuedesk serve` (SQLite) behind a proxy that delays every answer
0-800 ms, until `--transitions` steps were taken or `--minutes` passed. It prints and writes the
transitions per screen, tab and dialog, the events, the places of the app it never reached, and
every traceback or frozen app (the run stops at the first).

    .venv/bin/python bench/lifecycle_fuzz.py --seed 40 --transitions 3000 --minutes 40 \
        --json bench/results/lifecycle_fuzz.json
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QUEUEDESK_DATA_DIR", tempfile.mkdtemp())
os.environ.setdefault("QUEUEDESK_CONFIG", str(Path(tempfile.mkdtemp()) / "config.toml"))
os.environ.setdefault("QUEUEDESK_IMAGE_RENDERER", "halfcell")

import argparse
import asyncio
import json
import random
import time

from tests.support.lifecycle_fuzz import Frozen, Fuzz, every_place, start_environment


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--transitions", type=int, default=3000)
    parser.add_argument("--minutes", type=float, default=40.0)
    parser.add_argument("--delay", type=float, default=0.8, help="the longest delay of an answer (s)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.json is not None:
        args.json = args.json.resolve()
    os.chdir(tempfile.mkdtemp())  # an export (X, enter) writes to the current folder
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print(f"lifecycle fuzz seed {seed}", flush=True)
    started = time.monotonic()
    env = start_environment(Path(tempfile.mkdtemp()), seed, most_delay=args.delay)
    fuzz = Fuzz(env, seed)
    stopped_by = ""
    try:
        await fuzz.run(args.transitions, deadline=started + args.minutes * 60)
    except (Frozen, AssertionError, Exception) as error:  # the report has it; the run stops here
        stopped_by = f"{type(error).__name__}: {str(error)[:2000]}"
    finally:
        env.admin.close()
        env.proxy.stop()
        env.server.stop()
    report = fuzz.report
    print(report.summary(), flush=True)  # first: what the run found stays said whatever follows
    places = every_place()
    never = sorted(places - set(report.transitions))
    print(f"  never reached: {', '.join(never) or 'none'}")
    fewest = min((report.transitions[p] for p in places), default=0)
    print(f"  fewest transitions of a place: {fewest}; minutes: {(time.monotonic() - started) / 60:.1f}")
    if stopped_by:
        print(f"  stopped by {stopped_by}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "seed": seed,
                    "steps": report.steps,
                    "transitions": sum(report.transitions.values()),
                    "per_place": dict(sorted(report.transitions.items())),
                    "events": dict(sorted(report.events.items())),
                    "never_reached": never,
                    "tracebacks": report.tracebacks,
                    "frozen": report.frozen,
                    "minutes": round((time.monotonic() - started) / 60, 1),
                    "load_average": os.getloadavg(),
                },
                indent=2,
            )
        )
    return 1 if report.tracebacks or report.frozen or stopped_by else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
