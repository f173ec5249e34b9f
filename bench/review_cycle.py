"""The server's own review cycle (B19): a supervisor claims the next review and gives its verdict,
one at a time over httpx, beside the worker's claim + complete in the same run.

Every completion is drawn (review 100 %); the queue has a webhook on a loopback receiver, so each
correction and redo writes its event in the verdict's transaction and the dispatcher sends it.
Verdicts: 8 of 10 accept, 1 corrects one value, 1 sends the task to be redone.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench import UNLIMITED
from tests.receiver import Receiver
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess


def _summary(took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[max(int(len(ordered) * 0.95) - 1, 0)] * 1000, 2),
    }


def _client(server: ServerProcess, role: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS[role]}"}, timeout=60)


def complete_all(server: ServerProcess, qpath: str, n: int) -> list[float]:
    """The worker's claim + complete of n tasks: each cycle's seconds (the reference)."""
    took = []
    with _client(server, "worker") as worker:
        for _ in range(n):
            started = time.perf_counter()
            task = worker.post(f"{qpath}/tasks/next").json()
            worker.post(
                f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
            ).raise_for_status()
            took.append(time.perf_counter() - started)
    return took


def review_all(server: ServerProcess, qpath: str) -> dict[str, list[float]]:
    """Claim + verdict until no review is left: seconds of each claim, verdict and both."""
    times: dict[str, list[float]] = {"claim": [], "verdict": [], "cycle": []}
    with _client(server, "supervisor") as supervisor:
        n = 0
        while True:
            started = time.perf_counter()
            claimed = supervisor.post(f"{qpath}/reviews/next")
            if claimed.status_code == 204:
                return times
            claimed.raise_for_status()
            between = time.perf_counter()
            task_id = claimed.json()["id"]
            body: dict[str, object] = {"verdict": "accept"}
            if n % 10 == 8:
                body = {"verdict": "correct", "data": {"category": "blue"}, "note": "blue, not red"}
            elif n % 10 == 9:
                body = {"verdict": "redo", "note": "look again"}
            supervisor.post(f"{qpath}/tasks/{task_id}/review", json=body).raise_for_status()
            done = time.perf_counter()
            times["claim"].append(between - started)
            times["verdict"].append(done - between)
            times["cycle"].append(done - started)
            n += 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reviews", type=int, default=500)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    receiver = Receiver().start()
    db = Path(tempfile.mkdtemp()) / "qd.db"
    server = ServerProcess(
        db, [*UNLIMITED, "--allow-private-webhooks"], seed=ROLES_SEED, backend=args.backend
    ).start()
    try:
        with _client(server, "admin") as admin:
            org = admin.get("/me").json()["organization_id"]
            queue = admin.post(
                f"/orgs/{org}/queues", json={"name": "Reviewed", "data": CORE_BLOCKS, "review_percent": 100}
            ).json()
            qpath = f"/orgs/{org}/queues/{queue['id']}"
            admin.put(f"{qpath}/webhook", json={"target": receiver.url}).raise_for_status()
            items = [{"data": {"paragraph": f"report {n}"}} for n in range(args.reviews)]
            admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": items}).raise_for_status()
        completing = complete_all(server, qpath, args.reviews)
        reviewing = review_all(server, qpath)
        events = len(receiver.wait_for(args.reviews + len(reviewing["cycle"]) // 5, timeout=120))
    finally:
        server.stop()
        receiver.stop()
    result = {
        "backend": args.backend,
        "reviews": len(reviewing["cycle"]),
        "review_claim": _summary(reviewing["claim"]),
        "review_verdict": _summary(reviewing["verdict"]),
        "review_claim_and_verdict": _summary(reviewing["cycle"]),
        "reference_claim_and_complete": _summary(completing),
        "events_received": events,
    }
    for key, value in result.items():
        print(f"{key:30} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
