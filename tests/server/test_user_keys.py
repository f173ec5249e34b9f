"""B17 keys: issued once and shown once, listed by prefix, revoked at once; a disabled user's keys are
refused at once, in this server and in another one on the same database; a key's use is recorded at
most once a minute and never makes any server forget what it remembers."""

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from tests.server.test_users import new_user
from tests.support import Organization, ServerProcess, assert_envelope, query_value

KEY_FIELDS = {"id", "prefix", "created_at", "last_used_at"}


def _issue(admin: httpx.Client, org: int, user_id: int) -> dict:
    issued = admin.post(f"/orgs/{org}/users/{user_id}/keys")
    assert issued.status_code == 200, issued.text
    return issued.json()


def _as(server: ServerProcess, key: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=30)


@pytest.fixture(scope="module")
def second_server(server: ServerProcess) -> Iterator[ServerProcess]:
    """Another `serve` process on the session server's database."""
    process = ServerProcess(server.db_path, backend=server.backend).start()
    yield process
    process.stop()


def test_a_key_is_shown_once_and_works_for_its_user(server: ServerProcess, own_org: Organization) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id, role="supervisor")
    issued = _issue(admin, org_id, user["id"])
    assert set(issued) == {"id", "prefix", "key"}
    assert issued["key"].startswith(issued["prefix"]) and len(issued["key"]) > len(issued["prefix"]) + 16
    with _as(server, issued["key"]) as client:
        me = client.get("/me").json()
    assert (me["email"], me["role"]) == (user["email"], "supervisor")
    listed = admin.get(f"/orgs/{org_id}/users/{user['id']}/keys").json()
    assert [set(key) for key in listed] == [KEY_FIELDS]
    assert (listed[0]["id"], listed[0]["prefix"]) == (issued["id"], issued["prefix"])
    assert issued["key"] not in str(listed)
    # Only the hash and the prefix are kept.
    stored = query_value(
        server.db_url, f"SELECT key_hash || '|' || prefix FROM api_keys WHERE id = {issued['id']}"
    )
    assert issued["key"] not in stored


def test_a_use_is_recorded_once_a_minute_without_moving_the_access_version(
    server: ServerProcess, own_org: Organization
) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    issued = _issue(admin, org_id, user["id"])
    keys_path = f"/orgs/{org_id}/users/{user['id']}/keys"
    assert admin.get(keys_path).json()[0]["last_used_at"] is None
    version = query_value(server.db_url, "SELECT version FROM access_version")
    with _as(server, issued["key"]) as client:
        assert client.get("/me").status_code == 200
        first = admin.get(keys_path).json()[0]["last_used_at"]
        assert first is not None
        assert (datetime.now(UTC) - datetime.fromisoformat(first)).total_seconds() < 60
        assert client.get("/me").status_code == 200
        assert admin.get(keys_path).json()[0]["last_used_at"] == first  # no second write within the minute
    seen = {u["id"]: u for u in admin.get(f"/orgs/{org_id}/users").json()}[user["id"]]["last_seen_at"]
    assert seen == first
    assert query_value(server.db_url, "SELECT version FROM access_version") == version


def test_a_revoked_key_is_refused_at_once_here_and_in_another_server(
    server: ServerProcess, second_server: ServerProcess, own_org: Organization
) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    kept, revoked = _issue(admin, org_id, user["id"]), _issue(admin, org_id, user["id"])
    with _as(server, revoked["key"]) as here, _as(second_server, revoked["key"]) as there:
        assert here.get("/me").status_code == 200 and there.get("/me").status_code == 200  # both remember it
        gone = admin.delete(f"/orgs/{org_id}/users/{user['id']}/keys/{revoked['id']}")
        assert gone.status_code == 200 and gone.content == b""
        assert_envelope(here.get("/me"), 401, "invalid_token")
        assert_envelope(there.get("/me"), 401, "invalid_token")
    listed = admin.get(f"/orgs/{org_id}/users/{user['id']}/keys").json()
    assert [key["id"] for key in listed] == [kept["id"]]
    assert_envelope(admin.delete(f"/orgs/{org_id}/users/{user['id']}/keys/{revoked['id']}"), 404)
    with _as(second_server, kept["key"]) as client:
        assert client.get("/me").status_code == 200


def test_a_key_is_revoked_only_through_its_own_user(own_org: Organization) -> None:
    admin, org_id = own_org.client(), own_org.id
    owner, other = new_user(admin, org_id), new_user(admin, org_id)
    issued = _issue(admin, org_id, owner["id"])
    assert_envelope(admin.delete(f"/orgs/{org_id}/users/{other['id']}/keys/{issued['id']}"), 404)
    assert [key["id"] for key in admin.get(f"/orgs/{org_id}/users/{owner['id']}/keys").json()] == [
        issued["id"]
    ]


def test_a_disabled_users_keys_are_refused_at_once_in_every_server(
    server: ServerProcess, second_server: ServerProcess, own_org: Organization
) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    path = f"/orgs/{org_id}/users/{user['id']}"
    issued = _issue(admin, org_id, user["id"])
    with _as(server, issued["key"]) as here, _as(second_server, issued["key"]) as there:
        assert here.get("/me").status_code == 200 and there.get("/me").status_code == 200
        assert admin.patch(path, json={"disabled": True}).status_code == 200
        assert_envelope(here.get("/me"), 401, "invalid_token")
        assert_envelope(there.get("/me"), 401, "invalid_token")
        assert_envelope(admin.post(f"{path}/keys"), 409, "conflict")
        assert admin.patch(path, json={"disabled": False}).status_code == 200
        assert here.get("/me").status_code == 200 and there.get("/me").status_code == 200


def test_a_disabled_admin_is_refused_even_on_the_users_endpoints(
    server: ServerProcess, own_org: Organization
) -> None:
    admin, org_id = own_org.client(), own_org.id
    second = new_user(admin, org_id, role="admin")
    issued = _issue(admin, org_id, second["id"])
    with _as(server, issued["key"]) as client:
        assert client.get(f"/orgs/{org_id}/users").status_code == 200
        assert admin.patch(f"/orgs/{org_id}/users/{second['id']}", json={"disabled": True}).status_code == 200
        assert_envelope(client.get(f"/orgs/{org_id}/users"), 401)
        assert_envelope(client.patch(f"/orgs/{org_id}/users/{second['id']}", json={"disabled": False}), 401)
