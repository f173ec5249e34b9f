"""How long the first long read (B2's pending list, a `scan`) takes after `queuedesk serve` starts:
right away, and a few seconds later (once the server has started its reader process), with the
server's and its work processes' memory.

    .venv/bin/python bench/first_long_read.py [--after 0 4]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import make_queue  # noqa: E402
from tests.support import ROLES_SEED, ServerProcess  # noqa: E402


def rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--after", type=float, nargs="+", default=[0.0, 4.0], help="seconds after the start")
    args = parser.parse_args()
    for wait in args.after:
        with tempfile.TemporaryDirectory() as tmp:
            server = ServerProcess(Path(tmp) / "q.db", seed=ROLES_SEED).start()
            assert server.process is not None
            try:
                with server.client("admin") as admin:
                    org = admin.get("/me").json()["organization_id"]
                    path = f"/orgs/{org}/queues/{make_queue(admin, org)['id']}/tasks"
                    time.sleep(wait)
                    took = []
                    for _ in range(2):
                        started = time.perf_counter()
                        admin.get(path).raise_for_status()
                        took.append((time.perf_counter() - started) * 1000)
                    memory = [rss_mb(child) for child in sorted(server.work_processes())]
                    print(
                        f"{wait:g} s after the start: first long read {took[0]:.0f} ms, the next {took[1]:.1f} ms; "
                        f"server RSS {rss_mb(server.process.pid)} MB, its work processes {memory} MB"
                    )
            finally:
                server.stop()


if __name__ == "__main__":
    main()
