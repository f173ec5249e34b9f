"""The queue's pending count (`queues.n_tasks`, schema 6) equals a recount of its tasks after every
kind of action, in random sequences, and under concurrent workers."""

import asyncio
import threading

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import CORE_BLOCKS, ServerProcess, query_value


def _recount(server: ServerProcess, queue_id: int) -> int:
    return query_value(
        server.db_url,
        f"SELECT count(*) FROM tasks WHERE queue_id = {queue_id} AND status IN ('new', 'open', 'in_progress')",
    )


def _check(admin: httpx.Client, server: ServerProcess, qpath: str) -> int:
    queue_id = int(qpath.rsplit("/", 1)[1])
    expected = _recount(server, queue_id)
    assert admin.get(qpath).json()["n_tasks"] == expected
    listed = admin.get(qpath.rsplit("/", 1)[0]).json()
    assert next(q["n_tasks"] for q in listed if q["id"] == queue_id) == expected
    assert query_value(server.db_url, f"SELECT n_tasks FROM queues WHERE id = {queue_id}") == expected
    assert admin.get(f"{qpath}/tasks", params={"limit": 1}).json()["count"] == expected  # B2 reads it
    return expected


def _act(action: str, admin: httpx.Client, worker: httpx.Client, qpath: str) -> None:
    if action == "create":
        assert admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}}).status_code == 200
    elif action == "import":
        body = {"source": "manual", "tasks": [{"data": {"paragraph": f"t{i}"}} for i in range(3)]}
        assert admin.post(f"{qpath}/tasks/import", json=body).status_code == 200
    elif action == "claim":
        assert worker.post(f"{qpath}/tasks/next").status_code in (200, 204)
    elif action in ("release", "complete"):
        claim = worker.post(f"{qpath}/tasks/next")
        if claim.status_code == 200:
            task_id = claim.json()["id"]
            if action == "release":
                done = worker.post(f"{qpath}/tasks/{task_id}/release")
            else:
                done = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
            assert done.status_code == 200, done.text
    elif action == "flush":
        assert admin.put(f"{qpath}/flush").status_code == 200


ACTIONS = ["create", "import", "claim", "release", "complete", "flush"]


def test_each_action_keeps_the_count(
    admin: httpx.Client, worker: httpx.Client, server: ServerProcess, qpath: str
) -> None:
    assert _check(admin, server, qpath) == 0
    for action in ["create", "import", "claim", "release", "claim", "complete", "create", "flush", "import"]:
        _act(action, admin, worker, qpath)
        _check(admin, server, qpath)
    assert _check(admin, server, qpath) == 3


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=8))
def test_random_sequences_keep_the_count(
    admin: httpx.Client, worker: httpx.Client, server: ServerProcess, qpath: str, actions: list[str]
) -> None:
    for action in actions:
        _act(action, admin, worker, qpath)
    _check(admin, server, qpath)


def test_concurrent_workers_keep_the_count(
    admin: httpx.Client, worker: httpx.Client, server: ServerProcess, qpath: str
) -> None:
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"t{i}"}} for i in range(40)]}
    assert admin.post(f"{qpath}/tasks/import", json=body).status_code == 200
    errors: list[str] = []

    def work(n: int) -> None:
        for step in range(8):
            action = ["complete", "release", "create", "complete"][(n + step) % 4]
            try:
                _act(action, admin, worker, qpath)
            except AssertionError as exc:  # a race between two threads of the same worker
                errors.append(str(exc))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _check(admin, server, qpath)


def test_creations_arriving_together_are_each_answered_and_counted(
    admin: httpx.Client, server: ServerProcess, qpath: str
) -> None:
    """Creations that arrive at once (written together on SQLite) each get their own task, stored
    with its own values, and each queue's count moves by exactly its own creations."""
    other = admin.post(qpath.rsplit("/", 1)[0], json={"name": "together", "data": CORE_BLOCKS})
    assert other.status_code == 200, other.text
    paths = [qpath, f"{qpath.rsplit('/', 1)[0]}/{other.json()['id']}"]
    before = [_check(admin, server, path) for path in paths]

    async def create_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, headers=admin.headers, timeout=60) as client:
            return await asyncio.gather(
                *(
                    client.post(f"{paths[n % 2]}/tasks/create", json={"data": {"paragraph": f"together {n}"}})
                    for n in range(60)
                )
            )

    answers = asyncio.run(create_all())
    assert [a.status_code for a in answers] == [200] * 60, [a.text for a in answers if a.status_code != 200]
    assert len({a.json()["id"] for a in answers}) == 60
    for n, answer in enumerate(answers):
        assert answer.json()["data"]["paragraph"] == f"together {n}"
        stored = admin.get(f"{paths[n % 2]}/tasks/{answer.json()['id']}")
        assert stored.json()["data"]["paragraph"] == f"together {n}"
    assert [_check(admin, server, path) for path in paths] == [before[0] + 30, before[1] + 30]
