"""`queuedesk reviews list`: reviewed work with its verdicts, run as a real subprocess against the
real server."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import httpx

from tests.api.test_client_reviews import _completed
from tests.conftest import make_queue
from tests.support import KEYS
from tests.test_cli import cli  # noqa: F401  (the fixture, used by name)


def _reviewed_queue(admin: httpx.Client, worker: httpx.Client, org_id: int) -> tuple[dict, list[int]]:
    queue = make_queue(admin, org_id, review_percent=100)
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    ids = _completed(admin, worker, qpath, 3)
    for task_id, body in zip(
        ids,
        [
            {"verdict": "accept"},
            {"verdict": "correct", "data": {"category": "blue"}, "note": "It is  blue,\nclearly"},
            {"verdict": "redo", "note": "Look again"},
        ],
        strict=True,
    ):
        assert admin.post(f"{qpath}/tasks/{task_id}/review", json=body).status_code == 200
    return queue, ids


def test_reviews_list_shows_verdicts_changes_and_notes(cli, admin, worker, org_id) -> None:
    queue, ids = _reviewed_queue(admin, worker, org_id)
    name = queue["name"]
    result = cli("reviews", "list", name)
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert lines[0].split() == [
        "task",
        "verdict",
        "completed",
        "by",
        "reviewer",
        "reviewed",
        "redo",
        "changed",
        "note",
    ]
    rows = {int(line.split()[0]): line for line in lines[2:-1] if line.strip()}
    assert list(rows) == [ids[2], ids[1], ids[0]]  # newest verdict first
    assert "corrected" in rows[ids[1]] and "category: 'red' -> 'blue'" in rows[ids[1]]
    assert "It is blue, clearly" in rows[ids[1]]
    assert "redone" in rows[ids[2]] and "Look again" in rows[ids[2]]
    assert lines[-1] == f"3 reviews in queue {queue['id']} {name!r}; shown: 1-3."
    corrected = cli("reviews", "list", name, "--verdict", "correct", "--json")
    assert corrected.code == 0, corrected
    assert [t["id"] for t in corrected.json()["tasks"]] == [ids[1]]
    assert corrected.json()["tasks"][0]["review"]["original"]["category"] == "red"


def test_a_worker_lists_the_reviews_of_their_own_work(cli, admin, worker, org_id) -> None:
    queue, ids = _reviewed_queue(admin, worker, org_id)
    name = queue["name"]
    mine = cli("reviews", "list", name, "--completed-by", "me", "--json", token=KEYS["worker"])
    assert mine.code == 0, mine
    assert [t["id"] for t in mine.json()["tasks"]] == ids[::-1]
    by_default = cli("reviews", "list", name, "--json", token=KEYS["worker"])  # a worker's own, unasked
    assert by_default.code == 0, by_default
    assert by_default.json() == mine.json()
    refused = cli("reviews", "list", name, "--completed-by", "wyn@acme.test", token=KEYS["worker"])
    assert refused.code != 0
    assert "completed_by=me" in refused.err and "Traceback" not in refused.err
    wrong = cli("reviews", "list", name, "--verdict", "maybe")
    assert wrong.code != 0 and "'verdict' takes a comma list" in wrong.err
