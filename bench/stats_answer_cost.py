"""What the serving process does with a 7-day stats answer (168 hourly buckets, 20 workers) once a
reader process has worked it out: unpickle it from the pipe, then turn it into JSON. In-process,
no server: the loop's own share of a long read (issue 28, session 15).

    .venv/bin/python bench/stats_answer_cost.py [--rounds 20000]
"""

import argparse
import pickle
import time
from datetime import UTC, datetime

import orjson


def answer() -> dict:
    now = datetime.now(UTC)
    return {
        "since": now,
        "bucket_minutes": 60,
        "completed": [1234] * 168,
        "pending": {"new": 5, "open": 1, "in_progress": 3},
        "by_worker": [
            {
                "email": f"worker{n}@acme.test",
                "name": f"Worker {n}",
                "completed": 50_000,
                "median_seconds": 152,
                "last_completed_at": now,
                "review": {"accepted": 1, "redo": 2},
            }
            for n in range(20)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    args = parser.parse_args()
    pickled = pickle.dumps(answer())
    started = time.perf_counter()
    for _ in range(args.rounds):
        unpickled = pickle.loads(pickled)
    unpickling = (time.perf_counter() - started) / args.rounds
    started = time.perf_counter()
    for _ in range(args.rounds):
        orjson.dumps(unpickled)
    dumping = (time.perf_counter() - started) / args.rounds
    print(f"answer pickled: {len(pickled):,} bytes")
    print(f"unpickle: {unpickling * 1e6:.1f} µs   JSON: {dumping * 1e6:.1f} µs   ({args.rounds:,} rounds)")


if __name__ == "__main__":
    main()
