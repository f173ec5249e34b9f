"""The contract's success shapes (keys in order, timestamps) and the small HTTP steps the endpoint
tests share: create a task, claim, complete the next, read the completed list."""

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

# --- the contract's shapes ----------------------------------------------------------------------

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
TASK_KEYS = [
    "id",
    "status",
    "created_at",
    "completed_at",
    "completed_by",
    "queue",
    "queue_id",
    "data",
    "source",
]
ASSIGNMENT_KEYS = ["assigned_to", "assigned_to_name", "assigned_at", "lease_expires_at"]
# + B19's and B22's extra keys
QUEUE_KEYS = ["id", "name", "created_at", "n_tasks", "active_users", "review_percent", "gold_percent"]
# + B21's and B22's
QUEUE_DETAIL_KEYS = [*QUEUE_KEYS[:-2], "description", "data", "review_percent", "consensus", "gold_percent"]
PAGE_KEYS = ["next", "previous", "count", "tasks"]
BLOCK_IDS = ["paragraph", "category", "photo"]
EMPTY_ASSIGNMENT = dict.fromkeys(ASSIGNMENT_KEYS)
DEFAULT_LEASE = timedelta(seconds=900)
SLACK = timedelta(seconds=5)

WES = ("wes@acme.test", "Wes")
WYN = ("wyn@acme.test", "Wyn")
ADA = ("ada@acme.test", "Ada")


# --- helpers ------------------------------------------------------------------------------------


def moment(value: Any) -> datetime:
    """A contract timestamp (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), parsed."""
    assert isinstance(value, str) and TIMESTAMP.match(value), value
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def now() -> datetime:
    return datetime.now(UTC)


def body_of(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    return response.json()


def assert_empty_200(response: httpx.Response) -> None:
    assert response.status_code == 200, (response.status_code, response.text)
    assert response.content == b"", response.content


def full(**values: Any) -> dict[str, Any]:
    """A core-queue task's `data`: every block present, null where not given."""
    return {block: values.get(block) for block in BLOCK_IDS}


def assert_task(task: dict, queue: dict, *, assignment: bool = False) -> None:
    """The Task's exact keys, in the contract's order, and the types of its fields."""
    expected = [*TASK_KEYS, "assignment", "draft", "review", "consensus"] if assignment else TASK_KEYS
    assert list(task) == expected, list(task)
    assert isinstance(task["id"], int) and task["id"] > 0
    assert task["status"] in ("new", "open", "in_progress", "completed")
    moment(task["created_at"])
    assert task["queue"] == queue["name"]
    assert task["queue_id"] == queue["id"]
    assert list(task["data"]) == [b["id"] for b in queue["data"]]
    if assignment:
        assert list(task["assignment"]) == ASSIGNMENT_KEYS, task["assignment"]
        assert task["draft"] is None or isinstance(task["draft"], dict)


def create(admin: httpx.Client, qpath: str, **data: Any) -> dict:
    return body_of(admin.post(f"{qpath}/tasks/create", json={"data": data}))


def claim(client: httpx.Client, qpath: str) -> dict:
    return body_of(client.post(f"{qpath}/tasks/next"))


def complete_next(client: httpx.Client, qpath: str, **data: Any) -> dict:
    task = claim(client, qpath)
    return body_of(client.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": data}))


def split_link(url: str) -> tuple[str, str, str, dict[str, str]]:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    assert len(query) == len({k for k, _ in query}), query
    return parts.scheme, parts.netloc, parts.path, dict(query)


def completed_ids(admin: httpx.Client, qpath: str, **params: Any) -> list[int]:
    page = body_of(admin.get(f"{qpath}/tasks/completed", params=params))
    return [t["id"] for t in page["tasks"]]
