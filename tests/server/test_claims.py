"""Claims: concurrency, leases, resuming one's own claim, and telling empty from held."""

import threading
import time
from datetime import datetime

import httpx
import pytest

from tests.conftest import make_queue
from tests.support import ROLES_SEED, ServerProcess, run_cli


def _import(admin: httpx.Client, qpath: str, n: int) -> list[int]:
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"task {i}"}} for i in range(n)]}
    response = admin.post(f"{qpath}/tasks/import", json=body)
    assert response.status_code == 200, response.text
    return response.json()["ids"]


def test_eight_workers_complete_every_task_exactly_once(server: ServerProcess, admin, org_id) -> None:
    queue = make_queue(admin, org_id)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    ids = _import(admin, qpath, 300)
    # Eight distinct users: one user's concurrent claims would all resume the same task.
    keys = [new_worker_key(server, f"crowd{i}@acme.test") for i in range(8)]
    completed: list[tuple[str, int]] = []
    lock = threading.Lock()
    errors: list[str] = []

    def work(key: str) -> None:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=30
        ) as client:
            while True:
                claim = client.post(f"{qpath}/tasks/next")
                if claim.status_code == 204:
                    return
                if claim.status_code != 200:
                    errors.append(claim.text)
                    return
                task_id = claim.json()["id"]
                done = client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
                if done.status_code != 200:
                    errors.append(done.text)
                    return
                with lock:
                    completed.append((key, task_id))

    threads = [threading.Thread(target=work, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    done_ids = [task_id for _, task_id in completed]
    assert sorted(done_ids) == sorted(ids)  # every task once, none twice
    assert len({key for key, _ in completed}) > 1  # the work really was shared
    history = admin.get(f"{qpath}/tasks/completed", params={"limit": 1}).json()
    assert history["count"] == 300
    assert admin.get(qpath).json()["n_tasks"] == 0


def new_worker_key(server: ServerProcess, email: str) -> str:
    result = run_cli(
        ["keys", "create", "--db", server.db_url, "--email", email, "--org", "Acme", "--role", "worker"]
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_claim_resumes_own_live_claim(clients, qpath, admin) -> None:
    _import(admin, qpath, 2)
    worker = clients["worker"]
    first = worker.post(f"{qpath}/tasks/next").json()
    again = worker.post(f"{qpath}/tasks/next").json()
    assert again["id"] == first["id"]
    assert again["assignment"]["assigned_to"] == "wes@acme.test"
    other = clients["worker2"].post(f"{qpath}/tasks/next").json()
    assert other["id"] != first["id"]


def test_empty_queue_tells_held_from_empty(clients, qpath, admin) -> None:
    _import(admin, qpath, 1)
    nothing_yet = clients["worker2"].post(f"{qpath}/tasks/next")
    assert nothing_yet.status_code == 200
    empty = clients["worker"].post(f"{qpath}/tasks/next")
    assert empty.status_code == 204
    assert empty.content == b""
    assert empty.headers["X-Tasks-Held"] == "1"
    clients["worker2"].post(f"{qpath}/tasks/{nothing_yet.json()['id']}/release")
    # Released: claimable again, so no 204 for the other worker.
    assert clients["worker"].post(f"{qpath}/tasks/next").status_code == 200
    clients["worker"].post(
        f"{qpath}/tasks/{nothing_yet.json()['id']}/complete", json={"data": {"category": "red"}}
    )
    drained = clients["worker"].post(f"{qpath}/tasks/next")
    assert drained.status_code == 204
    assert drained.headers["X-Tasks-Held"] == "0"


def test_new_tasks_come_before_released_ones(clients, qpath, admin) -> None:
    ids = _import(admin, qpath, 2)
    worker = clients["worker"]
    first = worker.post(f"{qpath}/tasks/next").json()
    assert first["id"] == ids[0]
    worker.post(f"{qpath}/tasks/{ids[0]}/release")
    # The skipped task goes behind the new one, so a skip moves the worker on.
    assert worker.post(f"{qpath}/tasks/next").json()["id"] == ids[1]


@pytest.fixture(scope="module")
def short_lease_server(tmp_path_factory, backend) -> ServerProcess:
    db = tmp_path_factory.mktemp("lease") / "lease.db"
    process = ServerProcess(db, ["--lease-seconds", "1"], seed=ROLES_SEED, backend=backend).start()
    yield process
    process.stop()


def test_expired_lease_makes_task_claimable_again(short_lease_server: ServerProcess) -> None:
    admin = short_lease_server.client("admin")
    worker = short_lease_server.client("worker")
    worker2 = short_lease_server.client("worker2")
    org = admin.get("/me").json()["organization_id"]
    queue = make_queue(admin, org)
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    task_id = _import(admin, qpath, 1)[0]
    claim = worker.post(f"{qpath}/tasks/next").json()
    lease = datetime.fromisoformat(claim["assignment"]["lease_expires_at"])
    assigned = datetime.fromisoformat(claim["assignment"]["assigned_at"])
    assert 0.9 <= (lease - assigned).total_seconds() <= 1.1
    held = worker2.post(f"{qpath}/tasks/next")
    assert held.status_code == 204 and held.headers["X-Tasks-Held"] == "1"
    assert admin.get(f"/orgs/{org}/queues").json()[-1]["active_users"] == ["Wes"]
    time.sleep(1.3)
    assert admin.get(f"/orgs/{org}/queues").json()[-1]["active_users"] == []
    # An expired lease still lets its holder finish while nobody else has claimed the task...
    beat = worker.post(f"{qpath}/tasks/{task_id}/heartbeat")
    assert beat.status_code == 200
    time.sleep(1.3)
    # ...but once expired it is claimable by anyone, and then the old holder is not the assignee.
    taken = worker2.post(f"{qpath}/tasks/next")
    assert taken.status_code == 200 and taken.json()["id"] == task_id
    assert taken.json()["assignment"]["assigned_to"] == "wyn@acme.test"
    late = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
    assert late.status_code == 409 and late.json()["errors"][0]["code"] == "not_assignee"
    assert (
        worker2.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "blue"}}).status_code
        == 200
    )
    for client in (admin, worker, worker2):
        client.close()


def test_expired_claim_completed_by_its_holder(short_lease_server: ServerProcess) -> None:
    admin = short_lease_server.client("admin")
    worker = short_lease_server.client("worker")
    org = admin.get("/me").json()["organization_id"]
    qpath = f"/orgs/{org}/queues/{make_queue(admin, org)['id']}"
    task_id = _import(admin, qpath, 1)[0]
    worker.post(f"{qpath}/tasks/next")
    time.sleep(1.2)
    done = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "green"}})
    assert done.status_code == 200
    assert done.json()["completed_by"] == "wes@acme.test"
    admin.close()
    worker.close()


def test_flush_during_claiming_leaves_no_orphan(server: ServerProcess, admin, org_id) -> None:
    queue = make_queue(admin, org_id)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    _import(admin, qpath, 400)
    keys = [new_worker_key(server, f"flusher{i}@acme.test") for i in range(8)]
    outcomes: dict[int, int] = {}  # task id -> status of its completion
    lock = threading.Lock()

    def work(key: str) -> None:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=30
        ) as client:
            while True:
                claim = client.post(f"{qpath}/tasks/next")
                if claim.status_code == 204:
                    return
                assert claim.status_code == 200, claim.text
                task_id = claim.json()["id"]
                done = client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
                with lock:
                    outcomes[task_id] = done.status_code

    threads = [threading.Thread(target=work, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    while len(outcomes) < 100:
        time.sleep(0.005)
    assert admin.put(f"{qpath}/flush").status_code == 200
    for thread in threads:
        thread.join(timeout=60)
    history = admin.get(f"{qpath}/tasks/completed", params={"limit": 1000}).json()
    completed = {t["id"] for t in history["tasks"]}
    assert set(outcomes.values()) <= {200, 404, 409}, outcomes
    assert completed == {task_id for task_id, status in outcomes.items() if status == 200}
    assert 100 <= len(completed) < 400  # the flush really cut the run short
    assert admin.get(f"{qpath}/tasks").json()["count"] == 0  # nothing left claimed or pending
    assert admin.get(qpath).json()["active_users"] == []
