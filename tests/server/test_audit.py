"""The audit log (B20): each action written with its actor in the action's transaction, no secrets,
read by admins only, filtered and paged; host commands without an actor; `queuedesk audit`; prune.

These tests change users and keys, so they run on a server of their own."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess, execute_sql, run_cli
from tests.support.contract import assert_empty_200, body_of, split_link

EVENT_KEYS = ["id", "at", "actor", "action", "queue_id", "subject", "detail"]
ADA = {"email": "ada@acme.test", "name": "Ada"}
PASSWORD = "hunter2-webhook-password"


@pytest.fixture(scope="module")
def own_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db_path = tmp_path_factory.mktemp(f"audit-{backend}") / "audit.db"
    server = ServerProcess(db_path, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def admin(own_server: ServerProcess) -> Iterator[httpx.Client]:
    with own_server.client("admin") as client:
        yield client


@pytest.fixture(scope="module")
def org(admin: httpx.Client) -> int:
    return body_of(admin.get("/me"))["organization_id"]


def _events(admin: httpx.Client, org: int, **params: Any) -> list[dict[str, Any]]:
    page = body_of(admin.get(f"/orgs/{org}/audit", params={"limit": 1000, **params}))
    assert list(page) == ["next", "previous", "count", "events"]
    for event in page["events"]:
        assert list(event) == EVENT_KEYS, event
    return page["events"]


def _new_queue(admin: httpx.Client, org: int, name: str) -> dict[str, Any]:
    return body_of(admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS}))


def test_each_action_is_logged_with_its_actor_and_without_secrets_or_values(
    own_server: ServerProcess, admin: httpx.Client, org: int
) -> None:
    queue = _new_queue(admin, org, "Audited")
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    renamed = [*CORE_BLOCKS, {"id": "extra", "name": "Extra", "type": "text"}]
    body_of(admin.patch(qpath, json={"name": "Audited twice", "data": renamed}))
    body_of(admin.patch(qpath, json={"name": "Audited twice"}))  # nothing changes: nothing logged
    assert_empty_200(admin.put(f"{qpath}/webhook", json={"target": f"http://hook:{PASSWORD}@127.0.0.1:9/in"}))
    secret = body_of(admin.post(f"{qpath}/webhook/secret/rotate"))["secret"]
    made = body_of(
        admin.post(
            f"{qpath}/tasks/import",
            json={"source": "manual", "tasks": [{"data": {"paragraph": "very private text"}}] * 3},
        )
    )
    with own_server.client("worker") as worker:
        held = body_of(worker.post(f"{qpath}/tasks/next"))["id"]
        released = body_of(admin.post(f"{qpath}/tasks/{held}/release"))  # someone else's claim
        assert released["status"] == "open"
        own = body_of(worker.post(f"{qpath}/tasks/next"))["id"]
        body_of(worker.post(f"{qpath}/tasks/{own}/release"))  # the holder's own: not logged
        done = body_of(worker.post(f"{qpath}/tasks/next"))["id"]
        body_of(worker.post(f"{qpath}/tasks/{done}/complete", json={"data": {"category": "blue"}}))
        body_of(worker.post(f"{qpath}/tasks/next"))  # one in progress when the flush comes
    delivery = body_of(admin.get(f"{qpath}/webhook/deliveries"))["deliveries"][0]
    body_of(admin.post(f"{qpath}/webhook/deliveries/{delivery['id']}/redeliver"))
    assert_empty_200(admin.put(f"{qpath}/flush"))
    assert_empty_200(admin.delete(f"{qpath}/webhook"))

    events = _events(admin, org, queue_id=queue["id"])
    assert [e["action"] for e in events] == [
        "webhook.remove",
        "queue.flush",
        "delivery.redeliver",
        "task.release",
        "import.commit",
        "webhook.rotate",
        "webhook.set",
        "queue.update",
        "queue.create",
    ]
    assert all(e["actor"] == ADA and e["queue_id"] == queue["id"] for e in events)
    assert [e["id"] for e in events] == sorted((e["id"] for e in events), reverse=True)
    by_action = {e["action"]: e for e in events}
    assert by_action["queue.create"]["detail"] == {
        "name": "Audited",
        "blocks": ["paragraph", "category", "photo"],
    }
    assert by_action["queue.update"]["detail"] == {
        "fields": ["name", "data"],
        "name": {"from": "Audited", "to": "Audited twice"},
        "blocks_added": ["extra"],
        "blocks_removed": [],
    }
    assert by_action["webhook.set"]["detail"] == {
        "target": "http://hook:***@127.0.0.1:9/in",
        "previous": None,
    }
    assert by_action["webhook.remove"]["detail"] == {
        "target": None,
        "previous": "http://hook:***@127.0.0.1:9/in",
    }
    assert by_action["import.commit"]["detail"] == {
        "created": 3,
        "source": "manual",
        "first_id": min(made["ids"]),
        "last_id": max(made["ids"]),
    }
    assert by_action["task.release"]["subject"] == {"task_id": held}
    assert by_action["task.release"]["detail"] == {"holder": {"email": "wes@acme.test", "name": "Wes"}}
    assert by_action["delivery.redeliver"]["subject"] == {
        "delivery_id": delivery["id"],
        "event_id": delivery["event_id"],
        "task_id": done,
    }
    assert by_action["queue.flush"]["detail"] == {
        "deleted": 2,
        "by_status": {"new": 0, "open": 1, "in_progress": 1},
    }
    text = json.dumps(events)
    for never in (PASSWORD, secret, "very private text", "blue"):
        assert never not in text


def test_people_and_keys_are_logged_with_old_and_new_values(own_server: ServerProcess, admin, org) -> None:
    user = body_of(
        admin.post(f"/orgs/{org}/users", json={"email": "Pat@Acme.test", "name": "Pat", "role": "worker"})
    )
    body_of(admin.patch(f"/orgs/{org}/users/{user['id']}", json={"role": "supervisor", "disabled": True}))
    body_of(admin.patch(f"/orgs/{org}/users/{user['id']}", json={"disabled": False}))
    issued = body_of(admin.post(f"/orgs/{org}/users/{user['id']}/keys"))
    assert_empty_200(admin.delete(f"/orgs/{org}/users/{user['id']}/keys/{issued['id']}"))
    events = [e for e in _events(admin, org) if e["subject"].get("user_id") == user["id"]]
    assert [(e["action"], e["detail"]) for e in events] == [
        ("key.revoke", {}),
        ("key.create", {}),
        ("user.update", {"disabled": {"from": True, "to": False}}),
        (
            "user.update",
            {"role": {"from": "worker", "to": "supervisor"}, "disabled": {"from": False, "to": True}},
        ),
        ("user.create", {"name": "Pat", "role": "worker"}),
    ]
    key_subject = {
        "user_id": user["id"],
        "email": "Pat@Acme.test",
        "key_id": issued["id"],
        "prefix": issued["prefix"],
    }
    assert events[0]["subject"] == events[1]["subject"] == key_subject
    assert all(e["actor"] == ADA and e["queue_id"] is None for e in events)
    assert issued["key"] not in json.dumps(events)


def test_a_refused_action_leaves_no_event(admin, org) -> None:
    before = _events(admin, org)
    _new_queue(admin, org, "Refused twice")
    assert (
        admin.post(f"/orgs/{org}/queues", json={"name": "Refused twice", "data": CORE_BLOCKS}).status_code
        == 409
    )
    me = next(u for u in body_of(admin.get(f"/orgs/{org}/users")) if u["email"] == "ada@acme.test")
    assert (
        admin.patch(f"/orgs/{org}/users/{me['id']}", json={"role": "worker"}).status_code == 409
    )  # last admin
    after = _events(admin, org)
    assert [e["action"] for e in after[: len(after) - len(before)]] == ["queue.create"]


def test_only_admins_read_the_audit_log(own_server: ServerProcess, org) -> None:
    for role in ("supervisor", "worker"):
        with own_server.client(role) as client:
            refused = client.get(f"/orgs/{org}/audit")
            assert refused.status_code == 403 and refused.json()["errors"][0]["code"] == "forbidden"
    with own_server.client("other_admin") as other:
        assert other.get(f"/orgs/{org}/audit").status_code == 404
        theirs = other.get(f"/orgs/{body_of(other.get('/me'))['organization_id']}/audit")
        assert all(e["actor"] != ADA for e in body_of(theirs)["events"])


def test_filters_and_paging(own_server: ServerProcess, admin, org) -> None:
    queue = _new_queue(admin, org, "Filtered")
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    for n in range(3):
        body_of(admin.patch(qpath, json={"description": f"version {n}"}))
    updates = _events(admin, org, queue_id=queue["id"], action="queue.update")
    assert [e["detail"] for e in updates] == [{"fields": ["description"]}] * 3
    assert _events(admin, org, queue_id=queue["id"], actor="ADA@acme.TEST") == _events(
        admin, org, queue_id=queue["id"]
    )
    assert _events(admin, org, queue_id=queue["id"], actor="wes@acme.test") == []
    assert _events(admin, org, queue_id=queue["id"], since=updates[1]["at"]) == updates[:2]

    page = body_of(admin.get(f"/orgs/{org}/audit", params={"queue_id": queue["id"], "limit": 2}))
    assert page["count"] == 4 and page["previous"] is None
    assert [e["id"] for e in page["events"]] == [e["id"] for e in updates[:2]]
    _scheme, _host, path, query = split_link(page["next"])
    assert path == f"/orgs/{org}/audit" and query == {
        "queue_id": str(queue["id"]),
        "limit": "2",
        "offset": "2",
    }
    last = body_of(admin.get(page["next"]))
    assert last["next"] is None and [e["action"] for e in last["events"]] == ["queue.update", "queue.create"]

    for name, value in (
        ("action", "queue.destroy"),
        ("queue_id", "x"),
        ("since", "yesterday"),
        ("limit", "0"),
    ):
        refused = admin.get(f"/orgs/{org}/audit", params={name: value})
        assert refused.status_code == 400, (name, refused.text)
        assert refused.json()["errors"][0] == {
            **refused.json()["errors"][0],
            "code": "invalid_parameter",
            "field": name,
        }


def test_host_commands_are_logged_without_an_actor(own_server: ServerProcess, admin, org) -> None:
    created = run_cli(
        [
            "admin-keys",
            "create",
            "--db",
            own_server.db_url,
            "--email",
            "host@acme.test",
            "--org",
            "Acme",
            "--role",
            "worker",
        ]
    )
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    listed = run_cli(["admin-keys", "list", "--db", own_server.db_url, "--email", "host@acme.test"])
    key_id = int(listed.stdout.splitlines()[1].split()[0])
    revoked = run_cli(["admin-keys", "revoke", "--db", own_server.db_url, str(key_id)])
    assert revoked.returncode == 0, revoked.stderr
    events = [e for e in _events(admin, org) if e["subject"].get("email") == "host@acme.test"]
    assert [(e["action"], e["actor"]) for e in events] == [
        ("key.revoke", None),
        ("key.create", None),
        ("user.create", None),
    ]
    assert events[0]["subject"]["key_id"] == key_id and key not in json.dumps(events)


def test_queuedesk_audit_prints_the_log_as_a_table_or_json(own_server: ServerProcess, admin, org) -> None:
    queue = _new_queue(admin, org, "Shown [/b] in the CLI")
    connection = ["--url", own_server.url, "--token", KEYS["admin"], "--org", str(org)]
    table = run_cli(["audit", *connection, "--queue", str(queue["id"])])
    assert table.returncode == 0, table.stderr
    assert "queue.create" in table.stdout and "ada@acme.test" in table.stdout
    assert "Shown [/b] in the CLI" in table.stdout
    as_json = run_cli(
        [
            "audit",
            *connection,
            "--action",
            "queue.create",
            "--actor",
            "ada@acme.test",
            "--limit",
            "1",
            "--json",
        ]
    )
    assert as_json.returncode == 0, as_json.stderr
    [event] = json.loads(as_json.stdout)
    assert (event["action"], event["queue_id"], event["actor"]) == ("queue.create", queue["id"], ADA)
    with own_server.client("worker"):
        refused = run_cli(["audit", "--url", own_server.url, "--token", KEYS["worker"], "--org", str(org)])
    assert refused.returncode != 0 and "may not read the audit log" in refused.stderr


def test_prune_removes_old_audit_events_only(own_server: ServerProcess, admin, org, tmp_path: Path) -> None:
    queue = _new_queue(admin, org, "Pruned")
    old = _events(admin, org, queue_id=queue["id"])[0]
    body_of(admin.patch(f"/orgs/{org}/queues/{queue['id']}", json={"description": "recent"}))
    execute_sql(own_server.db_url, f"UPDATE audit_events SET at = 0 WHERE id = {old['id']}")
    dry = run_cli(["prune", "--db", own_server.db_url, "--audit-older-than", "30d", "--dry-run"])
    assert dry.returncode == 0, dry.stderr
    assert "audit events written before" in dry.stdout and ": 1" in dry.stdout
    done = run_cli(["prune", "--db", own_server.db_url, "--audit-older-than", "30d"])
    assert done.returncode == 0, done.stderr
    assert "removed 1 audit events" in done.stdout
    assert [e["action"] for e in _events(admin, org, queue_id=queue["id"])] == ["queue.update"]


def test_what_a_seed_made_is_logged_without_an_actor(admin, org) -> None:
    events = _events(admin, org)
    wes = [(e["action"], e["actor"]) for e in events if e["subject"].get("email") == "wes@acme.test"]
    assert wes == [("key.create", None), ("user.create", None)]
    seeded = body_of(admin.get(f"/orgs/{org}/queues"))[0]
    made = [
        (e["action"], e["actor"], e["detail"].get("created"))
        for e in _events(admin, org, queue_id=seeded["id"])
    ]
    assert made == [("import.commit", None, 1), ("queue.create", None, None)]


def test_the_log_reads_from_either_end_and_sorts_by_action_or_actor(
    own_server: ServerProcess, admin, org
) -> None:
    queue = _new_queue(admin, org, "Sorted log")
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    body_of(admin.patch(qpath, json={"description": "one"}))
    assert admin.put(f"{qpath}/flush").status_code == 200
    newest = _events(admin, org, queue_id=queue["id"])
    assert [e["action"] for e in newest] == ["queue.flush", "queue.update", "queue.create"]
    assert _events(admin, org, queue_id=queue["id"], order="asc") == newest[::-1]
    by_action = _events(admin, org, queue_id=queue["id"], sort="action", order="asc")
    assert [e["action"] for e in by_action] == ["queue.create", "queue.flush", "queue.update"]
    # By who: people a to z, the host's own events (no actor) last either way.
    everyone = _events(admin, org, sort="actor", order="asc")
    emails = [e["actor"]["email"].lower() for e in everyone if e["actor"] is not None]
    assert emails == sorted(emails) and everyone[-1]["actor"] is None
    assert _events(admin, org, sort="actor")[-1]["actor"] is None
    for name, value in (("sort", "queue"), ("order", "up")):
        refused = admin.get(f"/orgs/{org}/audit", params={name: value})
        assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == name


def test_a_change_of_the_review_share_is_a_queue_update_with_its_old_and_new_value(admin, org) -> None:
    """Switching review on, changing it and switching it off are each logged (issue 43, finding 7);
    setting the share it already has is no change."""
    queue = _new_queue(admin, org, "Reviewed share")
    qpath = f"/orgs/{org}/queues/{queue['id']}"
    for percent in (30, 30, 5, 0):
        body_of(admin.patch(qpath, json={"review_percent": percent}))
    updates = _events(admin, org, queue_id=queue["id"], action="queue.update")
    assert [event["detail"] for event in reversed(updates)] == [
        {"fields": ["review_percent"], "review_percent": {"from": 0, "to": 30}},
        {"fields": ["review_percent"], "review_percent": {"from": 30, "to": 5}},
        {"fields": ["review_percent"], "review_percent": {"from": 5, "to": 0}},
    ]
    assert all(event["actor"] == ADA for event in updates)


def test_an_audit_prune_leaves_a_trace_in_each_organization_it_pruned(
    own_server: ServerProcess, admin, org
) -> None:
    """`prune --audit-older-than` writes one `audit.prune` event in each organization whose events it
    removed, with how many and the cutoff, in the transactions that removed them (batches of 2 here:
    the count grows with each batch); an organization it did not touch gets none."""
    with own_server.client("other_admin") as other:
        other_org = body_of(other.get("/me"))["organization_id"]
        removed: dict[int, list[int]] = {org: [], other_org: []}
        for client, organization, updates in ((admin, org, 4), (other, other_org, 2)):
            queue = _new_queue(client, organization, f"Old history {organization}")
            for n in range(updates):
                body_of(
                    client.patch(f"/orgs/{organization}/queues/{queue['id']}", json={"description": f"v{n}"})
                )
            removed[organization] = [
                event["id"] for event in _events(client, organization, queue_id=queue["id"])
            ]
        assert [len(ids) for ids in removed.values()] == [5, 3]
        every = [event_id for ids in removed.values() for event_id in ids]
        execute_sql(
            own_server.db_url, f"UPDATE audit_events SET at = 0 WHERE id IN ({', '.join(map(str, every))})"
        )
        earlier = {
            e["id"]
            for c, o in ((admin, org), (other, other_org))
            for e in _events(c, o, action="audit.prune")
        }
        done = run_cli(["prune", "--db", own_server.db_url, "--audit-older-than", "30d", "--batch-size", "2"])
        assert done.returncode == 0, done.stderr
        for client, organization in ((admin, org), (other, other_org)):
            traces = [
                e for e in _events(client, organization, action="audit.prune") if e["id"] not in earlier
            ]
            assert len(traces) == 1, traces
            (trace,) = traces
            assert trace["actor"] is None and trace["queue_id"] is None and trace["subject"] == {}
            assert trace["detail"]["removed"] == len(removed[organization]), trace
            assert trace["detail"]["before"] < trace["at"]
            assert not {event["id"] for event in _events(client, organization)} & set(removed[organization])
