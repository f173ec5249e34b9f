"""Bodies nested deeper than 64 levels are refused (400) before anything is written; the deepest
accepted one is stored and answered like any other."""

from typing import Any

import httpx
import pytest

from tests.conftest import make_queue
from tests.support import assert_envelope

BLOCKS = [{"id": "shape", "name": "Shape", "type": "list", "list": {"subtype": "list"}}]
LIMIT = 64


def _nested(levels: int) -> list[Any]:
    """A list holding a list ... `levels` deep in all."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.fixture
def qpath(admin: httpx.Client, org_id: int) -> str:
    return f"/orgs/{org_id}/queues/{make_queue(admin, org_id, BLOCKS)['id']}"


def _pending(admin: httpx.Client, qpath: str) -> int:
    return admin.get(qpath).json()["n_tasks"]


@pytest.mark.parametrize("levels", [LIMIT - 1, 253, 254, 1000])
def test_a_body_nested_too_deep_creates_nothing_and_answers_400(
    admin: httpx.Client, qpath: str, levels: int
) -> None:
    # {"data": {"shape": <levels deep>}}: two levels more than the value; written by hand, as
    # Python's own encoder stops short of the deepest
    value = "[" * levels + "]" * levels
    created = admin.post(f"{qpath}/tasks/create", content=f'{{"data": {{"shape": {value}}}}}')
    assert_envelope(created, 400, "malformed_json")
    imported = admin.post(
        f"{qpath}/tasks/import",
        content=f'{{"source": "manual", "tasks": [{{"data": {{"shape": {value}}}}}]}}',
    )
    assert_envelope(imported, 400, "malformed_json")
    assert _pending(admin, qpath) == 0


def test_a_body_64_deep_is_stored_and_answered(admin: httpx.Client, qpath: str) -> None:
    value = _nested(LIMIT - 2)
    created = admin.post(f"{qpath}/tasks/create", json={"data": {"shape": value}})
    assert created.status_code == 200, created.text
    assert created.json()["data"]["shape"] == value
    assert admin.get(f"{qpath}/tasks/{created.json()['id']}").json()["data"]["shape"] == value
