"""Whether a niced process beside the server, doing nothing but burn the processor (`cpu`) or walk
through 256 MB of memory (`memory`), moves another organization's read p99. The check that ruled
the machine out when stats held others' reads up (issue 28, session 15): a work process is a niced
process beside the server, so this is what its mere presence costs.

    .venv/bin/python bench/beside_a_hog.py [--kind cpu|memory] [--seconds 3] [--pairs 4]

Each pair: wrk on one connection for `--seconds` with nothing beside the server, then with the hog
(nice 10 and 19 in turn). Prints each pair's p99 and their ratio.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.fairness import wrk_timed  # noqa: E402
from tests.support import KEYS, ROLES_SEED, ServerProcess  # noqa: E402

HOGS = {
    "cpu": "while True: pass",
    "memory": "b = bytearray(256 * 1024 * 1024)\nwhile True:\n    b[::4096] = b[1::4096]",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(HOGS), default="cpu")
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--pairs", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "hog.db", [*UNLIMITED], seed=ROLES_SEED).start()
        try:
            key = KEYS["other_admin"]
            me = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {key}"}).json()
            url = f"{server.url}/orgs/{me['organization_id']}/queues"
            wrk_timed(url, key, 2, None)  # warm up
            for pair in range(args.pairs):
                nice = (10, 19)[pair % 2]
                alone = wrk_timed(url, key, args.seconds, None)
                hog = subprocess.Popen(["nice", "-n", str(nice), sys.executable, "-c", HOGS[args.kind]])
                try:
                    time.sleep(0.3)
                    beside = wrk_timed(url, key, args.seconds, None)
                finally:
                    hog.kill()
                    hog.wait()
                print(
                    f"{args.kind} hog at nice {nice}: alone p99 {alone.p99:.2f} ms (slowest {alone.slowest:.1f}),"
                    f" beside it p99 {beside.p99:.2f} ms (slowest {beside.slowest:.1f}),"
                    f" ratio {beside.p99 / alone.p99:.2f}",
                    flush=True,
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
