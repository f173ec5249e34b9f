"""The contract's role table (API.md, Roles), row by row and role by role, over real HTTP.

Every action of every row is tried by each role in its own organization, in a fresh queue set up so
that the action succeeds when allowed: an allowed role must not get a 403 (and gets the action's
success status); a refused role gets 403 `forbidden` and changes nothing.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support import assert_envelope, free_port

ROLES = ("admin", "supervisor", "worker")
EMAILS = {
    "admin": "ada@acme.test",
    "supervisor": "sue@acme.test",
    "worker": "wes@acme.test",
    "worker2": "wyn@acme.test",
}
MAY_WORK = ("admin", "worker")
ALL = ROLES
ADMIN = ("admin",)
READERS = ("admin", "supervisor")


class Scene:
    """A fresh queue holding one new task, seen through the admin, plus what each action needs."""

    def __init__(self, clients: dict[str, httpx.Client], org: int, queue: dict) -> None:
        self.clients = clients
        self.admin = clients["admin"]
        self.org = org
        self.queue = queue
        self.qpath = f"/orgs/{org}/queues/{queue['id']}"
        self.legacy = f"/orgs/{org}/workflows/{queue['id']}"
        self.first = self.create()

    def create(self) -> dict:
        response = self.admin.post(f"{self.qpath}/tasks/create", json={"data": {"paragraph": "x"}})
        assert response.status_code == 200, response.text
        return response.json()

    def held_by(self, role: str) -> int:
        """A task claimed by `role` when it may work, else by the admin."""
        holder = self.clients[role if role in MAY_WORK else "admin"]
        response = holder.post(f"{self.qpath}/tasks/next")
        assert response.status_code == 200, response.text
        return response.json()["id"]

    def with_webhook(self) -> str:
        """The queue's path, once it has a webhook (and so a secret)."""
        target = f"http://127.0.0.1:{free_port()}/hook"
        assert self.admin.put(f"{self.qpath}/webhook", json={"target": target}).status_code == 200
        return self.qpath

    def delivery(self) -> int:
        """One webhook delivery of this queue: set a webhook, complete a task, list deliveries."""
        self.with_webhook()
        task = self.held_by("admin")
        done = self.admin.post(f"{self.qpath}/tasks/{task}/complete", json={"data": {"category": "red"}})
        assert done.status_code == 200, done.text
        listed = self.admin.get(f"{self.qpath}/webhook/deliveries")
        assert listed.status_code == 200, f"setup: B10 deliveries list answered {listed.status_code}"
        return listed.json()["deliveries"][0]["id"]

    def snapshot(self) -> dict[str, Any]:
        seen: dict[str, Any] = {
            "queues": sorted(q["name"] for q in self.admin.get(f"/orgs/{self.org}/queues").json())
        }
        for name, suffix in (
            ("queue", ""),
            ("pending", "/tasks?limit=1000"),
            ("completed", "/tasks/completed?limit=1000"),
            ("webhook", "/webhook"),
        ):
            response = self.admin.get(self.qpath + suffix)
            assert response.status_code == 200, (suffix, response.text)
            seen[name] = response.json()
        return seen


Request = tuple[str, str, Any]


@dataclass(frozen=True)
class Action:
    name: str
    allowed: tuple[str, ...]
    build: Callable[[Scene, str], Request]
    success: int = 200


NEW_TASK = {"data": {"paragraph": "new"}}


ACTIONS = [
    # list queues, get a queue, GET /me: everyone
    Action("list queues (A3)", ALL, lambda s, r: ("GET", f"/orgs/{s.org}/queues", None)),
    Action("list queues, legacy path", ALL, lambda s, r: ("GET", f"/orgs/{s.org}/workflows", None)),
    Action("get a queue (A4)", ALL, lambda s, r: ("GET", s.qpath, None)),
    Action("get a queue, legacy path", ALL, lambda s, r: ("GET", s.legacy, None)),
    Action("GET /me (B1)", ALL, lambda s, r: ("GET", "/me", None)),
    # create a task (A1), import tasks (B8): admin only
    Action("create a task (A1)", ADMIN, lambda s, r: ("POST", f"{s.qpath}/tasks/create", NEW_TASK)),
    Action("create a task, legacy path", ADMIN, lambda s, r: ("POST", f"{s.legacy}/tasks/create", NEW_TASK)),
    Action(
        "import tasks (B8)",
        ADMIN,
        lambda s, r: ("POST", f"{s.qpath}/tasks/import", {"source": "manual", "tasks": [NEW_TASK]}),
    ),
    # list completed tasks (A2): admin, supervisor; a worker only completed_by=me
    Action(
        "list completed, no filter (A2)", READERS, lambda s, r: ("GET", f"{s.qpath}/tasks/completed", None)
    ),
    Action("list completed, legacy path", READERS, lambda s, r: ("GET", f"{s.legacy}/tasks/completed", None)),
    Action(
        "list completed by someone else",
        READERS,
        lambda s, r: ("GET", f"{s.qpath}/tasks/completed?completed_by={EMAILS['worker2']}", None),
    ),
    Action(
        "list completed by me",
        ALL,
        lambda s, r: ("GET", f"{s.qpath}/tasks/completed?completed_by=me", None),
    ),
    Action(
        "list completed by my own email",
        ALL,
        lambda s, r: ("GET", f"{s.qpath}/tasks/completed?completed_by={EMAILS[r]}", None),
    ),
    # list pending tasks, get a task (B2, B3): everyone
    Action("list pending tasks (B2)", ALL, lambda s, r: ("GET", f"{s.qpath}/tasks", None)),
    Action("get a task (B3)", ALL, lambda s, r: ("GET", f"{s.qpath}/tasks/{s.first['id']}", None)),
    # claim, heartbeat, release, complete (B4-B7): admin, worker
    Action("claim (B4)", MAY_WORK, lambda s, r: ("POST", f"{s.qpath}/tasks/next", None)),
    Action(
        "heartbeat (B5)", MAY_WORK, lambda s, r: ("POST", f"{s.qpath}/tasks/{s.held_by(r)}/heartbeat", None)
    ),
    Action("release (B6)", MAY_WORK, lambda s, r: ("POST", f"{s.qpath}/tasks/{s.held_by(r)}/release", None)),
    Action(
        "complete (B7)",
        MAY_WORK,
        lambda s, r: ("POST", f"{s.qpath}/tasks/{s.held_by(r)}/complete", {"data": {"category": "red"}}),
    ),
    # flush (A5): admin only
    Action("flush (A5)", ADMIN, lambda s, r: ("PUT", f"{s.qpath}/flush", None)),
    Action("flush, legacy path", ADMIN, lambda s, r: ("PUT", f"{s.legacy}/flush", None)),
    # read the webhook and its deliveries (A6, B10): admin, supervisor
    Action("get the webhook (A6)", READERS, lambda s, r: ("GET", f"{s.qpath}/webhook", None)),
    Action("get the webhook, legacy path", READERS, lambda s, r: ("GET", f"{s.legacy}/webhook", None)),
    Action("list deliveries (B10)", READERS, lambda s, r: ("GET", f"{s.qpath}/webhook/deliveries", None)),
    # set or remove the webhook, rotate its secret, redeliver (A7, B9-B11): admin only
    Action(
        "set the webhook, PUT (A7)",
        ADMIN,
        lambda s, r: ("PUT", f"{s.qpath}/webhook", {"target": "http://127.0.0.1:9/hook"}),
    ),
    Action(
        "set the webhook, PATCH (A7)",
        ADMIN,
        lambda s, r: ("PATCH", f"{s.qpath}/webhook", {"target": "http://127.0.0.1:9/hook"}),
    ),
    Action(
        "set the webhook, legacy path",
        ADMIN,
        lambda s, r: ("PUT", f"{s.legacy}/webhook", {"target": "http://127.0.0.1:9/hook"}),
    ),
    Action(
        "remove the webhook, PUT null (A7)",
        ADMIN,
        lambda s, r: ("PUT", f"{s.qpath}/webhook", {"target": None}),
    ),
    Action("remove the webhook, DELETE (B9)", ADMIN, lambda s, r: ("DELETE", f"{s.qpath}/webhook", None)),
    Action(
        "read the webhook secret (B9)",
        ADMIN,
        lambda s, r: ("GET", f"{s.with_webhook()}/webhook/secret", None),
    ),
    Action(
        "rotate the webhook secret (B9)",
        ADMIN,
        lambda s, r: ("POST", f"{s.with_webhook()}/webhook/secret/rotate", None),
    ),
    Action(
        "redeliver (B11)",
        ADMIN,
        lambda s, r: ("POST", f"{s.qpath}/webhook/deliveries/{s.delivery()}/redeliver", None),
    ),
    # create or change queues (B12, B13): admin only
    Action(
        "create a queue (B12)",
        ADMIN,
        lambda s, r: (
            "POST",
            f"/orgs/{s.org}/queues",
            {"name": f"Role test {s.queue['id']} {r}", "data": [{"id": "n", "name": "N", "type": "text"}]},
        ),
    ),
    Action("change a queue (B13)", ADMIN, lambda s, r: ("PATCH", s.qpath, {"description": "changed"})),
]


@pytest.fixture
def scene(clients: dict[str, httpx.Client], org_id: int, queue: dict) -> Scene:
    return Scene(clients, org_id, queue)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_role_table(scene: Scene, clients, action: Action, role: str):
    method, path, body = action.build(scene, role)
    before = None if role in action.allowed else scene.snapshot()
    response = clients[role].request(method, path, json=body)
    if role in action.allowed:
        assert response.status_code != 403, f"{role} may {action.name}: {response.text}"
        assert response.status_code == action.success, (response.status_code, response.text)
    else:
        assert_envelope(response, 403, "forbidden")
        assert scene.snapshot() == before, f"a refused {action.name} changed stored data"


def test_the_table_covers_every_row_and_role():
    """Guard against a row of the contract silently dropping out of the parametrisation above."""
    named = " ".join(a.name for a in ACTIONS)
    rows = [f"A{n}" for n in range(1, 8)] + [f"B{n}" for n in range(1, 14)]
    missing = [row for row in rows if not re.search(rf"\b{row}\b", named)]
    assert not missing
    assert {role for a in ACTIONS for role in a.allowed} == set(ROLES)


# --- the worker rule of A2: only completed_by=me (or the worker's own email) ---------------------


def _complete_one(scene: Scene, client: httpx.Client, category: str) -> dict:
    scene.create()
    claimed = client.post(f"{scene.qpath}/tasks/next")
    assert claimed.status_code == 200, claimed.text
    done = client.post(
        f"{scene.qpath}/tasks/{claimed.json()['id']}/complete", json={"data": {"category": category}}
    )
    assert done.status_code == 200, done.text
    return done.json()


def test_worker_history_is_only_their_own(scene: Scene, clients):
    wes, wyn = clients["worker"], clients["worker2"]
    mine = _complete_one(scene, wes, "red")
    theirs = _complete_one(scene, wyn, "blue")
    history = f"{scene.qpath}/tasks/completed"

    for who in ("me", EMAILS["worker"]):
        page = wes.get(history, params={"completed_by": who})
        assert page.status_code == 200, page.text
        assert page.json()["count"] == 1
        assert [t["id"] for t in page.json()["tasks"]] == [mine["id"]]
        assert page.json()["tasks"][0]["completed_by"] == EMAILS["worker"]

    page = wyn.get(history, params={"completed_by": "me"})
    assert [t["id"] for t in page.json()["tasks"]] == [theirs["id"]]

    for params in ({}, {"completed_by": EMAILS["worker2"]}, {"completed_by": EMAILS["admin"]}):
        assert_envelope(wes.get(history, params=params), 403, "forbidden")

    everything = scene.admin.get(history)
    assert everything.status_code == 200
    assert everything.json()["count"] == 2
    by_sup = clients["supervisor"].get(history, params={"completed_by": EMAILS["worker"]})
    assert [t["id"] for t in by_sup.json()["tasks"]] == [mine["id"]]
    assert clients["supervisor"].get(history, params={"completed_by": "me"}).json()["count"] == 0


def test_worker_own_history_keeps_other_filters_and_paging(scene: Scene, clients):
    wes = clients["worker"]
    first = _complete_one(scene, wes, "red")
    second = _complete_one(scene, wes, "green")
    page = wes.get(f"{scene.qpath}/tasks/completed", params={"completed_by": "me", "limit": 1})
    assert page.status_code == 200, page.text
    body = page.json()
    assert body["count"] == 2
    assert [t["id"] for t in body["tasks"]] == [second["id"]]
    assert body["next"] is not None and "completed_by=me" in body["next"]
    follow = wes.get(body["next"])
    assert follow.status_code == 200, follow.text
    assert [t["id"] for t in follow.json()["tasks"]] == [first["id"]]
