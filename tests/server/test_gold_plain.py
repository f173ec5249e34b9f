"""B22 beside plain work, over real HTTP on both databases: a queue that never had a gold share
counts no claims (k starts with the share), a gold claim held when the share goes back to 0 is
still the holder's, and gold holders count as held work (B4's 204 and claim limit, `active_users`)."""

import httpx
import pytest

from queuedesk.server.rules.gold import gold_due
from tests.server.test_gold import gold_queue, make_gold, make_task, user_id
from tests.support import ServerProcess, query_value
from tests.support.contract import body_of


@pytest.fixture
def worker2(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["worker2"]


def counted(server: ServerProcess, queue_id: int) -> int:
    """The claims counted toward the share's k in the queue, all workers together."""
    found = query_value(
        server.db_url, f"SELECT coalesce(sum(claims), 0) FROM gold_claims WHERE queue_id = {queue_id}"
    )
    return int(found or 0)


def answer(client: httpx.Client, qpath: str, task_id: int) -> None:
    body_of(client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}))


def test_k_starts_counting_when_the_queue_gets_a_share(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int
) -> None:
    made, qpath = gold_queue(admin, org_id, 0)
    for i in range(3):  # plain work: nothing is counted
        task_id = make_task(admin, qpath, f"before{i}")
        assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == task_id
        answer(worker, qpath, task_id)
    assert counted(server, made["id"]) == 0
    body_of(admin.patch(qpath, json={"gold_percent": 50}))
    gold_ids = [make_gold(admin, qpath, f"g{i}") for i in range(3)]
    task_ids = [make_task(admin, qpath, f"t{i}") for i in range(5)]
    uid = user_id(admin, org_id, worker)
    golds_left, tasks_left = list(gold_ids), list(task_ids)
    for k in range(len(gold_ids) + len(task_ids)):  # k from 0: the claims before the share are not in it
        due = gold_due(uid, made["id"], k, 50)
        expected = (golds_left if (due and golds_left) or not tasks_left else tasks_left).pop(0)
        assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == expected, (k, due)
        answer(worker, qpath, expected)
    assert counted(server, made["id"]) == len(gold_ids) + len(task_ids)


def test_a_gold_claim_outlives_its_share(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath, category="red")
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == gold_id
    body_of(admin.patch(qpath, json={"gold_percent": 0}))
    task_id = make_task(admin, qpath)
    # The holder gets it back, and answers it as gold; the share being 0, nothing more is counted.
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == gold_id
    before = counted(server, made["id"])
    assert body_of(worker2.post(f"{qpath}/tasks/next"))["id"] == task_id
    assert counted(server, made["id"]) == before
    answer(worker, qpath, gold_id)
    (scored,) = body_of(admin.get(f"{qpath}/gold/answers"))["answers"]
    assert scored["task_id"] == gold_id and scored["correct"] is True
    assert body_of(admin.get(f"{qpath}/tasks/{gold_id}"))["status"] == "open"
    # No share: the gold task is served to nobody else.
    answer(worker2, qpath, task_id)
    assert worker2.post(f"{qpath}/tasks/next").status_code == 204


def test_gold_holders_are_held_work(
    admin: httpx.Client, worker: httpx.Client, worker2: httpx.Client, org_id: int
) -> None:
    made, qpath = gold_queue(admin, org_id, 50)
    gold_id = make_gold(admin, qpath)
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == gold_id
    name = body_of(worker.get("/me"))["name"]
    # B4's 204 counts the gold task among those others hold; the worker on it is active.
    nothing = worker2.post(f"{qpath}/tasks/next")
    assert nothing.status_code == 204 and nothing.headers["X-Tasks-Held"] == "1"
    assert body_of(admin.get(qpath))["active_users"] == [name]
    listed = next(q for q in body_of(admin.get(f"/orgs/{org_id}/queues")) if q["id"] == made["id"])
    assert listed["active_users"] == [name]
    # Claiming ahead: the live gold claim is one of the three.
    first, second, _third = (make_task(admin, qpath, f"t{i}") for i in range(3))
    assert body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [gold_id]}))["id"] == first
    assert body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [gold_id, first]}))["id"] == second
    full = worker.post(f"{qpath}/tasks/next", json={"exclude": [gold_id, first, second]})
    assert full.status_code == 409 and full.json()["errors"][0]["code"] == "claim_limit"
    assert str(gold_id) in full.json()["errors"][0]["message"]
    # Answered, the gold claim no longer counts: a third task is claimed ahead.
    answer(worker, qpath, gold_id)
    assert body_of(worker.post(f"{qpath}/tasks/next", json={"exclude": [first, second]}))["id"] == _third
    assert body_of(admin.get(qpath))["active_users"] == [name]
