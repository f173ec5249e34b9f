"""The server against its own OpenAPI document: schemathesis generates requests for every operation
and fails on any response the document does not describe (status, headers, content type, schema).

The generated requests go to a server of their own (a random PATCH may make a user an admin or
disable one, and nothing undoes it), never the session server whose Acme keys the other tests use.
The examples are derandomized and the server starts empty each time, so every run (and every rerun of
a failure, in any order of the tests) sends the same requests with the same ids; the ids put into
them are drawn from a generator seeded by the request itself.
"""

import random
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import make_queue
from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.unit.strategies import EXAMPLES

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db_path = tmp_path_factory.mktemp(f"fuzzed-{backend}") / "queuedesk.db"
    with ServerProcess(
        db_path, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend
    ).running() as server:
        yield server


@pytest.fixture(scope="module")
def api_schema(fuzzed_server: ServerProcess):
    return schemathesis.openapi.from_url(f"{fuzzed_server.url}/openapi.json")


@pytest.fixture(scope="module")
def targets(fuzzed_server: ServerProcess) -> dict[str, list[int]]:
    """Real ids, so that generated requests reach the handlers and not only the 404 path."""
    with fuzzed_server.client("admin") as admin:
        return _targets(admin, admin.get("/me").json()["organization_id"])


def _targets(admin: httpx.Client, org_id: int) -> dict[str, list[int]]:
    queue = make_queue(admin, org_id)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    created = admin.post(
        f"{qpath}/tasks/import",
        json={"source": "manual", "tasks": [{"data": {"paragraph": str(i)}} for i in range(50)]},
    ).json()["ids"]
    # B17 may change or disable any user it is pointed at: generated requests get a user of their
    # own, never the admin they act as.
    person = admin.post(
        f"/orgs/{org_id}/users", json={"email": "fuzzed@acme.test", "name": "Fuzzed", "role": "worker"}
    ).json()
    key = admin.post(f"/orgs/{org_id}/users/{person['id']}/keys").json()
    return {
        "org": [org_id],
        "queue": [queue["id"]],
        "task": created,
        "user": [person["id"]],
        "key": [key["id"]],
    }


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@pytest.mark.timeout(1200)  # one item for every operation's examples: over 300 s on a loaded machine
@settings(
    # 7 examples per operation by default (about 10 s a backend); QUEUEDESK_EXAMPLES=400 for a long run.
    max_examples=max(3, EXAMPLES // 4),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_matches_the_document(case, fuzzed_server: ServerProcess, targets) -> None:
    path_parameters = case.path_parameters or {}
    draw = random.Random(f"{case.method} {case.path} {sorted(path_parameters.items())!r}")
    if isinstance(path_parameters.get("org"), int) and draw.random() < 0.9:
        path_parameters["org"] = targets["org"][0]
    for name in ("queue", "task", "key"):
        if isinstance(path_parameters.get(name), int) and draw.random() < 0.8:
            path_parameters[name] = draw.choice(targets[name])
    if "user" in path_parameters:
        path_parameters["user"] = targets["user"][0]
    headers = dict(case.headers or {})
    headers["Authorization"] = f"Token {KEYS['admin']}"
    case.call_and_validate(base_url=fuzzed_server.url, headers=headers, checks=CHECKS)


def test_document_lists_every_part_a_path_under_both_spellings(clients) -> None:
    document = clients["anonymous"].get("/openapi.json").json()
    paths = set(document["paths"])
    for spelling in ("queues", "workflows"):
        assert f"/orgs/{{org}}/{spelling}/{{queue}}/tasks/create" in paths
        assert f"/orgs/{{org}}/{spelling}/{{queue}}/flush" in paths
    assert "/orgs/{org}/queues/{queue}/tasks/next" in paths
    assert "/orgs/{org}/workflows/{queue}/tasks/next" not in paths
