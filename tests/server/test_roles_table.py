"""Every GET of the route table, called as each role, answers as the contract's roles table says.

The table below is the contract's (`Roles` in the API contract), written out by hand: it is what the
route table is checked against, so it never reads the server's own list of allowed roles. A GET
the table does not name fails the test, so a new read is never left unclassified.
"""

import re

import httpx
import pytest

from queuedesk.server.http.route_table import ROUTE_TABLE
from tests.conftest import make_queue

Q = "/orgs/{org}/queues/{queue}"
EVERYONE = ("admin", "supervisor", "worker")
STAFF = ("admin", "supervisor")
ADMIN = ("admin",)

# path -> the roles the contract lets read it. `None`: public.
ROLES_TABLE: dict[str, tuple[str, ...] | str | None] = {
    "/healthz": None,
    "/readyz": None,
    "/metrics": "its own token",  # Part C: the metrics token, never an API key
    "/openapi.json": None,
    "/me": EVERYONE,
    "/orgs/{org}/queues": EVERYONE,
    Q: EVERYONE,
    Q + "/tasks": EVERYONE,  # B2
    Q + "/tasks/completed": STAFF,  # A2; a worker only with completed_by=me (checked apart)
    Q + "/tasks/{task}": STAFF,  # B3; a worker only tasks not completed or completed by them (the
    # walk reads one completed by another worker; the rest is checked apart)
    Q + "/webhook": STAFF,  # A6
    Q + "/webhook/deliveries": STAFF,  # B10
    Q + "/webhook/deliveries/{delivery}": STAFF,
    Q + "/webhook/secret": ADMIN,  # B9
    Q + "/stats": STAFF,  # B15
    Q + "/imports/{import}": ADMIN,  # B18, a part of importing tasks
    Q + "/reviews": STAFF,  # B19; a worker only their own work (checked apart)
    Q + "/gold/answers": STAFF,  # B22; a worker only their own answers (checked apart)
    "/orgs/{org}/users": STAFF,  # B17 list users
    "/orgs/{org}/users/{user}/keys": ADMIN,  # B17, managing keys
    "/orgs/{org}/audit": ADMIN,  # B20
}
ROLES = ("admin", "supervisor", "worker")


def _gets() -> list[str]:
    return sorted({path for spec in ROUTE_TABLE if "GET" in spec.methods for path in spec.paths()})


def _canonical(path: str) -> str:
    return path.replace("/workflows", "/queues", 1)


def test_every_get_of_the_route_table_is_in_the_roles_table() -> None:
    unknown = [path for path in _gets() if _canonical(path) not in ROLES_TABLE]
    assert not unknown, f"GETs the roles table does not name: {unknown}"


@pytest.fixture
def ids(clients: dict[str, httpx.Client], org_id: int) -> dict[str, int]:
    """One of each object a GET can name, in the test's own queue."""
    admin, worker = clients["admin"], clients["worker"]
    queue = make_queue(admin, org_id)["id"]
    base = f"/orgs/{org_id}/queues/{queue}"
    assert admin.put(f"{base}/webhook", json={"target": "http://127.0.0.1:9/hook"}).status_code == 200
    task = admin.post(f"{base}/tasks/create", json={"data": {"paragraph": "p"}}).json()["id"]
    claimed = worker.post(f"{base}/tasks/next").json()
    assert claimed["id"] == task
    done = worker.post(f"{base}/tasks/{task}/complete", json={"data": {"category": "red"}})
    assert done.status_code == 200, done.text
    delivery = admin.get(f"{base}/webhook/deliveries").json()["deliveries"][0]["id"]
    session = admin.post(f"{base}/imports", json={"key": f"roles-{queue}", "source": "manual", "total": 1})
    assert session.status_code == 200, session.text
    user = admin.get(f"/orgs/{org_id}/users").json()[0]["id"]
    return {
        "org": org_id,
        "queue": queue,
        "task": task,
        "delivery": delivery,
        "import": session.json()["id"],
        "user": user,
    }


@pytest.mark.parametrize("role", ROLES)
def test_every_get_answers_each_role_as_the_roles_table_says(
    clients: dict[str, httpx.Client], ids: dict[str, int], role: str
) -> None:
    client = clients["worker2" if role == "worker" else role]  # a worker who did not complete the task
    wrong = []
    for path in _gets():
        allowed = ROLES_TABLE[_canonical(path)]
        url = re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), path)
        status = client.get(url).status_code
        if isinstance(allowed, str):  # behind a token of its own: no API key opens it
            if status in (401, 404):
                continue
            expected = 401
        else:
            expected = 200 if allowed is None or role in allowed else 403
        if status != expected:
            wrong.append((path, status, expected))
    assert not wrong, f"as {role}: (path, got, expected) {wrong}"


def test_a_worker_reads_completed_tasks_only_their_own(
    clients: dict[str, httpx.Client], ids: dict[str, int]
) -> None:
    base = f"/orgs/{ids['org']}/queues/{ids['queue']}"
    completer, other = clients["worker"], clients["worker2"]
    assert completer.get(f"{base}/tasks/{ids['task']}").status_code == 200
    refused = other.get(f"{base}/tasks/{ids['task']}")
    assert refused.status_code == 403, refused.text
    assert set(refused.json()) == {"status_code", "errors"}
    assert completer.get(f"{base}/tasks/completed", params={"completed_by": "me"}).json()["count"] == 1
    assert other.get(f"{base}/tasks/completed", params={"completed_by": "me"}).json()["count"] == 0
    assert other.get(f"{base}/tasks/completed").status_code == 403
    assert other.get(f"{base}/tasks/completed", params={"completed_by": "wes@acme.test"}).status_code == 403


def test_a_worker_reads_a_task_not_completed(clients: dict[str, httpx.Client], ids: dict[str, int]) -> None:
    base = f"/orgs/{ids['org']}/queues/{ids['queue']}"
    pending = clients["admin"].post(f"{base}/tasks/create", json={"data": {"paragraph": "q"}}).json()["id"]
    assert clients["worker2"].get(f"{base}/tasks/{pending}").status_code == 200


def test_a_supervisor_lists_users_without_keys(clients: dict[str, httpx.Client], org_id: int) -> None:
    listed = clients["supervisor"].get(f"/orgs/{org_id}/users")
    assert listed.status_code == 200, listed.text
    assert all("key" not in field for user in listed.json() for field in user), listed.json()
    assert "acme-" not in listed.text
