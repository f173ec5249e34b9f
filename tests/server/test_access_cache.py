"""What a server remembers about keys and queues never outlives a change, whoever makes it.

Each test first makes the server read (and so remember) a key or a queue, then changes it — through
the API, through `queuedesk keys`, or with SQL from another connection — and checks that the very
next request sees the change.
"""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from queuedesk.server.access_cache import AccessCache
from queuedesk.server.store.records import Principal
from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess, assert_envelope, execute_sql, query_value


@pytest.fixture
def server(tmp_path: Path, backend: str) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path / "cache.db", ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend
    ).start()
    yield process
    process.stop()


def _queue(admin: httpx.Client) -> str:
    made = admin.post("/orgs/1/queues", json={"name": "Cached", "data": CORE_BLOCKS})
    assert made.status_code == 200, made.text
    return f"/orgs/1/queues/{made.json()['id']}"


def test_a_role_changed_by_another_connection_counts_on_the_next_request(server: ServerProcess) -> None:
    with server.client("worker") as worker, server.client("admin") as admin:
        path = _queue(admin)
        assert worker.get("/me").json()["role"] == "worker"
        assert_envelope(worker.post(f"{path}/tasks/create", json={"data": {"category": "red"}}), 403)

        execute_sql(server.db_url, "UPDATE users SET role = 'admin' WHERE email = 'wes@acme.test'")

        assert worker.get("/me").json()["role"] == "admin"
        assert worker.post(f"{path}/tasks/create", json={"data": {"category": "red"}}).status_code == 200


def test_a_key_deleted_or_an_organization_renamed_elsewhere_counts_at_once(server: ServerProcess) -> None:
    with server.client("worker") as worker, server.client("admin") as admin:
        assert worker.get("/me").status_code == 200
        assert admin.get("/me").json()["organization"] == "Acme"

        execute_sql(server.db_url, "UPDATE organizations SET name = 'Acme Renamed' WHERE name = 'Acme'")
        assert admin.get("/me").json()["organization"] == "Acme Renamed"

        execute_sql(
            server.db_url,
            "DELETE FROM api_keys WHERE user_id = (SELECT id FROM users WHERE email = 'wes@acme.test')",
        )
        assert_envelope(worker.get("/me"), 401, "invalid_token")
        assert admin.get("/me").status_code == 200


def test_a_queue_reshaped_through_the_api_validates_new_tasks_by_its_new_blocks(
    server: ServerProcess,
) -> None:
    with server.client("admin") as admin:
        path = _queue(admin)
        assert admin.post(f"{path}/tasks/create", json={"data": {"category": "green"}}).status_code == 200

        fewer = [{**CORE_BLOCKS[1], "single_selection": {"options": [{"id": "red", "name": "Red"}]}}]
        assert admin.patch(path, json={"data": fewer}).status_code == 200

        refused = admin.post(f"{path}/tasks/create", json={"data": {"category": "green"}})
        assert_envelope(refused, 400, field="data.category")
        made = admin.post(f"{path}/tasks/create", json={"data": {"category": "red"}}).json()
        assert made["data"] == {"category": "red"}


def test_a_webhook_set_through_the_api_is_read_back_at_once(server: ServerProcess) -> None:
    with server.client("admin") as admin:
        path = _queue(admin)
        assert admin.get(f"{path}/webhook").json() == {"target": ""}
        assert admin.put(f"{path}/webhook", json={"target": "http://127.0.0.1:9/hook"}).status_code == 200
        assert admin.get(f"{path}/webhook").json() == {"target": "http://127.0.0.1:9/hook"}
        assert admin.delete(f"{path}/webhook").status_code in (200, 204)
        assert admin.get(f"{path}/webhook").json() == {"target": ""}


def test_a_queue_renamed_by_another_connection_is_served_renamed(server: ServerProcess) -> None:
    with server.client("admin") as admin:
        path = _queue(admin)
        task = admin.post(f"{path}/tasks/create", json={"data": {"category": "red"}}).json()
        assert task["queue"] == "Cached"

        execute_sql(server.db_url, "UPDATE queues SET name = 'Renamed' WHERE name = 'Cached'")

        again = admin.post(f"{path}/tasks/create", json={"data": {"category": "red"}}).json()
        assert again["queue"] == "Renamed"


def test_work_on_tasks_leaves_the_access_version_alone(server: ServerProcess) -> None:
    """Creating, claiming and completing tasks must not make every server forget its keys."""

    def version() -> int:
        return query_value(server.db_url, "SELECT version FROM access_version")

    with server.client("admin") as admin, server.client("worker") as worker:
        path = _queue(admin)
        before = version()
        for _ in range(3):
            admin.post(f"{path}/tasks/create", json={"data": {"category": "red"}}).raise_for_status()
            task = worker.post(f"{path}/tasks/next").json()
            done = worker.post(f"{path}/tasks/{task['id']}/complete", json={"data": {"category": "blue"}})
            assert done.status_code == 200, done.text
        assert version() == before

        assert admin.patch(path, json={"description": "changed"}).status_code == 200
        assert version() > before


def test_the_cache_forgets_everything_when_it_is_full() -> None:
    cache = AccessCache(limit=3)
    cache.sync(7)
    people = [Principal(n, f"u{n}@x.test", f"U{n}", "worker", 1, "X") for n in range(4)]
    for n, person in enumerate(people[:3]):
        cache.remember(7, f"hash{n}", person, None)
    assert [cache.principal(f"hash{n}") for n in range(3)] == people[:3]
    cache.remember(7, "hash3", people[3], None)
    assert cache.principal("hash0") is None and cache.principal("hash3") == people[3]
    cache.remember(6, "stale", people[0], None)  # read at an older version: not kept
    assert cache.principal("stale") is None
    cache.sync(8)
    assert cache.principal("hash3") is None
