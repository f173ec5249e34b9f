"""Consensus (B21) exactly once across two servers: two `queuedesk serve` on one PostgreSQL database,
16 workers answering one consensus queue (answers 2, max 3) of 2,000 tasks as fast as they can,
each worker on one of the two servers. Most answers agree; some do not, so tasks settle at the
second or third answer or are disputed.

Counts at the end, from the database and a local webhook receiver: every task settled or disputed
exactly once, no worker answered a task twice (and none was refused as already answered: a worker
is never given a task they answered), one completion event per settled task and none for a
disputed one.

    .venv/bin/python bench/consensus_race.py [--tasks 2000] [--workers 16] [--json FILE]
"""

import argparse
import collections
import copy
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench import UNLIMITED
from tests.receiver import Receiver
from tests.support import ROLES_SEED, ServerProcess
from tests.support.loopback import loopback_client
from tests.support.postgres import drop_databases
from tests.support.sql import query_value

OPTIONS = ["red", "blue", "green"]
BLOCKS = [
    {"id": "text", "name": "Text", "type": "text", "text": {"read_only": True}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {"is_required": True, "options": [{"id": o, "name": o} for o in OPTIONS]},
    },
]


def _seed(workers: int) -> dict[str, Any]:
    seed = copy.deepcopy(ROLES_SEED)
    users = seed["organizations"][0]["users"]
    for n in range(workers):
        users.append(
            {
                "email": f"racer{n}@acme.test",
                "name": f"Racer {n}",
                "role": "worker",
                "api_key": f"acme-racer-{n:04d}-0123456789",
            }
        )
    return seed


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers = 0
        self.refused: collections.Counter[str] = collections.Counter()
        self.answered: collections.Counter[tuple[int, int]] = collections.Counter()


def work(url: str, n: int, qpath: str, tally: Tally, agree: float) -> None:
    rng = random.Random(n)
    with loopback_client(
        url, headers={"Authorization": f"Token acme-racer-{n:04d}-0123456789"}, timeout=60
    ) as client:
        while True:
            claimed = client.post(f"{qpath}/tasks/next")
            if claimed.status_code == 204:
                if claimed.headers["X-Tasks-Held"] == "0":
                    return
                time.sleep(0.005)  # others hold tasks this worker may still answer
                continue
            claimed.raise_for_status()
            task_id = claimed.json()["id"]
            choice = "red" if rng.random() < agree else rng.choice(OPTIONS)
            done = client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": choice}})
            with tally.lock:
                if done.status_code == 200:
                    tally.answers += 1
                    tally.answered[(task_id, n)] += 1
                else:
                    tally.refused[done.json()["errors"][0]["code"]] += 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--agree", type=float, default=0.8, help="the share of answers that say 'red'")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    receiver = Receiver().start()
    where = Path(tempfile.mkdtemp())
    first = ServerProcess(
        where / "a.db",
        [*UNLIMITED, "--allow-private-webhooks"],
        seed=_seed(args.workers),
        backend="postgresql",
    ).start()
    second = ServerProcess(
        where / "b.db",
        [*UNLIMITED, "--allow-private-webhooks"],
        backend="postgresql",
        database_url=first.db_url,
    ).start()
    try:
        with first.client("admin") as admin:
            org = admin.get("/me").json()["organization_id"]
            made = admin.post(
                f"/orgs/{org}/queues",
                json={"name": "Race", "data": BLOCKS, "consensus": {"answers": 2, "max_answers": 3}},
            )
            made.raise_for_status()
            queue_id = made.json()["id"]
            qpath = f"/orgs/{org}/queues/{queue_id}"
            admin.put(f"{qpath}/webhook", json={"target": receiver.url}).raise_for_status()
            items = [{"data": {"text": f"report {n}"}} for n in range(args.tasks)]
            admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": items}).raise_for_status()
        tally = Tally()
        started = time.monotonic()
        threads = [
            threading.Thread(target=work, args=((first, second)[n % 2].url, n, qpath, tally, args.agree))
            for n in range(args.workers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - started
        db = first.db_url

        def value(sql: str) -> int:
            return int(query_value(db, sql) or 0)

        settled = value(
            f"SELECT count(*) FROM consensus_tasks WHERE queue_id = {queue_id} AND state = 'settled'"
        )
        disputed = value(
            f"SELECT count(*) FROM consensus_tasks WHERE queue_id = {queue_id} AND state = 'disputed'"
        )
        completed = value(f"SELECT count(*) FROM tasks WHERE queue_id = {queue_id} AND status = 'completed'")
        pending = value(f"SELECT count(*) FROM tasks WHERE queue_id = {queue_id} AND status <> 'completed'")
        twice = value(
            f"SELECT count(*) FROM (SELECT task_id, worker_id FROM task_answers WHERE queue_id = {queue_id} "
            "GROUP BY task_id, worker_id HAVING count(*) > 1) d"
        )
        stored_answers = value(f"SELECT count(*) FROM task_answers WHERE queue_id = {queue_id}")
        queued_events = value(f"SELECT count(*) FROM deliveries WHERE queue_id = {queue_id}")
        events = receiver.wait_for(settled, timeout=120)
        time.sleep(1)  # a duplicate would arrive after the count was reached
        per_task = collections.Counter(json.loads(event.body)["id"] for event in receiver.received)
    finally:
        second.stop()
        first.stop()
        receiver.stop()
        drop_databases()
    result = {
        "tasks": args.tasks,
        "workers": args.workers,
        "seconds": round(took, 2),
        "answers": tally.answers,
        "answers_per_second": round(tally.answers / took, 1),
        "answers_stored": stored_answers,
        "settled": settled,
        "disputed": disputed,
        "settled_or_disputed": settled + disputed,
        "completed_tasks": completed,
        "pending_tasks": pending,
        "worker_task_pairs_answered_twice": twice,
        "answers_refused": dict(tally.refused),
        "events_queued": queued_events,
        "events_received": len(receiver.received),
        "tasks_with_one_event": sum(1 for n in per_task.values() if n == 1),
        "tasks_with_more_events": sum(1 for n in per_task.values() if n > 1),
        "events_waited_for": len(events),
    }
    result["ok"] = (
        settled + disputed == args.tasks
        and completed == settled
        and twice == 0
        and not tally.refused
        and stored_answers == tally.answers
        and queued_events == settled
        and result["tasks_with_one_event"] == settled
        and result["tasks_with_more_events"] == 0
    )
    for key, item in result.items():
        print(f"{key:34} {item}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
