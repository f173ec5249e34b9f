"""An answer to bad input is small whatever the input: at most 100 errors, `truncated` counting the
rest, short messages (a list of a queue's blocks names a few and says how many more). Create,
import, release, complete and queue definitions, on a queue of a thousand blocks."""

import time

import httpx
import orjson
import pytest

from tests.conftest import make_queue
from tests.support import assert_envelope

WIDTH = 1000
SMALL = 20_000  # bytes: a few kilobytes of input's worth, whatever was sent


@pytest.fixture(scope="module")
def wide(clients, org_id) -> str:
    blocks = [
        {"id": f"block_{i:04d}_" + "x" * 50, "name": f"Block {i}", "type": "text"} for i in range(WIDTH)
    ]
    blocks[0] = {**blocks[0], "text": {"is_required": True}}
    queue = make_queue(clients["admin"], org_id, blocks)
    return f"/orgs/{org_id}/queues/{queue['id']}"


def unknown_keys(size: int) -> dict[str, int]:
    """About `size` bytes of JSON object, every key unknown."""
    return {f"nope_{i}": 1 for i in range(size // 12)}


def small_answer(response: httpx.Response, found: int | None = None) -> dict:
    body = assert_envelope(response, 400)
    assert len(response.content) < SMALL, len(response.content)
    assert len(body["errors"]) <= 100
    assert all(len(e["message"]) <= 500 and len(e.get("field", "")) <= 200 for e in body["errors"])
    if found is not None:
        assert len(body["errors"]) + body.get("truncated", 0) == found, body.get("truncated")
    return body


def test_fifty_kilobytes_of_unknown_keys_against_a_wide_queue_is_a_small_answer(admin, wide):
    data = unknown_keys(50_000)
    started = time.monotonic()
    response = admin.post(f"{wide}/tasks/create", json={"data": data})
    elapsed = time.monotonic() - started
    body = small_answer(response, found=len(data))
    assert body["truncated"] >= len(data) - 100
    first = body["errors"][0]
    assert first["code"] == "unknown_field" and first["field"] == "data.nope_0"
    assert f"and {WIDTH - 5} more" in first["message"]
    assert elapsed < 5, elapsed


def test_a_key_of_a_hundred_kilobytes_is_named_short(admin, wide):
    body = small_answer(admin.post(f"{wide}/tasks/create", json={"data": {"k" * 100_000: 1}}), found=1)
    assert body["errors"][0]["field"].startswith("data.kkk")


def test_an_import_of_thousands_of_bad_rows_reports_at_most_the_cap(admin, wide):
    rows = [{"data": {"nope": i, "block_0000_" + "x" * 50: 5}} for i in range(5_000)]
    body = small_answer(admin.post(f"{wide}/tasks/import", json={"source": "manual", "tasks": rows}), 10_000)
    assert body["truncated"] >= 10_000 - 100
    assert body["errors"][0]["field"] == "tasks[0].data.nope"


def test_an_import_row_with_many_bad_keys_still_stops_at_the_cap(admin, wide):
    rows = [{"data": unknown_keys(50_000)}]
    small_answer(admin.post(f"{wide}/tasks/import", json={"source": "manual", "tasks": rows}))


def test_release_and_complete_answer_small(admin, worker, wide):
    required = "block_0000_" + "x" * 50
    admin.post(f"{wide}/tasks/create", json={"data": {required: "p"}}).raise_for_status()
    task = worker.post(f"{wide}/tasks/next").json()
    path = f"{wide}/tasks/{task['id']}"
    data = unknown_keys(50_000)
    small_answer(worker.post(f"{path}/release", json={"data": data}), found=len(data))
    small_answer(worker.post(f"{path}/complete", json={"data": data}), found=len(data))
    assert worker.get(path).json()["status"] == "in_progress"  # nothing changed


def test_a_queue_definition_with_thousands_of_bad_blocks_answers_small(admin, org_id, wide):
    blocks = [{"id": f"b{i}", "name": "", "type": "text", "extra": 1} for i in range(5_000)]
    small_answer(admin.post(f"/orgs/{org_id}/queues", json={"name": "bad", "data": blocks}), found=10_000)
    small_answer(admin.patch(wide, json={"data": blocks}), found=10_000)


def test_unknown_top_level_fields_answer_small(admin, wide):
    body = {"data": {"block_0001_" + "x" * 50: "a"}, **unknown_keys(50_000)}
    small_answer(admin.post(f"{wide}/tasks/create", content=orbytes(body)), found=len(body) - 1)


def orbytes(value: object) -> bytes:
    return orjson.dumps(value)
