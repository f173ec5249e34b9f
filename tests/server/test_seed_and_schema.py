"""`queuedesk serve --seed`, `queuedesk keys`, and the versioned schema, as a user runs them."""

import copy
import json
import sqlite3
from pathlib import Path

import httpx

from queuedesk.server.store.schema import LATEST
from tests.server.conftest import sqlite_only
from tests.support import ROLES_SEED, ServerProcess, run_cli


def _state(server: ServerProcess) -> dict:
    """Everything the seed could have created, as the API shows it."""
    with server.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        queues = admin.get(f"/orgs/{org}/queues").json()
        pending = {q["id"]: admin.get(f"/orgs/{org}/queues/{q['id']}/tasks").json()["count"] for q in queues}
    return {"queues": [(q["id"], q["name"], q["n_tasks"]) for q in queues], "pending": pending}


def test_seed_applied_twice_creates_nothing_the_second_time(tmp_path: Path, backend: str) -> None:
    db = tmp_path / "seeded.db"
    first = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    before = _state(first)
    first.stop()
    assert "created queue 'Categorization'" in first.log()
    second = ServerProcess(db, seed=ROLES_SEED, backend=backend).start()
    after = _state(second)
    second.stop()
    assert after == before
    assert before["queues"][0][2] == 1  # the seeded task, once
    assert "nothing to create" in second.log()
    assert "created" not in second.log().replace("nothing to create", "")


def test_seed_adds_only_what_is_new(tmp_path: Path, backend: str) -> None:
    db = tmp_path / "grow.db"
    ServerProcess(db, seed=ROLES_SEED, backend=backend).start().stop()
    grown = copy.deepcopy(ROLES_SEED)
    grown["organizations"][0]["queues"].append(
        {
            "name": "Later",
            "blocks": [{"id": "t", "name": "T", "type": "text"}],
            "tasks": [{"data": {"t": "x"}}],
        }
    )
    server = ServerProcess(db, seed=grown, backend=backend).start()
    state = _state(server)
    server.stop()
    assert [name for _, name, _ in state["queues"]] == ["Categorization", "Later"]
    assert [n for _, _, n in state["queues"]] == [1, 1]


def test_seed_generates_a_key_once_for_a_user_without_one(tmp_path: Path, backend: str) -> None:
    seed = {"organizations": [{"name": "Solo", "users": [{"email": "sol@solo.test", "role": "admin"}]}]}
    first = ServerProcess(tmp_path / "solo.db", seed=seed, backend=backend).start()
    first.stop()
    lines = [line for line in first.log().splitlines() if "API key for sol@solo.test:" in line]
    assert len(lines) == 1
    key = lines[0].split("API key for sol@solo.test: ")[1].split()[0]
    second = ServerProcess(tmp_path / "solo.db", seed=seed, backend=backend).start()
    me = httpx.get(f"{second.url}/me", headers={"Authorization": f"Token {key}"})
    second.stop()
    assert me.status_code == 200 and me.json()["role"] == "admin"
    assert "API key for" not in second.log()


def test_a_bad_seed_creates_nothing_and_says_where(tmp_path: Path, backend: str) -> None:
    bad = copy.deepcopy(ROLES_SEED)
    bad["organizations"][0]["queues"][0]["blocks"][1]["single_selection"]["options"] = []
    seed_path = tmp_path / "bad.json"
    seed_path.write_text(json.dumps(bad))
    db_url = ServerProcess(tmp_path / "bad.db", backend=backend).db_url
    result = run_cli(["serve", "--db", db_url, "--port", "1", "--seed", str(seed_path)])
    assert result.returncode == 2
    assert "organizations[0].queues[0].blocks[1].single_selection.options" in result.stderr
    assert "Traceback" not in result.stderr
    listing = run_cli(["admin-keys", "list", "--db", db_url])  # the seed's users and keys come first
    assert listing.returncode == 0 and "no API keys" in listing.stderr


def test_toml_seed_from_the_contract(tmp_path: Path, backend: str) -> None:
    toml = tmp_path / "seed.toml"
    toml.write_text(
        """
[[organizations]]
name = "Acme"
  [[organizations.users]]
  email = "ada@acme.test"
  name = "Ada"
  role = "admin"
  api_key = "acme-ada-0123456789abcdef"
  [[organizations.queues]]
  name = "Categorization"
  description = "Sort incoming reports"
  webhook = "http://127.0.0.1:9000/hook"
  gold_percent = 20
    [[organizations.queues.blocks]]
    id = "category"
    name = "Category"
    type = "single_selection"
    single_selection = { is_required = true, options = [{ id = "red", name = "Red" }, { id = "blue", name = "Blue" }] }
    [[organizations.queues.tasks]]
    data = { category = "red" }
"""
    )
    server = ServerProcess(tmp_path / "toml.db", ["--seed", str(toml)], backend=backend).start()
    with server.client("admin") as admin:
        queue = admin.get("/orgs/1/queues/1").json()
        hook = admin.get("/orgs/1/queues/1/webhook").json()
    server.stop()
    assert queue["description"] == "Sort incoming reports"
    assert queue["n_tasks"] == 1 and queue["gold_percent"] == 20
    assert hook == {"target": "http://127.0.0.1:9000/hook"}


def test_keys_create_list_revoke(tmp_path: Path, backend: str) -> None:
    db_url = ServerProcess(tmp_path / "keys.db", backend=backend).db_url
    created = run_cli(
        [
            "admin-keys",
            "create",
            "--db",
            db_url,
            "--email",
            "kim@k.test",
            "--org",
            "K",
            "--role",
            "supervisor",
        ]
    )
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert key.startswith("qd_") and len(key) > 30
    if backend == "sqlite":
        with sqlite3.connect(tmp_path / "keys.db") as conn:
            stored = [row[0] for row in conn.execute("SELECT key_hash FROM api_keys")]
        assert key not in stored and len(stored) == 1  # only the hash is kept
    listing = run_cli(["admin-keys", "list", "--db", db_url])
    assert "kim@k.test" in listing.stdout and key[:8] in listing.stdout and key not in listing.stdout
    server = ServerProcess(tmp_path / "keys.db", backend=backend).start()
    auth = {"Authorization": f"Token {key}"}
    assert httpx.get(f"{server.url}/me", headers=auth).json()["role"] == "supervisor"
    key_id = listing.stdout.splitlines()[1].split()[0]
    assert run_cli(["admin-keys", "revoke", "--db", db_url, key_id]).returncode == 0
    revoked = httpx.get(f"{server.url}/me", headers=auth)
    server.stop()
    assert revoked.status_code == 401
    again = run_cli(["admin-keys", "revoke", "--db", db_url, key_id])
    assert again.returncode == 2 and "no active API key" in again.stderr


def test_keys_create_for_unknown_user_without_org_explains(tmp_path: Path, backend: str) -> None:
    db_url = ServerProcess(tmp_path / "k.db", backend=backend).db_url
    result = run_cli(["admin-keys", "create", "--db", db_url, "--email", "nobody@x.test"])
    assert result.returncode == 2
    assert "give --org" in result.stderr


def test_new_database_is_at_the_latest_schema(tmp_path: Path, backend: str) -> None:
    sqlite_only(backend, "reads the SQLite file")
    ServerProcess(tmp_path / "fresh.db", seed=ROLES_SEED, backend=backend).start().stop()
    with sqlite3.connect(tmp_path / "fresh.db") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(LATEST,)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_database_from_a_newer_queuedesk_is_refused(tmp_path: Path, backend: str) -> None:
    sqlite_only(backend, "edits the SQLite file")
    ServerProcess(tmp_path / "future.db", seed=ROLES_SEED, backend=backend).start().stop()
    with sqlite3.connect(tmp_path / "future.db") as conn:
        conn.execute("UPDATE schema_version SET version = ?", (LATEST + 1,))
    result = run_cli(["serve", "--db", f"sqlite:///{tmp_path / 'future.db'}", "--port", "1"])
    assert result.returncode == 2
    assert f"schema version {LATEST + 1}" in result.stderr and "upgrade QueueDesk" in result.stderr


FIXTURE_V1 = Path(__file__).parent.parent / "fixtures" / "queuedesk-v1.db"


def _schema(db: Path) -> dict[str, object]:
    """Tables with their columns (name, type, not-null), the indexes and the triggers, as SQLite reports them."""
    with sqlite3.connect(db) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        return {
            "columns": {
                t: sorted((c[1], c[2].upper(), c[3]) for c in conn.execute(f"PRAGMA table_info({t})"))
                for t in tables
            },
            "indexes": sorted(
                r[0]
                for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")
            ),
            "triggers": sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'")),
            "autoincrement": sorted(
                r[0]
                for r in conn.execute("SELECT name, sql FROM sqlite_master WHERE type='table'")
                if "AUTOINCREMENT" in r[1].upper()
            ),
        }


def test_a_version_1_database_is_upgraded_in_place(tmp_path: Path, backend: str) -> None:
    sqlite_only(backend, "the version 1 fixture is a SQLite file")
    db = tmp_path / "old.db"
    db.write_bytes(FIXTURE_V1.read_bytes())
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (1,)
    server = ServerProcess(db, backend=backend).start()
    try:
        with server.client("admin") as admin, server.client("worker") as worker:
            history = admin.get("/orgs/1/queues/1/tasks/completed").json()
            pending = admin.get("/orgs/1/queues/1/tasks").json()
            hook = admin.get("/orgs/1/queues/1/webhook").json()
            secret = admin.get("/orgs/1/queues/1/webhook/secret")
            resumed = worker.post("/orgs/1/queues/1/tasks/next").json()
            deliveries = admin.get("/orgs/1/queues/1/webhook/deliveries").json()
    finally:
        server.stop()
    # What version 1 held is all there...
    assert [(t["id"], t["completed_by"], t["data"]["category"]) for t in history["tasks"]] == [
        (1, "wes@acme.test", "blue")
    ]
    assert [(t["id"], t["status"]) for t in pending["tasks"]] == [(3, "in_progress"), (4, "new"), (5, "new")]
    assert hook == {"target": "http://127.0.0.1:9/hook"}
    assert resumed["id"] == 3  # the worker's claim from version 1 is still theirs
    # ...and version 2's additions work on it.
    assert secret.status_code == 200 and secret.json()["secret"].startswith("whsec_")
    assert deliveries["count"] == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(LATEST,)]


def test_an_upgraded_database_has_the_same_schema_as_a_new_one(tmp_path: Path, backend: str) -> None:
    sqlite_only(backend, "the version 1 fixture is a SQLite file")
    old = tmp_path / "old.db"
    old.write_bytes(FIXTURE_V1.read_bytes())
    ServerProcess(old, backend=backend).start().stop()
    ServerProcess(tmp_path / "new.db", seed=ROLES_SEED, backend=backend).start().stop()
    assert _schema(old) == _schema(tmp_path / "new.db")
