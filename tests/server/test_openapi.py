"""The server against its own OpenAPI document: schemathesis generates requests for every operation
and fails on any response the document does not describe (status, headers, content type, schema)."""

import random

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
from tests.support import KEYS, ServerProcess

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="session")
def api_schema(server: ServerProcess):
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json")


@pytest.fixture(scope="session")
def targets(server: ServerProcess, clients, org_id) -> dict[str, list[int]]:
    """Real ids, so that generated requests reach the handlers and not only the 404 path."""
    admin = clients["admin"]
    queue = make_queue(admin, org_id)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    created = admin.post(
        f"{qpath}/tasks/import",
        json={"source": "manual", "tasks": [{"data": {"paragraph": str(i)}} for i in range(50)]},
    ).json()["ids"]
    # B17 may change or disable any user it is pointed at: generated requests get a user of their
    # own, never the seeded ones the other tests sign in as.
    person = admin.post(
        f"/orgs/{org_id}/users", json={"email": "fuzzed@acme.test", "name": "Fuzzed", "role": "worker"}
    ).json()
    key = admin.post(f"/orgs/{org_id}/users/{person['id']}/keys").json()
    return {"queue": [queue["id"]], "task": created, "user": [person["id"]], "key": [key["id"]]}


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_answer_matches_the_document(case, server: ServerProcess, org_id: int, targets) -> None:
    path_parameters = case.path_parameters or {}
    if isinstance(path_parameters.get("org"), int) and random.random() < 0.9:
        path_parameters["org"] = org_id
    for name in ("queue", "task", "key"):
        if isinstance(path_parameters.get(name), int) and random.random() < 0.8:
            path_parameters[name] = random.choice(targets[name])
    if "user" in path_parameters:
        path_parameters["user"] = targets["user"][0]
    headers = dict(case.headers or {})
    headers["Authorization"] = f"Token {KEYS['admin']}"
    case.call_and_validate(base_url=server.url, headers=headers, checks=CHECKS)


def test_document_lists_every_part_a_path_under_both_spellings(clients) -> None:
    document = clients["anonymous"].get("/openapi.json").json()
    paths = set(document["paths"])
    for spelling in ("queues", "workflows"):
        assert f"/orgs/{{org}}/{spelling}/{{queue}}/tasks/create" in paths
        assert f"/orgs/{{org}}/{spelling}/{{queue}}/flush" in paths
    assert "/orgs/{org}/queues/{queue}/tasks/next" in paths
    assert "/orgs/{org}/workflows/{queue}/tasks/next" not in paths
