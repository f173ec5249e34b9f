"""B17 users: an admin lists, adds, changes and disables the organization's users; the last active
admin cannot be demoted or disabled; every other role is refused, every other organization unseen."""

import itertools
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from queuedesk.server.store.schema import LATEST
from tests.support import (
    ROLES_SEED,
    Organization,
    ServerProcess,
    assert_envelope,
    execute_sql,
    query_value,
)

USER_FIELDS = {"id", "email", "name", "role", "disabled", "created_at", "last_seen_at"}
_numbers = itertools.count(1)


def new_user(admin: httpx.Client, org: int, role: str = "worker", email: str | None = None) -> dict:
    number = next(_numbers)
    body = {"email": email or f"person{number}@acme.test", "name": f"Person {number}", "role": role}
    made = admin.post(f"/orgs/{org}/users", json=body)
    assert made.status_code == 200, made.text
    return made.json()


def _users(admin: httpx.Client, org: int) -> dict[str, dict]:
    listed = admin.get(f"/orgs/{org}/users")
    assert listed.status_code == 200, listed.text
    return {user["email"]: user for user in listed.json()}


def test_the_list_holds_the_organizations_users_in_id_order(admin: httpx.Client, org_id: int) -> None:
    listed = admin.get(f"/orgs/{org_id}/users").json()
    assert [user["id"] for user in listed] == sorted(user["id"] for user in listed)
    by_email = {user["email"]: user for user in listed}
    assert {"ada@acme.test", "sue@acme.test", "wes@acme.test", "wyn@acme.test"} <= set(by_email)
    assert "gus@globex.test" not in by_email
    ada = by_email["ada@acme.test"]
    assert set(ada) == USER_FIELDS
    assert (ada["name"], ada["role"], ada["disabled"]) == ("Ada", "admin", False)
    assert ada["created_at"].endswith("Z")
    # Ada's own requests (this one's included) are recorded, at most a minute late.
    seen = datetime.fromisoformat(ada["last_seen_at"])
    assert (datetime.now(UTC) - seen).total_seconds() < 120


def test_an_added_user_is_answered_and_listed(own_org: Organization) -> None:
    admin, org_id = own_org.client(), own_org.id
    email = f"new.person.{uuid.uuid4().hex[:8]}@acme.test"  # the database outlives one run of this test
    made = admin.post(f"/orgs/{org_id}/users", json={"email": email, "name": " New ", "role": "supervisor"})
    assert made.status_code == 200, made.text
    user = made.json()
    assert set(user) == USER_FIELDS
    assert (user["email"], user["name"], user["role"]) == (email, "New", "supervisor")
    assert (user["disabled"], user["last_seen_at"]) == (False, None)
    assert _users(admin, org_id)[email] == user


def test_a_duplicate_email_is_a_conflict_in_any_case(own_org: Organization) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    again = admin.post(
        f"/orgs/{org_id}/users", json={"email": user["email"].upper(), "name": "Twin", "role": "worker"}
    )
    body = assert_envelope(again, 409, "conflict")
    assert user["email"].upper() in body["errors"][0]["message"]


def test_the_same_email_may_be_used_in_another_organization(
    own_org: Organization, new_org: Callable[[], Organization]
) -> None:
    other = new_org()
    user = new_user(own_org.client(), own_org.id)
    made = other.client().post(
        f"/orgs/{other.id}/users", json={"email": user["email"], "name": "Twin", "role": "worker"}
    )
    assert made.status_code == 200, made.text


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"email": "not-an-email", "name": "X", "role": "worker"}, "email", "invalid_value"),
        ({"email": "two words@acme.test", "name": "X", "role": "worker"}, "email", "invalid_value"),
        ({"email": "line@acme.test\n", "name": "X", "role": "worker"}, "email", "invalid_value"),
        ({"email": 7, "name": "X", "role": "worker"}, "email", "invalid_value"),
        ({"email": "ok@acme.test", "name": "  ", "role": "worker"}, "name", "invalid_value"),
        ({"email": "ok@acme.test", "name": "X", "role": "owner"}, "role", "invalid_value"),
        ({"email": "ok@acme.test", "name": "X"}, "role", "missing_required"),
        ({"email": "ok@acme.test", "name": "X", "role": "worker", "age": 3}, "age", "unknown_field"),
    ],
)
def test_a_bad_new_user_is_refused_naming_the_field(
    own_org: Organization, body: dict, field: str, code: str
) -> None:
    admin, org_id = own_org.client(), own_org.id
    assert_envelope(admin.post(f"/orgs/{org_id}/users", json=body), 400, code, field)
    assert "ok@acme.test" not in _users(admin, org_id)


def test_name_role_and_disabled_change(own_org: Organization) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    path = f"/orgs/{org_id}/users/{user['id']}"
    changed = admin.patch(path, json={"name": "Renamed", "role": "supervisor"})
    assert changed.status_code == 200, changed.text
    assert changed.json() == {**user, "name": "Renamed", "role": "supervisor"}
    disabled = admin.patch(path, json={"disabled": True}).json()
    assert disabled["disabled"] is True
    assert admin.patch(path, json={"disabled": False}).json()["disabled"] is False
    assert _users(admin, org_id)[user["email"]]["name"] == "Renamed"


@pytest.mark.parametrize(
    ("body", "field"),
    [({"role": "boss"}, "role"), ({"disabled": "yes"}, "disabled"), ({"email": "x@y.z"}, "email")],
)
def test_a_bad_change_is_refused_naming_the_field(own_org: Organization, body: dict, field: str) -> None:
    admin, org_id = own_org.client(), own_org.id
    user = new_user(admin, org_id)
    assert_envelope(admin.patch(f"/orgs/{org_id}/users/{user['id']}", json=body), 400, field=field)
    assert _users(admin, org_id)[user["email"]] == user


def test_the_last_active_admin_can_be_neither_demoted_nor_disabled(own_org: Organization) -> None:
    admin, org_id, email = own_org.client(), own_org.id, own_org.email("admin")
    ada = _users(admin, org_id)[email]
    ada_path = f"/orgs/{org_id}/users/{ada['id']}"
    for change in (
        {"role": "worker"},
        {"role": "supervisor"},
        {"disabled": True},
        {"role": "worker", "disabled": True},
    ):
        body = assert_envelope(admin.patch(ada_path, json=change), 409, "last_admin")
        assert email in body["errors"][0]["message"]
    # A second admin, once disabled, does not count: Ada is still the last active one.
    second = new_user(admin, org_id, role="admin")
    second_path = f"/orgs/{org_id}/users/{second['id']}"
    assert admin.patch(second_path, json={"disabled": True}).status_code == 200
    assert_envelope(admin.patch(ada_path, json={"role": "worker"}), 409, "last_admin")
    # While Ada is active, the second admin may be demoted; renaming the last admin is fine.
    assert admin.patch(second_path, json={"disabled": False, "role": "worker"}).status_code == 200
    assert admin.patch(ada_path, json={"name": "Ada"}).json()["role"] == "admin"
    assert _users(admin, org_id)[email]["role"] == "admin"


def _every_endpoint(org: int, user_id: int, key_id: int) -> list[tuple[str, str, dict | None]]:
    user = f"/orgs/{org}/users/{user_id}"
    return [
        ("GET", f"/orgs/{org}/users", None),
        ("POST", f"/orgs/{org}/users", {"email": "refused@acme.test", "name": "R", "role": "worker"}),
        ("PATCH", user, {"name": "Refused"}),
        ("GET", f"{user}/keys", None),
        ("POST", f"{user}/keys", None),
        ("DELETE", f"{user}/keys/{key_id}", None),
    ]


@pytest.fixture
def target(own_org: Organization) -> tuple[dict, int]:
    """A worker with one key in the test's own organization, for the refusal tests to aim at."""
    user = new_user(own_org.client(), own_org.id)
    key = own_org.client().post(f"/orgs/{own_org.id}/users/{user['id']}/keys").json()
    return user, key["id"]


@pytest.mark.parametrize("role", ["supervisor", "worker"])
def test_other_roles_are_forbidden_every_endpoint(
    own_org: Organization, target: tuple[dict, int], role: str
) -> None:
    admin, org_id = own_org.client(), own_org.id
    user, key_id = target
    for method, path, body in _every_endpoint(org_id, user["id"], key_id):
        if role == "supervisor" and (method, path) == ("GET", f"/orgs/{org_id}/users"):
            continue  # a supervisor lists users (the roles table; tests/server/test_roles_table.py)
        refused = own_org.client(role).request(method, path, json=body)
        assert_envelope(refused, 403, "forbidden")
    assert _users(admin, org_id)[user["email"]] == user
    assert [key["id"] for key in admin.get(f"/orgs/{org_id}/users/{user['id']}/keys").json()] == [key_id]


def test_another_organization_sees_nothing(
    own_org: Organization, new_org: Callable[[], Organization], target: tuple[dict, int]
) -> None:
    """The other organization's admin on this one's paths, and this one's admin on the other's admin
    under its own path: 404."""
    admin, org_id = own_org.client(), own_org.id
    other = new_org()
    other_admin = other.client()
    user, key_id = target
    for method, path, body in _every_endpoint(org_id, user["id"], key_id):
        assert_envelope(other_admin.request(method, path, json=body), 404, "not_found")
    gus = _users(other_admin, other.id)[other.email("admin")]
    for method, path, body in _every_endpoint(org_id, gus["id"], key_id)[2:]:
        assert_envelope(admin.request(method, path, json=body), 404, "not_found")
    assert _users(other_admin, other.id)[other.email("admin")] == gus


def test_unknown_users_and_keys_are_not_found_before_the_role_is_checked(
    own_org: Organization, target: tuple[dict, int]
) -> None:
    org_id = own_org.id
    user, key_id = target
    for client in (own_org.client("admin"), own_org.client("worker")):
        assert_envelope(client.patch(f"/orgs/{org_id}/users/999999", json={"name": "X"}), 404)
        assert_envelope(client.get(f"/orgs/{org_id}/users/999999/keys"), 404)
        assert_envelope(client.delete(f"/orgs/{org_id}/users/{user['id']}/keys/{key_id + 999}"), 404)


def test_without_a_key_every_endpoint_is_unauthenticated(
    clients: dict[str, httpx.Client], own_org: Organization, target: tuple[dict, int]
) -> None:
    user, key_id = target
    for method, path, body in _every_endpoint(own_org.id, user["id"], key_id):
        assert_envelope(clients["anonymous"].request(method, path, json=body), 401)


V7_TRIGGERS = {
    "sqlite": [
        "DROP TRIGGER qd_access_users_update",
        "DROP TRIGGER qd_access_api_keys_update",
        "CREATE TRIGGER qd_access_users_update AFTER UPDATE ON users "
        "BEGIN UPDATE access_version SET version = version + 1; END",
        "CREATE TRIGGER qd_access_api_keys_update AFTER UPDATE ON api_keys "
        "BEGIN UPDATE access_version SET version = version + 1; END",
    ],
    "postgresql": [
        "DROP TRIGGER qd_access_users ON users",
        "DROP TRIGGER qd_access_api_keys ON api_keys",
        "CREATE TRIGGER qd_access_users AFTER UPDATE OR DELETE ON users "
        "FOR EACH STATEMENT EXECUTE FUNCTION qd_access_changed()",
        "CREATE TRIGGER qd_access_api_keys AFTER UPDATE OR DELETE ON api_keys "
        "FOR EACH STATEMENT EXECUTE FUNCTION qd_access_changed()",
    ],
}


def test_a_version_7_database_learns_about_people(tmp_path: Path, backend: str) -> None:
    """Version 7's users and triggers, with `api_keys.last_used_at` already there (as if a partial copy
    of the step had run): the upgrade adds only what is missing and narrows the triggers."""
    fresh = ServerProcess(tmp_path / "v6.db", seed=ROLES_SEED, backend=backend).start()
    fresh.stop()
    db_url = fresh.db_url
    for statement in V7_TRIGGERS[backend][:2]:
        execute_sql(db_url, statement)
    execute_sql(db_url, "ALTER TABLE users DROP COLUMN disabled")
    execute_sql(db_url, "ALTER TABLE users DROP COLUMN last_seen_at")
    for statement in V7_TRIGGERS[backend][2:]:
        execute_sql(db_url, statement)
    execute_sql(db_url, "UPDATE schema_version SET version = 7")

    server = ServerProcess(tmp_path / "v6.db", backend=backend).start()
    try:
        with server.client("admin") as admin, server.client("worker") as worker:
            assert worker.get("/me").status_code == 200  # recorded: a write the triggers ignore
            version = query_value(db_url, "SELECT version FROM access_version")
            people = {user["email"]: user for user in admin.get("/orgs/1/users").json()}
            assert people["wes@acme.test"]["disabled"] is False
            assert people["wes@acme.test"]["last_seen_at"] is not None
            assert query_value(db_url, "SELECT version FROM access_version") == version
            wes = people["wes@acme.test"]["id"]
            assert admin.patch(f"/orgs/1/users/{wes}", json={"disabled": True}).status_code == 200
            assert_envelope(worker.get("/me"), 401)
    finally:
        server.stop()
    assert query_value(db_url, "SELECT version FROM schema_version") == LATEST


def test_two_admins_demoting_each_other_at_once_leave_one_admin(
    server: ServerProcess, own_org: Organization
) -> None:
    """The organization's two admins each demote the other at the same moment, a few times: one change
    wins, never both (changes to one organization's people take turns)."""
    from concurrent.futures import ThreadPoolExecutor

    org = own_org.id
    gus_admin = own_org.client()
    gus = _users(gus_admin, org)[own_org.email("admin")]
    for _ in range(3):
        second = new_user(gus_admin, org, role="admin", email=f"rival{next(_numbers)}@own.test")
        key = gus_admin.post(f"/orgs/{org}/users/{second['id']}/keys").json()["key"]
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=30
        ) as rival:
            with ThreadPoolExecutor(2) as pool:
                answers = list(
                    pool.map(
                        lambda pair: pair[0].patch(f"/orgs/{org}/users/{pair[1]}", json={"role": "worker"}),
                        [(gus_admin, second["id"]), (rival, gus["id"])],
                    )
                )
            # The loser is refused as the last admin, or, when its request came after its own
            # demotion, as the worker it has become.
            codes = sorted(a.status_code for a in answers)
            assert codes in ([200, 403], [200, 409]), [a.text for a in answers]
            winner = gus_admin if answers[0].status_code == 200 else rival
            admins = [u for u in _users(winner, org).values() if u["role"] == "admin" and not u["disabled"]]
            assert len(admins) == 1
            if winner is rival:  # give the first admin the role back for the next round
                restored = rival.patch(f"/orgs/{org}/users/{gus['id']}", json={"role": "admin"})
                assert restored.status_code == 200, restored.text
        gus_admin.patch(f"/orgs/{org}/users/{second['id']}", json={"role": "worker", "disabled": True})
    assert _users(gus_admin, org)[own_org.email("admin")]["role"] == "admin"
