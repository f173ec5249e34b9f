"""Every error row of the contract (API.md, Conventions and Errors), triggered over real HTTP.

Each test names the row it covers. Where the contract is explicit the test is too (status, code and
the `field` at fault); where it leaves a choice open (which of two 401 codes) the test accepts both.
"""

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import make_queue
from tests.support import KEYS, Organization, ServerProcess, assert_envelope, run_cli

MIB = 1024 * 1024
NO_SUCH_ID = 987654321
GOOD_DATA = {"paragraph": "The printer is on fire", "category": "red"}
AUTH_CODES = {"not_authenticated", "invalid_token"}


# --- helpers -----------------------------------------------------------------------------------


def _create(admin: httpx.Client, qpath: str, data: dict[str, Any] | None = None) -> dict:
    response = admin.post(f"{qpath}/tasks/create", json={"data": data or {"paragraph": "x"}})
    assert response.status_code == 200, response.text
    return response.json()


def _claim(client: httpx.Client, qpath: str) -> dict:
    response = client.post(f"{qpath}/tasks/next")
    assert response.status_code == 200, response.text
    return response.json()


def _snapshot(admin: httpx.Client, qpath: str) -> dict[str, Any]:
    """Everything a request against this queue could change, as the admin sees it."""
    seen: dict[str, Any] = {}
    for name, suffix in (
        ("queue", ""),
        ("pending", "/tasks?limit=1000"),
        ("completed", "/tasks/completed?limit=1000"),
        ("webhook", "/webhook"),
    ):
        response = admin.get(qpath + suffix)
        assert response.status_code == 200, (suffix, response.text)
        seen[name] = response.json()
    return seen


def _raw(client: httpx.Client, method: str, path: str, content: bytes) -> httpx.Response:
    return client.request(method, path, content=content, headers={"Content-Type": "application/json"})


# --- the endpoint catalogue (every method on every path of Parts A and B) -----------------------

Q = "/orgs/{org}/{kind}/{queue}"

# (method, path template, JSON body or None); `{kind}` is `queues`, or also `workflows` for Part A.
PART_A: list[tuple[str, str, Any]] = [
    ("GET", "/orgs/{org}/{kind}", None),
    ("GET", Q, None),
    ("PUT", Q + "/flush", None),
    ("POST", Q + "/tasks/create", {"data": {"note": "x"}}),
    ("GET", Q + "/tasks/completed", None),
    ("GET", Q + "/webhook", None),
    ("PUT", Q + "/webhook", {"target": "http://127.0.0.1:9/hook"}),
    ("PATCH", Q + "/webhook", {"target": "http://127.0.0.1:9/hook"}),
]
PART_B: list[tuple[str, str, Any]] = [
    ("POST", "/orgs/{org}/{kind}", {"name": "Intruder", "data": [{"id": "n", "name": "N", "type": "text"}]}),
    ("PATCH", Q, {"description": "changed"}),
    ("GET", Q + "/tasks", None),
    ("POST", Q + "/tasks/import", {"source": "manual", "tasks": [{"data": {"note": "x"}}]}),
    ("POST", Q + "/tasks/next", None),
    ("GET", Q + "/tasks/{task}", None),
    ("POST", Q + "/tasks/{task}/heartbeat", None),
    ("POST", Q + "/tasks/{task}/release", None),
    ("POST", Q + "/tasks/{task}/complete", {"data": {"note": "x"}}),
    ("DELETE", Q + "/webhook", None),
    ("GET", Q + "/webhook/secret", None),
    ("POST", Q + "/webhook/secret/rotate", None),
    ("GET", Q + "/webhook/deliveries", None),
    ("POST", Q + "/webhook/deliveries/{delivery}/redeliver", None),
]
ENDPOINTS = [(m, p.replace("{kind}", "queues"), b) for m, p, b in PART_A + PART_B] + [
    (m, p.replace("{kind}", "workflows"), b) for m, p, b in PART_A
]
QUEUE_ENDPOINTS = [e for e in ENDPOINTS if "{queue}" in e[1]]
TASK_ENDPOINTS = [e for e in ENDPOINTS if "{task}" in e[1]]


def _eid(endpoint: tuple[str, str, Any]) -> str:
    return f"{endpoint[0]} {endpoint[1]}"


def _send(client: httpx.Client, endpoint: tuple[str, str, Any], **ids: int) -> httpx.Response:
    method, template, body = endpoint
    ids.setdefault("delivery", 1)
    path = template.format(**ids)
    if body is None:
        return client.request(method, path)
    return client.request(method, path, json=body)


@pytest.fixture(scope="session")
def other_task(clients: dict[str, httpx.Client], other_org: dict[str, int]) -> int:
    """The id of a task of the other organization's queue."""
    response = clients["other_admin"].get(f"/orgs/{other_org['org']}/queues/{other_org['queue']}/tasks")
    assert response.status_code == 200, response.text
    return response.json()["tasks"][0]["id"]


@pytest.fixture
def held(admin: httpx.Client, qpath: str) -> dict:
    """A task of the test's queue claimed by the admin (who may work)."""
    _create(admin, qpath)
    return _claim(admin, qpath)


# --- 400 -----------------------------------------------------------------------------------------

BODY_ENDPOINTS = [
    ("POST", "/tasks/create"),
    ("POST", "/tasks/import"),
    ("PATCH", ""),
    ("PUT", "/webhook"),
    ("PATCH", "/webhook"),
    ("POST", "/tasks/{task}/complete"),
    ("POST", "/tasks/{task}/release"),
]


@pytest.mark.parametrize("raw", [b"{not json", b'{"data": ', b"\xff\xfe{}", b"{'data': {}}"], ids=repr)
@pytest.mark.parametrize(("method", "suffix"), BODY_ENDPOINTS, ids=lambda v: str(v) or "queue")
def test_malformed_json_is_400_and_changes_nothing(admin, qpath, held, method, suffix, raw):
    before = _snapshot(admin, qpath)
    response = _raw(admin, method, qpath + suffix.format(task=held["id"]), raw)
    assert_envelope(response, 400, "malformed_json")
    assert _snapshot(admin, qpath) == before


def test_malformed_json_on_queue_create_is_400(admin, org_id):
    before = admin.get(f"/orgs/{org_id}/queues").json()
    assert_envelope(_raw(admin, "POST", f"/orgs/{org_id}/queues", b'{"name": "x", '), 400, "malformed_json")
    assert admin.get(f"/orgs/{org_id}/queues").json() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"data": {}}', "data"),
        (b'{"data": null}', "data"),
        (b'{"data": []}', "data"),
        (b'{"data": "paragraph"}', "data"),
        (b"{}", None),
        (b"", None),
    ],
    ids=repr,
)
def test_create_without_data_is_400_no_data(admin, qpath, body, field):
    before = _snapshot(admin, qpath)
    assert_envelope(_raw(admin, "POST", f"{qpath}/tasks/create", body), 400, "no_data", field)
    assert _snapshot(admin, qpath) == before


def test_import_with_empty_data_is_400_no_data(admin, qpath):
    before = _snapshot(admin, qpath)
    response = admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": [{"data": {}}]})
    assert_envelope(response, 400, "no_data")
    assert _snapshot(admin, qpath) == before


def test_unknown_block_is_400_unknown_field_listing_unknown_and_valid(admin, qpath):
    before = _snapshot(admin, qpath)
    response = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "x", "colour": "red"}})
    body = assert_envelope(response, 400, "unknown_field", "data.colour")
    text = " ".join(e["message"] for e in body["errors"])
    for name in ("colour", "paragraph", "category", "photo"):
        assert name in text, text
    assert _snapshot(admin, qpath) == before


def test_unknown_top_level_key_is_400_unknown_field(admin, qpath):
    before = _snapshot(admin, qpath)
    response = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "x"}, "priority": 1})
    assert_envelope(response, 400, "unknown_field", "priority")
    assert _snapshot(admin, qpath) == before


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"category": "purple"}, "data.category"),
        ({"category": ["red"]}, "data.category"),
        ({"category": 1}, "data.category"),
        ({"paragraph": 5}, "data.paragraph"),
        ({"paragraph": ["x"]}, "data.paragraph"),
        ({"photo": "not a url"}, "data.photo"),
        ({"photo": "ftp://example.com/p.png"}, "data.photo"),
        ({"paragraph": "fine", "photo": "javascript:alert(1)"}, "data.photo"),
    ],
    ids=repr,
)
def test_value_that_does_not_fit_its_block_is_400_invalid_value(admin, qpath, data, field):
    before = _snapshot(admin, qpath)
    response = admin.post(f"{qpath}/tasks/create", json={"data": data})
    assert_envelope(response, 400, "invalid_value", field)
    assert _snapshot(admin, qpath) == before


NER_BLOCK = {
    "id": "names",
    "name": "Names",
    "type": "named_entity_recognition",
    "named_entity_recognition": {"labels": ["PER", "ORG"]},
}
NER_TEXT = "Alice met Bob"


@pytest.mark.parametrize(
    ("entities", "said"),
    [
        ([{"start": 0, "end": 99, "label": "PER"}], "not a span of the text's 13 characters"),
        ([{"start": 0, "end": 5, "label": "PER"}, {"start": 4, "end": 9, "label": "PER"}], "overlap"),
        ([{"start": 0, "end": 5, "label": "LOC"}], "not one of the block's labels (ORG, PER)"),
        ([{"start": "0", "end": 5, "label": "PER"}], "whole numbers"),
        ({"start": 0}, "'entities' must be a list"),
    ],
    ids=["outside", "overlap", "label", "string", "not-a-list"],
)
def test_a_named_entity_value_that_breaks_its_rules_is_400_and_a_good_one_is_kept(
    admin, org_id, entities, said
):
    qpath = f"/orgs/{org_id}/queues/{make_queue(admin, org_id, [NER_BLOCK])['id']}"
    bad = {"names": {"text": NER_TEXT, "entities": entities}}
    body = assert_envelope(
        admin.post(f"{qpath}/tasks/create", json={"data": bad}), 400, "invalid_value", "data.names"
    )
    assert said in json.dumps(body)
    good = {"text": NER_TEXT, "entities": [{"start": 10, "end": 13, "label": "PER"}], "source": "crm"}
    assert _create(admin, qpath, {"names": good})["data"]["names"] == good


def test_contract_example_purple_category(admin, qpath):
    """The contract's own example envelope: field data.category, message naming the options."""
    response = admin.post(f"{qpath}/tasks/create", json={"data": {"category": "purple"}})
    body = assert_envelope(response, 400, "invalid_value", "data.category")
    assert body["status_code"] == 400
    message = next(e["message"] for e in body["errors"] if e.get("field") == "data.category")
    assert "purple" in message


@pytest.mark.parametrize(
    "target",
    [
        "ftp://example.com/hook",
        "not a url",
        "http://",
        "/relative/hook",
        42,
        ["http://x.test"],
        "http://x.test/" + "a" * 2048,
    ],
    ids=lambda t: repr(t)[:30],
)
def test_bad_webhook_target_is_400_invalid_value(admin, qpath, target):
    assert admin.put(f"{qpath}/webhook", json={"target": "http://127.0.0.1:9/kept"}).status_code == 200
    before = _snapshot(admin, qpath)
    assert_envelope(admin.put(f"{qpath}/webhook", json={"target": target}), 400, "invalid_value", "target")
    assert _snapshot(admin, qpath) == before
    assert before["webhook"] == {"target": "http://127.0.0.1:9/kept"}


@pytest.mark.parametrize("body", [[1, 2], "data", 3, None], ids=repr)
def test_body_that_is_not_an_object_is_400(admin, qpath, body):
    before = _snapshot(admin, qpath)
    assert_envelope(_raw(admin, "POST", f"{qpath}/tasks/create", json.dumps(body).encode()), 400)
    assert _snapshot(admin, qpath) == before


def test_bad_block_definition_is_400_and_queue_unchanged(admin, qpath):
    before = _snapshot(admin, qpath)
    bad = [{"id": "has space", "name": "X", "type": "text"}]
    assert_envelope(admin.patch(qpath, json={"data": bad}), 400, "invalid_value")
    bad = [{"id": "pick", "name": "Pick", "type": "single_selection", "single_selection": {"options": []}}]
    assert_envelope(admin.patch(qpath, json={"data": bad}), 400, "invalid_value")
    assert _snapshot(admin, qpath) == before


def test_completion_without_a_required_value_is_400_missing_required(admin, qpath, held):
    before = _snapshot(admin, qpath)
    response = admin.post(f"{qpath}/tasks/{held['id']}/complete", json={"data": {"paragraph": "done"}})
    assert_envelope(response, 400, "missing_required", "data.category")
    assert _snapshot(admin, qpath) == before
    task = admin.get(f"{qpath}/tasks/{held['id']}").json()
    assert task["status"] == "in_progress"
    assert task["data"] == held["data"]


def test_is_required_is_not_enforced_at_creation(admin, qpath):
    """The contrast to the test above: A1 accepts a task without its required block."""
    task = _create(admin, qpath, {"paragraph": "no category yet"})
    assert task["data"]["category"] is None


def test_queue_without_name_is_400_missing_required(admin, org_id):
    before = admin.get(f"/orgs/{org_id}/queues").json()
    response = admin.post(f"/orgs/{org_id}/queues", json={"data": [{"id": "n", "name": "N", "type": "text"}]})
    assert_envelope(response, 400, "missing_required", "name")
    assert admin.get(f"/orgs/{org_id}/queues").json() == before


def test_import_is_all_or_nothing_and_names_each_failing_index(admin, qpath):
    before = _snapshot(admin, qpath)
    items = [
        {"data": {"paragraph": "ok"}},
        {"data": {"category": "purple"}},
        {"data": {"paragraph": "ok too"}},
        {"data": {"colour": "red"}},
    ]
    response = admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": items})
    body = assert_envelope(response, 400)
    codes = {e["code"] for e in body["errors"]}
    assert {"invalid_value", "unknown_field"} <= codes, body
    said = " ".join(f"{e.get('field', '')} {e['message']}" for e in body["errors"])
    assert "1" in said and "3" in said, said
    assert _snapshot(admin, qpath) == before


PAGED = ["/tasks/completed", "/tasks"]
BAD_PAGING = [
    ("offset", "-1"),
    ("offset", "abc"),
    ("offset", "1.5"),
    ("offset", ""),
    ("limit", "0"),
    ("limit", "1001"),
    ("limit", "-5"),
    ("limit", "ten"),
    ("limit", "2.0"),
]


@pytest.mark.parametrize(("name", "value"), BAD_PAGING, ids=lambda v: repr(v))
@pytest.mark.parametrize("suffix", PAGED)
def test_bad_paging_parameter_is_400_invalid_parameter(admin, qpath, suffix, name, value):
    response = admin.get(qpath + suffix, params={name: value})
    assert_envelope(response, 400, "invalid_parameter", name)


@pytest.mark.parametrize(
    "params", [{"limit": "1"}, {"limit": "1000"}, {"offset": "0"}, {"offset": "5000"}], ids=repr
)
@pytest.mark.parametrize("suffix", PAGED)
def test_paging_bounds_are_accepted(admin, qpath, suffix, params):
    assert admin.get(qpath + suffix, params=params).status_code == 200


@pytest.mark.parametrize(
    ("name", "value"),
    [("start_date", "yesterday"), ("end_date", "2026-13-45"), ("start_date", "2026-01-01T25:00:00Z")],
    ids=repr,
)
def test_bad_date_filter_is_400_invalid_parameter(admin, qpath, name, value):
    response = admin.get(f"{qpath}/tasks/completed", params={name: value})
    assert_envelope(response, 400, "invalid_parameter", name)


@pytest.mark.parametrize("value", ["done", "completed", "new,bogus", ""], ids=repr)
def test_bad_status_filter_is_400_invalid_parameter(admin, qpath, value):
    assert_envelope(admin.get(f"{qpath}/tasks", params={"status": value}), 400, "invalid_parameter", "status")


@pytest.mark.parametrize("value", ["", "wes@acme.test\x00", "\x00"])
def test_bad_completed_by_is_400_invalid_parameter(admin, qpath, value):
    """Empty, or with a NUL character (which no email has, and PostgreSQL cannot even compare)."""
    response = admin.get(f"{qpath}/tasks/completed", params={"completed_by": value})
    assert_envelope(response, 400, "invalid_parameter", "completed_by")


# --- 401 -----------------------------------------------------------------------------------------

BAD_AUTH = {
    "no header": None,
    "bearer scheme": f"Bearer {KEYS['admin']}",
    "basic scheme": "Basic YWRhOnNlY3JldA==",
    "key without scheme": KEYS["admin"],
    "Token alone": "Token",
    "unknown key": "Token acme-nobody-0000000000000000",
    "key with a typo": f"Token {KEYS['admin']}x",
}


def _auth_endpoints(org: int, queue: int) -> list[tuple[str, str, Any]]:
    q = f"/orgs/{org}/queues/{queue}"
    return [
        ("GET", "/me", None),
        ("GET", f"/orgs/{org}/queues", None),
        ("GET", f"{q}/tasks/completed", None),
        ("POST", f"{q}/tasks/create", {"data": {"paragraph": "x"}}),
        ("PUT", f"{q}/flush", None),
    ]


def _expect_401(response: httpx.Response, code: str | None = None) -> None:
    body = assert_envelope(response, 401)
    assert {e["code"] for e in body["errors"]} <= AUTH_CODES, body
    if code is not None:
        assert code in {e["code"] for e in body["errors"]}, body
    assert response.headers.get("www-authenticate") == "Token", response.headers


@pytest.mark.parametrize("name", list(BAD_AUTH))
def test_bad_credentials_are_401_with_www_authenticate(clients, org_id, queue, name):
    anonymous = clients["anonymous"]
    expected = {"no header": "not_authenticated", "unknown key": "invalid_token"}
    header = BAD_AUTH[name]
    headers = {} if header is None else {"Authorization": header}
    for method, path, body in _auth_endpoints(org_id, queue["id"]):
        response = anonymous.request(method, path, json=body, headers=headers)
        _expect_401(response, expected.get(name))


def test_rejected_credentials_change_nothing(clients, admin, qpath):
    _create(admin, qpath)
    before = _snapshot(admin, qpath)
    anonymous = clients["anonymous"]
    assert anonymous.put(f"{qpath}/flush").status_code == 401
    bad = {"Authorization": "Token acme-nobody-0000000000000000"}
    assert anonymous.post(f"{qpath}/tasks/create", json={"data": GOOD_DATA}, headers=bad).status_code == 401
    assert (
        anonymous.put(f"{qpath}/webhook", json={"target": "http://x.test/h"}, headers=bad).status_code == 401
    )
    assert _snapshot(admin, qpath) == before


def test_healthz_needs_no_authorization(clients):
    response = clients["anonymous"].get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def _cli(*args: str) -> str:
    done = run_cli(list(args))
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def test_revoked_key_is_401(server: ServerProcess, clients, own_org: Organization):
    org_id = own_org.id
    email = f"temp-{uuid.uuid4().hex[:12]}@acme.test"
    printed = _cli(
        "keys", "create", "--db", server.db_url, "--email", email, "--org", own_org.name, "--role", "worker"
    )
    key = printed.split()[0]
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=30) as temp:
        me = temp.get("/me")
        assert me.status_code == 200, me.text
        assert me.json()["email"] == email
        assert me.json()["role"] == "worker"
        assert temp.get(f"/orgs/{org_id}/queues").status_code == 200

        listing = _cli("keys", "list", "--db", server.db_url, "--email", email)
        rows = [line.split() for line in listing.splitlines() if email in line]
        assert len(rows) == 1, listing
        _cli("keys", "revoke", "--db", server.db_url, rows[0][0])

        for response in (temp.get("/me"), temp.get(f"/orgs/{org_id}/queues")):
            _expect_401(response, "invalid_token")
    # Revoking one key leaves the others alone.
    assert clients["worker"].get("/me").status_code == 200


# --- 404 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/orgs",
        "/orgs/{org}",
        "/orgs/{org}/tasks",
        "/orgs/{org}/queues/{queue}/nope",
        "/orgs/{org}/queues/{queue}/tasks/{task}/nope",
        "/orgs/{org}/queues/{queue}/tasks/create/extra",
        "/me/extra",
        "/api/orgs/{org}/queues",
    ],
)
def test_unknown_path_is_404(admin, org_id, queue, path):
    task = _create(admin, f"/orgs/{org_id}/queues/{queue['id']}")
    url = path.format(org=org_id, queue=queue["id"], task=task["id"])
    assert_envelope(admin.get(url), 404, "not_found")
    assert_envelope(admin.post(url, json={}), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/me/"),
        ("GET", "/healthz/"),
        ("GET", "/orgs/{org}/queues/"),
        ("GET", "/orgs/{org}/workflows/"),
        ("POST", "/orgs/{org}/queues/"),
        ("GET", "/orgs/{org}/queues/{queue}/"),
        ("PUT", "/orgs/{org}/queues/{queue}/flush/"),
        ("POST", "/orgs/{org}/queues/{queue}/tasks/create/"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/completed/"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/"),
        ("POST", "/orgs/{org}/queues/{queue}/tasks/next/"),
        ("GET", "/orgs/{org}/queues/{queue}/webhook/"),
    ],
)
def test_trailing_slash_is_404_not_a_redirect(admin, org_id, queue, method, path):
    url = path.format(org=org_id, queue=queue["id"])
    body = {"data": {"paragraph": "x"}} if method == "POST" else None
    before = _snapshot(admin, f"/orgs/{org_id}/queues/{queue['id']}")
    assert_envelope(admin.request(method, url, json=body), 404, "not_found")
    assert _snapshot(admin, f"/orgs/{org_id}/queues/{queue['id']}") == before


NOT_IDS = [
    "abc", "0", "-1", "1.5", "1e3", "0x1", "%201", "1%20", "%EF%BC%91", "99999999999999999999999", "%23", "%7B%7D",
]  # fmt: skip


@pytest.mark.parametrize("segment", NOT_IDS)
@pytest.mark.parametrize(
    "template",
    [
        "/orgs/{x}/queues",
        "/orgs/{x}/workflows",
        "/orgs/{org}/queues/{x}",
        "/orgs/{org}/queues/{x}/tasks",
        "/orgs/{org}/workflows/{x}/tasks/completed",
        "/orgs/{org}/queues/{queue}/tasks/{x}",
    ],
)
def test_non_integer_id_in_path_is_404(admin, org_id, queue, template, segment):
    url = template.format(org=org_id, queue=queue["id"], x=segment)
    assert_envelope(admin.get(url), 404, "not_found")


def test_unknown_organization_is_404(admin):
    assert_envelope(admin.get(f"/orgs/{NO_SUCH_ID}/queues"), 404, "not_found")
    assert_envelope(admin.get(f"/orgs/{NO_SUCH_ID}/queues/1"), 404, "not_found")


@pytest.mark.parametrize("endpoint", QUEUE_ENDPOINTS, ids=_eid)
def test_unknown_queue_is_404(admin, org_id, endpoint):
    assert_envelope(_send(admin, endpoint, org=org_id, queue=NO_SUCH_ID, task=1), 404, "not_found")


@pytest.mark.parametrize("endpoint", TASK_ENDPOINTS, ids=_eid)
def test_unknown_task_is_404(admin, qpath, held, endpoint):
    method, template, _ = endpoint
    suffix = template.split("/{task}")[1]
    body = {"data": GOOD_DATA} if suffix == "/complete" else None
    before = _snapshot(admin, qpath)
    assert_envelope(admin.request(method, f"{qpath}/tasks/{NO_SUCH_ID}{suffix}", json=body), 404, "not_found")
    assert _snapshot(admin, qpath) == before


@pytest.mark.parametrize("endpoint", TASK_ENDPOINTS, ids=_eid)
def test_task_of_another_queue_is_404(admin, org_id, qpath, held, endpoint):
    """A task id that exists, but in another queue of the same organization."""
    method, template, _ = endpoint
    suffix = template.split("/{task}")[1]
    other = make_queue(admin, org_id)
    opath = f"/orgs/{org_id}/queues/{other['id']}"
    body = {"data": GOOD_DATA} if suffix == "/complete" else None
    before = _snapshot(admin, qpath)
    assert_envelope(admin.request(method, f"{opath}/tasks/{held['id']}{suffix}", json=body), 404, "not_found")
    assert _snapshot(admin, qpath) == before


# --- 404 across organizations --------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "supervisor", "worker"])
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=_eid)
def test_other_organization_is_404_on_every_endpoint(clients, other_org, other_task, endpoint, role):
    response = _send(clients[role], endpoint, org=other_org["org"], queue=other_org["queue"], task=other_task)
    assert_envelope(response, 404, "not_found")


@pytest.mark.parametrize("endpoint", QUEUE_ENDPOINTS, ids=_eid)
def test_own_organization_with_other_organizations_queue_is_404(
    clients, org_id, other_org, other_task, endpoint
):
    response = _send(clients["admin"], endpoint, org=org_id, queue=other_org["queue"], task=other_task)
    assert_envelope(response, 404, "not_found")


@pytest.mark.parametrize("endpoint", TASK_ENDPOINTS, ids=_eid)
def test_own_queue_with_other_organizations_task_is_404(admin, qpath, held, other_task, endpoint):
    method, template, body = endpoint
    suffix = template.split("/{task}")[1]
    body = {"data": GOOD_DATA} if suffix == "/complete" else None
    assert_envelope(admin.request(method, f"{qpath}/tasks/{other_task}{suffix}", json=body), 404, "not_found")


def _globex_state(clients: dict[str, httpx.Client], other_org: dict[str, int], task: int) -> dict[str, Any]:
    other = clients["other_admin"]
    base = f"/orgs/{other_org['org']}/queues"
    qp = f"{base}/{other_org['queue']}"
    return {
        "queues": other.get(base).json(),
        "queue": other.get(qp).json(),
        "task": other.get(f"{qp}/tasks/{task}").json(),
        "pending": other.get(f"{qp}/tasks").json(),
        "webhook": other.get(f"{qp}/webhook").json(),
    }


def test_other_organization_is_untouched_by_every_endpoint(clients, other_org, other_task):
    before = _globex_state(clients, other_org, other_task)
    assert before["task"]["id"] == other_task
    for role in ("admin", "worker"):
        for endpoint in ENDPOINTS:
            _send(clients[role], endpoint, org=other_org["org"], queue=other_org["queue"], task=other_task)
    assert _globex_state(clients, other_org, other_task) == before


def _normalized(response: httpx.Response, *ids: int) -> str:
    text = response.text
    for value in ids:
        text = text.replace(str(value), "ID")
    return text


@pytest.mark.parametrize("endpoint", QUEUE_ENDPOINTS, ids=_eid)
def test_existence_is_not_revealed_across_organizations(admin, org_id, other_org, endpoint):
    """Another organization's queue answers exactly like a queue that does not exist."""
    real = _send(admin, endpoint, org=org_id, queue=other_org["queue"], task=1)
    ghost = _send(admin, endpoint, org=org_id, queue=NO_SUCH_ID, task=1)
    assert real.status_code == ghost.status_code == 404
    assert _normalized(real, other_org["queue"]) == _normalized(ghost, NO_SUCH_ID)
    real = _send(admin, endpoint, org=other_org["org"], queue=other_org["queue"], task=1)
    ghost = _send(admin, endpoint, org=NO_SUCH_ID, queue=NO_SUCH_ID, task=1)
    assert real.status_code == ghost.status_code == 404
    assert _normalized(real, other_org["org"], other_org["queue"]) == _normalized(ghost, NO_SUCH_ID)


# --- 405 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/me"),
        ("DELETE", "/me"),
        ("POST", "/healthz"),
        ("DELETE", "/orgs/{org}/queues"),
        ("PUT", "/orgs/{org}/queues"),
        ("DELETE", "/orgs/{org}/workflows"),
        ("POST", "/orgs/{org}/queues/{queue}"),
        ("DELETE", "/orgs/{org}/queues/{queue}"),
        ("GET", "/orgs/{org}/queues/{queue}/flush"),
        ("POST", "/orgs/{org}/queues/{queue}/flush"),
        ("GET", "/orgs/{org}/workflows/{queue}/flush"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/create"),
        ("PUT", "/orgs/{org}/queues/{queue}/tasks/create"),
        ("POST", "/orgs/{org}/queues/{queue}/tasks/completed"),
        ("DELETE", "/orgs/{org}/workflows/{queue}/tasks/completed"),
        ("POST", "/orgs/{org}/queues/{queue}/tasks"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/import"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/next"),
        ("POST", "/orgs/{org}/queues/{queue}/tasks/{task}"),
        ("DELETE", "/orgs/{org}/queues/{queue}/tasks/{task}"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/{task}/heartbeat"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/{task}/release"),
        ("GET", "/orgs/{org}/queues/{queue}/tasks/{task}/complete"),
        ("PUT", "/orgs/{org}/queues/{queue}/tasks/{task}/complete"),
        ("POST", "/orgs/{org}/queues/{queue}/webhook"),
        ("POST", "/orgs/{org}/queues/{queue}/webhook/secret"),
        ("GET", "/orgs/{org}/queues/{queue}/webhook/secret/rotate"),
        ("POST", "/orgs/{org}/queues/{queue}/webhook/deliveries"),
    ],
)
def test_wrong_method_on_known_path_is_405(admin, org_id, queue, method, path):
    qp = f"/orgs/{org_id}/queues/{queue['id']}"
    task = _create(admin, qp)
    before = _snapshot(admin, qp)
    url = path.format(org=org_id, queue=queue["id"], task=task["id"])
    response = admin.request(method, url, json={"data": {"paragraph": "x"}})
    assert_envelope(response, 405, "method_not_allowed")
    assert _snapshot(admin, qp) == before


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("POST", "/webhook", "DELETE, GET, HEAD, PATCH, PUT"),
        ("DELETE", "/tasks/create", "POST"),
        ("PUT", "", "GET, HEAD, PATCH"),
        ("POST", "/webhook/secret", "GET, HEAD"),
    ],
)
def test_a_405_lists_every_method_the_path_serves(admin, qpath, method, path, allowed):
    response = admin.request(method, f"{qpath}{path}")
    assert_envelope(response, 405, "method_not_allowed")
    assert response.headers["allow"] == allowed


# --- 409 -----------------------------------------------------------------------------------------


def test_completing_twice_is_409_already_completed(worker, admin, qpath):
    _create(admin, qpath)
    task = _claim(worker, qpath)
    done = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": GOOD_DATA})
    assert done.status_code == 200, done.text
    before = _snapshot(admin, qpath)
    again = worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "blue"}})
    assert_envelope(again, 409, "already_completed")
    for action in ("heartbeat", "release"):
        assert_envelope(worker.post(f"{qpath}/tasks/{task['id']}/{action}"), 409, "already_completed")
    assert _snapshot(admin, qpath) == before
    stored = admin.get(f"{qpath}/tasks/{task['id']}").json()
    assert stored["status"] == "completed"
    assert stored["data"]["category"] == "red"
    assert stored["completed_at"] == done.json()["completed_at"]


def test_another_workers_task_is_409_not_assignee(clients, admin, qpath):
    _create(admin, qpath)
    task = _claim(clients["worker"], qpath)
    before = _snapshot(admin, qpath)
    other = clients["worker2"]
    assert_envelope(
        other.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": GOOD_DATA}), 409, "not_assignee"
    )
    assert_envelope(other.post(f"{qpath}/tasks/{task['id']}/heartbeat"), 409, "not_assignee")
    assert_envelope(other.post(f"{qpath}/tasks/{task['id']}/release"), 409, "not_assignee")
    # Only the holder may complete: an admin is no exception (it may only release).
    assert_envelope(
        admin.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": GOOD_DATA}), 409, "not_assignee"
    )
    assert _snapshot(admin, qpath) == before
    stored = admin.get(f"{qpath}/tasks/{task['id']}").json()
    assert stored["status"] == "in_progress"
    assert stored["assignment"]["assigned_to"] == "wes@acme.test"


# --- 413 -----------------------------------------------------------------------------------------


def _huge_body(size: int = 2 * MIB) -> bytes:
    return json.dumps({"data": {"paragraph": "x" * size}}).encode()


@pytest.fixture
def own_client(server: ServerProcess) -> Iterator[httpx.Client]:
    """A client of its own, so a connection the server closes early disturbs no other test."""
    with server.client("admin") as client:
        yield client


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("POST", "/tasks/create"), ("POST", "/tasks/import"), ("PUT", "/webhook"), ("PATCH", "")],
)
def test_body_over_1mib_with_content_length_is_413(own_client, admin, qpath, method, suffix):
    before = _snapshot(admin, qpath)
    body = _huge_body()
    response = _raw(own_client, method, qpath + suffix, body)
    assert response.request.headers["content-length"] == str(len(body))
    assert_envelope(response, 413, "payload_too_large")
    assert _snapshot(admin, qpath) == before


@pytest.mark.parametrize("suffix", ["/tasks/create", "/tasks/import"])
def test_chunked_body_over_1mib_without_content_length_is_413(own_client, admin, qpath, suffix):
    before = _snapshot(admin, qpath)
    body = _huge_body()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    response = own_client.post(qpath + suffix, content=chunks(), headers={"Content-Type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert_envelope(response, 413, "payload_too_large")
    assert _snapshot(admin, qpath) == before


def test_body_under_1mib_is_not_413(own_client, qpath):
    body = _huge_body(MIB - 4096)
    assert len(body) <= MIB
    assert (
        own_client.post(
            f"{qpath}/tasks/create", content=body, headers={"Content-Type": "application/json"}
        ).status_code
        != 413
    )


# --- the order of checks: 401, then 404, then 403, then 400 -------------------------------------


def test_authentication_comes_before_everything(clients, other_org):
    anonymous = clients["anonymous"]
    path = f"/orgs/{other_org['org']}/queues/{other_org['queue']}"
    _expect_401(anonymous.put(f"{path}/flush"))
    _expect_401(anonymous.get(f"/orgs/{NO_SUCH_ID}/queues/{NO_SUCH_ID}/tasks/completed?limit=0"))
    _expect_401(_raw(anonymous, "POST", f"{path}/tasks/create", b"{not json"))
    bad = {"Authorization": "Token acme-nobody-0000000000000000"}
    _expect_401(
        anonymous.post(f"/orgs/{NO_SUCH_ID}/queues/{NO_SUCH_ID}/tasks/create", headers=bad, content=b"{")
    )


def test_worker_flushing_another_organizations_queue_gets_404_not_403(clients, other_org, org_id):
    worker = clients["worker"]
    assert_envelope(
        worker.put(f"/orgs/{other_org['org']}/queues/{other_org['queue']}/flush"), 404, "not_found"
    )
    assert_envelope(worker.put(f"/orgs/{org_id}/queues/{other_org['queue']}/flush"), 404, "not_found")
    assert_envelope(worker.put(f"/orgs/{org_id}/queues/{NO_SUCH_ID}/flush"), 404, "not_found")


def test_supervisor_creating_in_unknown_queue_gets_404_not_403(clients, org_id):
    response = clients["supervisor"].post(
        f"/orgs/{org_id}/queues/{NO_SUCH_ID}/tasks/create", json={"data": {"x": 1}}
    )
    assert_envelope(response, 404, "not_found")


@pytest.mark.parametrize("role", ["supervisor", "worker"])
@pytest.mark.parametrize(
    ("method", "suffix", "raw"),
    [
        ("POST", "/tasks/create", b"{not json"),
        ("POST", "/tasks/create", b'{"data": {"category": "purple"}}'),
        ("POST", "/tasks/create", b""),
        ("POST", "/tasks/import", b'{"source": "bad", "tasks": 3}'),
        ("PUT", "/webhook", b'{"target": "ftp://x"}'),
        ("PATCH", "", b'{"data": "nope"}'),
        ("PUT", "/flush", b"{not json"),
    ],
    ids=repr,
)
def test_role_is_checked_before_the_body(clients, admin, qpath, role, method, suffix, raw):
    before = _snapshot(admin, qpath)
    assert_envelope(_raw(clients[role], method, qpath + suffix, raw), 403, "forbidden")
    assert _snapshot(admin, qpath) == before


def test_supervisor_completing_with_bad_body_gets_403(clients, admin, qpath, held):
    supervisor = clients["supervisor"]
    response = _raw(supervisor, "POST", f"{qpath}/tasks/{held['id']}/complete", b"{not json")
    assert_envelope(response, 403, "forbidden")


def test_worker_listing_others_history_with_bad_paging_gets_403_not_400(worker, qpath):
    """A worker may only list completed_by=me: the role (403) comes before the parameters (400)."""
    assert_envelope(worker.get(f"{qpath}/tasks/completed", params={"offset": "-1"}), 403, "forbidden")
    response = worker.get(f"{qpath}/tasks/completed", params={"completed_by": "wyn@acme.test", "limit": "0"})
    assert_envelope(response, 403, "forbidden")


def test_worker_own_history_with_bad_paging_is_400(worker, qpath):
    response = worker.get(f"{qpath}/tasks/completed", params={"completed_by": "me", "limit": "0"})
    assert_envelope(response, 400, "invalid_parameter", "limit")


@pytest.mark.parametrize("action", ["complete", "release", "heartbeat"])
def test_unknown_task_with_malformed_body_is_404_not_400(admin, qpath, held, action):
    response = _raw(admin, "POST", f"{qpath}/tasks/{NO_SUCH_ID}/{action}", b"{not json")
    assert_envelope(response, 404, "not_found")


def test_other_organizations_queue_with_malformed_body_is_404_not_400(admin, other_org):
    path = f"/orgs/{other_org['org']}/queues/{other_org['queue']}/tasks/create"
    assert_envelope(_raw(admin, "POST", path, b"{not json"), 404, "not_found")


# --- 500 -----------------------------------------------------------------------------------------


def test_error_bodies_are_never_tracebacks(admin, qpath):
    """Odd but well-formed input answers with the envelope, never a 500 or a traceback."""
    for body in (
        b'{"data": {"paragraph": "\\u0000"}}',
        b'{"data": {"category": {"a": [[[[]]]]}}}',
        b"1e999999",
    ):
        response = _raw(admin, "POST", f"{qpath}/tasks/create", body)
        assert response.status_code != 500, response.text
        assert "Traceback" not in response.text
        if response.status_code >= 400:
            assert_envelope(response, response.status_code)
