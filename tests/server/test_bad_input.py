"""Bad input never produces a 500 and never changes stored data: hypothesis throws random JSON at
create, complete, import and queue creation on a real server."""

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import make_queue
from tests.unit.strategies import EXAMPLES

SETTINGS = settings(
    max_examples=EXAMPLES * 2,  # 60 by default; QUEUEDESK_EXAMPLES sets it (tests/unit/strategies.py)
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["red", "blue", "https://example.com/a.png", "", "paragraph", "category"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
block_keys = st.sampled_from(["paragraph", "category", "photo", "unknown", ""])
near_data = st.dictionaries(block_keys, json_values, max_size=4)
task_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({"data": near_data}),
    st.fixed_dictionaries({"data": json_values}),
    st.fixed_dictionaries({"data": near_data, "extra": json_values}),
)
raw_bodies = st.binary(max_size=64)


def _send(client: httpx.Client, path: str, body: Any) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(path, content=content, headers={"Content-Type": "application/json"})


class Store:
    """What the API shows of one queue and its organization: it must not move on a 4xx."""

    def __init__(self, admin: httpx.Client, org: int, qpath: str) -> None:
        self.admin, self.org, self.qpath = admin, org, qpath

    def snapshot(self) -> dict[str, Any]:
        pending = self.admin.get(f"{self.qpath}/tasks", params={"limit": 1000}).json()
        completed = self.admin.get(f"{self.qpath}/tasks/completed", params={"limit": 1000}).json()
        return {
            "pending": [(t["id"], t["status"], t["data"]) for t in pending["tasks"]],
            "completed": [(t["id"], t["data"]) for t in completed["tasks"]],
            "queues": [(q["id"], q["name"]) for q in self.admin.get(f"/orgs/{self.org}/queues").json()],
            "detail": self.admin.get(self.qpath).json()["data"],
        }


def _check(response: httpx.Response, store: Store, before: dict[str, Any]) -> None:
    assert response.status_code < 500, response.text
    if response.status_code != 200:
        assert response.status_code in (400, 409, 413), response.text
        body = response.json()
        assert body["status_code"] == response.status_code and body["errors"]
        assert store.snapshot() == before


@pytest.fixture
def store(admin, org_id) -> Store:
    queue = make_queue(admin, org_id)
    return Store(admin, org_id, f"/orgs/{org_id}/queues/{queue['id']}")


def test_random_create_bodies(admin, store: Store) -> None:
    @SETTINGS
    @given(body=task_bodies | raw_bodies)
    def check(body: Any) -> None:
        before = store.snapshot()
        response = _send(admin, f"{store.qpath}/tasks/create", body)
        _check(response, store, before)
        if response.status_code == 200:
            task = response.json()
            assert task["status"] == "new"
            assert set(task["data"]) == {"paragraph", "category", "photo"}
            assert all(task["data"][k] == v for k, v in body["data"].items())

    check()


def test_random_complete_bodies(admin, worker, store: Store) -> None:
    admin.post(
        f"{store.qpath}/tasks/import",
        json={"source": "manual", "tasks": [{"data": {"paragraph": "p"}}] * 200},
    )

    @SETTINGS
    @given(body=task_bodies | raw_bodies)
    def check(body: Any) -> None:
        claim = worker.post(f"{store.qpath}/tasks/next")
        assert claim.status_code == 200
        task_id = claim.json()["id"]
        before = store.snapshot()
        response = _send(worker, f"{store.qpath}/tasks/{task_id}/complete", body)
        _check(response, store, before)
        if response.status_code == 200:
            assert response.json()["status"] == "completed"
            assert response.json()["data"]["category"] in ("red", "blue", "green")

    check()


def test_random_import_bodies(admin, store: Store) -> None:
    imports = st.one_of(
        json_values,
        st.fixed_dictionaries(
            {
                "source": st.sampled_from(["manual", "connector", "a.csv", "x", "", "../x.csv"])
                | json_values,
                "tasks": st.lists(
                    st.one_of(st.fixed_dictionaries({"data": near_data}), json_values), max_size=5
                ),
            }
        ),
    )

    @SETTINGS
    @given(body=imports | raw_bodies)
    def check(body: Any) -> None:
        before = store.snapshot()
        response = _send(admin, f"{store.qpath}/tasks/import", body)
        _check(response, store, before)
        if response.status_code == 200:
            assert response.json()["created"] == len(body["tasks"])
            after = store.snapshot()
            assert len(after["pending"]) == len(before["pending"]) + len(body["tasks"])

    check()


def test_random_queue_definitions(admin, org_id, store: Store) -> None:
    types = st.sampled_from(["text", "single_selection", "image", "number", "bogus", ""]) | json_values
    blocks = st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "id": st.sampled_from(["a", "b", "a b", ""]) | json_values,
                    "name": st.text(max_size=5) | json_values,
                    "type": types,
                },
                optional={
                    "text": json_values,
                    "single_selection": st.fixed_dictionaries(
                        {
                            "options": st.lists(
                                st.fixed_dictionaries(
                                    {"id": st.text(max_size=3), "name": st.text(max_size=3)}
                                ),
                                max_size=3,
                            )
                        }
                    )
                    | json_values,
                },
            ),
            json_values,
        ),
        max_size=3,
    )
    bodies = st.one_of(
        json_values,
        st.fixed_dictionaries(
            {"name": st.text(max_size=30) | json_values, "data": blocks | json_values},
            optional={"description": json_values, "junk": json_values},
        ),
    )

    @SETTINGS
    @given(body=bodies | raw_bodies)
    def check(body: Any) -> None:
        before = store.snapshot()
        response = _send(admin, f"/orgs/{org_id}/queues", body)
        _check(response, store, before)
        if response.status_code == 200:
            created = response.json()
            assert created["name"] == body["name"].strip()
            assert created["data"] == body["data"]

    check()
