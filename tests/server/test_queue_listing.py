"""The queue listing (A3) is answered from memory while nothing it reads has changed (on SQLite):
every change shows in the very next listing, whoever made it and however, and so does a lease
that lapses with no write at all."""

import time
from datetime import datetime

import pytest

from tests.conftest import make_queue
from tests.support import ROLES_SEED, Organization, ServerProcess
from tests.support.sql import execute_sql

LEASE_SECONDS = 3


def _listed(client, org_id: int, queue_id: int) -> dict:
    found = client.get(f"/orgs/{org_id}/queues")
    assert found.status_code == 200
    return next(q for q in found.json() if q["id"] == queue_id)


def test_every_change_shows_in_the_next_listing(own_org: Organization) -> None:
    admin, worker, org_id = own_org.client(), own_org.client("worker"), own_org.id
    queue = make_queue(admin, org_id, label="listed")
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    assert _listed(admin, org_id, queue["id"])["n_tasks"] == 0
    assert _listed(admin, org_id, queue["id"])["n_tasks"] == 0  # the kept listing, twice
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "one"}}).raise_for_status()
    assert _listed(admin, org_id, queue["id"])["n_tasks"] == 1
    claimed = worker.post(f"{qpath}/tasks/next").json()
    listed = _listed(admin, org_id, queue["id"])
    assert listed["active_users"] == [worker.get("/me").json()["name"]]
    done = worker.post(f"{qpath}/tasks/{claimed['id']}/complete", json={"data": {"category": "red"}})
    assert done.status_code == 200
    listed = _listed(admin, org_id, queue["id"])
    assert (listed["n_tasks"], listed["active_users"]) == (0, [])
    renamed = admin.patch(qpath, json={"name": "listed again"})
    assert renamed.status_code == 200
    assert _listed(admin, org_id, queue["id"])["name"] == "listed again"


def test_a_write_by_another_connection_shows_in_the_next_listing(
    server: ServerProcess, own_org: Organization
) -> None:
    """Another process writing the database (a SQL shell, a second tool): nothing in the server
    saw the write happen."""
    admin, org_id = own_org.client(), own_org.id
    queue = make_queue(admin, org_id, label="written elsewhere")
    assert _listed(admin, org_id, queue["id"])["review_percent"] == 0
    execute_sql(server.db_url, f"UPDATE queues SET review_percent = 7 WHERE id = {queue['id']}")
    assert _listed(admin, org_id, queue["id"])["review_percent"] == 7


@pytest.fixture(scope="module")
def lease_server(tmp_path_factory, backend) -> ServerProcess:
    db = tmp_path_factory.mktemp("listing") / "listing.db"
    process = ServerProcess(
        db, ["--lease-seconds", str(LEASE_SECONDS)], seed=ROLES_SEED, backend=backend
    ).start()
    yield process
    process.stop()


def test_a_lapsed_lease_leaves_the_listing_with_no_write(lease_server: ServerProcess) -> None:
    admin, worker = lease_server.client("admin"), lease_server.client("worker")
    org_id = admin.get("/me").json()["organization_id"]
    queue = make_queue(admin, org_id, label="lapsing")
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "one"}}).raise_for_status()
    claim = worker.post(f"{qpath}/tasks/next").json()
    lapses = datetime.fromisoformat(claim["assignment"]["lease_expires_at"])
    listed = _listed(admin, org_id, queue["id"])  # made while the lease is live, and kept
    assert datetime.now(lapses.tzinfo) < lapses, f"listed after the {LEASE_SECONDS} s lease lapsed"
    assert listed["active_users"] == [worker.get("/me").json()["name"]]
    time.sleep(max(0.0, (lapses - datetime.now(lapses.tzinfo)).total_seconds()) + 0.3)
    assert _listed(admin, org_id, queue["id"])["active_users"] == []
    for client in (admin, worker):
        client.close()
