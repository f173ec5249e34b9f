"""The router and the OpenAPI document come from one route table: neither has an operation the
other lacks, and the running server answers every documented operation."""

import re
from pathlib import Path

import httpx
import pytest

from queuedesk.server.app import create_app
from queuedesk.server.settings import Settings

UNDOCUMENTED = {("GET", "/openapi.json"), ("GET", "/metrics")}  # the document itself; the Prometheus text


@pytest.fixture
def document(clients: dict[str, httpx.Client]) -> dict:
    return clients["anonymous"].get("/openapi.json").json()


def _documented(document: dict) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, operations in document["paths"].items() for method in operations}


def _routed(tmp_path: Path) -> set[tuple[str, str]]:
    """What the service's own router routes (the database is opened only when the app starts)."""
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'unopened.db'}"))
    return {(method, path) for method, path in app.router.operations() if method != "HEAD"}


def test_every_routed_operation_is_in_the_document(document: dict, tmp_path: Path) -> None:
    missing = _routed(tmp_path) - UNDOCUMENTED - _documented(document)
    assert not missing, f"routed but not in /openapi.json: {sorted(missing)}"


def test_every_documented_operation_is_routed(document: dict, tmp_path: Path) -> None:
    missing = _documented(document) - _routed(tmp_path)
    assert not missing, f"in /openapi.json but not routed: {sorted(missing)}"
    assert not UNDOCUMENTED & _documented(document)


def test_the_server_answers_every_documented_operation(
    clients: dict[str, httpx.Client], document: dict
) -> None:
    """Without a key, every operation that needs one answers 401 (authentication comes before the
    path's objects and the body), and the public ones 200: none falls through to the router's 404/405."""
    anonymous = clients["anonymous"]
    for path, operations in document["paths"].items():
        url = re.sub(r"\{\w+\}", "1", path)
        for method, operation in operations.items():
            expected = 200 if operation.get("security") == [] else 401
            response = anonymous.request(method.upper(), url)
            assert response.status_code == expected, (method, path, response.text)
