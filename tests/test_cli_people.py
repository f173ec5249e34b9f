"""`queuedesk users ...` and `queuedesk keys ...` (over the API) run as real subprocesses against the
real server; `queuedesk admin-keys` and its old name `keys ... --db` still bootstrap in the database."""

import itertools
from collections.abc import Callable

import httpx

from tests import test_cli
from tests.support import KEYS, ServerProcess
from tests.test_cli import Result

cli = test_cli.cli  # the fixture: `cli("users", "list")` runs `queuedesk users list` as the admin

_numbers = itertools.count(1)


def _email() -> str:
    return f"cli.person{next(_numbers)}@acme.test"


def _me(server: ServerProcess, key: str) -> httpx.Response:
    return httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {key}"}, timeout=30)


def test_users_add_list_set_role_disable_enable(cli: Callable[..., Result]) -> None:
    email = _email()
    added = cli("users", "add", email, "--name", "Kim Cli", "--role", "supervisor")
    assert added.code == 0, added
    assert "Added user" in added.out and email in added.out and "supervisor" in added.out

    table = cli("users", "list")
    assert table.code == 0, table
    row = next(line for line in table.out.splitlines() if email in line)
    assert "Kim Cli" in row and "supervisor" in row and "active" in row and "never" in row

    changed = cli("users", "set-role", email.upper(), "worker", "--json")
    assert changed.code == 0, changed
    assert (changed.json()["email"], changed.json()["role"]) == (email, "worker")

    assert cli("users", "disable", email).code == 0
    listed = {u["email"]: u for u in cli("users", "list", "--json").json()}
    assert listed[email]["disabled"] is True and listed[email]["role"] == "worker"
    assert cli("users", "enable", str(listed[email]["id"])).code == 0
    assert {u["email"]: u for u in cli("users", "list", "--json").json()}[email]["disabled"] is False


def test_refusals_say_what_to_do_with_their_exit_codes(cli: Callable[..., Result]) -> None:
    last = cli("users", "set-role", "ada@acme.test", "worker")
    assert last.code == 5, last
    assert "last active admin" in last.err and "make another user admin" in last.err
    assert cli("users", "disable", "ada@acme.test").code == 5

    email = _email()
    assert cli("users", "add", email).code == 0
    twice = cli("users", "add", email)
    assert twice.code == 5 and "already has a user" in twice.err, twice

    bad = cli("users", "add", "not an email")
    assert bad.code == 2 and "not an email address" in bad.err and "nothing was sent" in bad.err, bad
    unknown = cli("users", "disable", "nobody@acme.test")
    assert unknown.code == 4 and "users list" in unknown.err, unknown

    worker = cli("users", "list", token=KEYS["worker"])
    assert worker.code == 3 and "may not list users" in worker.err, worker  # supervisors may: the roles table


def test_keys_create_list_revoke(cli: Callable[..., Result], server: ServerProcess) -> None:
    email = _email()
    assert cli("users", "add", email, "--role", "worker").code == 0
    created = cli("keys", "create", email)
    assert created.code == 0, created
    key = created.out.strip()
    assert "\n" not in key and _me(server, key).json()["email"] == email

    listed = cli("keys", "list", email)
    assert listed.code == 0, listed
    assert key[:8] in listed.out and key not in listed.out
    everyone = cli("keys", "list", "--json").json()
    mine = [k for k in everyone if k["email"] == email]
    assert len(mine) == 1 and mine[0]["prefix"] == key[:8] and "key" not in mine[0]
    assert {"ada@acme.test", "wes@acme.test"} <= {k["email"] for k in everyone}

    revoked = cli("keys", "revoke", email, str(mine[0]["id"]))
    assert revoked.code == 0 and "no longer works" in revoked.out, revoked
    assert _me(server, key).status_code == 401
    again = cli("keys", "revoke", email, str(mine[0]["id"]))
    assert again.code == 4, again


def test_database_keys_bootstrap_under_their_new_name_and_the_old_one(
    cli: Callable[..., Result], server: ServerProcess
) -> None:
    new = cli("admin-keys", "list", "--db", server.db_url, "--email", "ada@acme.test", url="")
    assert new.code == 0 and "ada@acme.test" in new.out and "note:" not in new.err, new
    old = cli("keys", "list", "--db", server.db_url, "--email", "ada@acme.test", url="")
    assert old.code == 0 and old.out == new.out, old
    assert "admin-keys" in old.err
