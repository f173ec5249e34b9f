"""`queuedesk doctor` finds a counter changed, or a trigger dropped, behind the server's back, and
`--fix` sets it right."""

from pathlib import Path

import httpx
import pytest

from tests.support import ROLES_SEED, ServerProcess, execute_sql, query_value, run_cli


def test_doctor_finds_and_fixes_drift(
    admin: httpx.Client, server: ServerProcess, qpath: str, queue: dict
) -> None:
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"t{i}"}} for i in range(3)]}
    assert admin.post(f"{qpath}/tasks/import", json=body).status_code == 200
    assert run_cli(["doctor", "--db", server.db_url]).returncode == 0
    execute_sql(server.db_url, f"UPDATE queues SET n_tasks = 42 WHERE id = {queue['id']}")
    found = run_cli(["doctor", "--db", server.db_url])
    assert found.returncode == 1, found.stderr
    assert "42" in found.stdout and queue["name"][:30] in found.stdout
    assert run_cli(["doctor", "--db", server.db_url, "--fix"]).returncode == 1
    assert query_value(server.db_url, f"SELECT n_tasks FROM queues WHERE id = {queue['id']}") == 3
    assert run_cli(["doctor", "--db", server.db_url]).returncode == 0
    assert admin.get(qpath).json()["n_tasks"] == 3


@pytest.mark.parametrize("trigger", ["qd_rollup_insert", "access"])
def test_doctor_finds_a_missing_trigger_and_makes_it_again(
    tmp_path: Path, backend: str, trigger: str
) -> None:
    """A trigger dropped behind the server's back (a restore by hand, a SQL shell): without it the
    stats stop counting, or other processes keep a revoked key; `doctor` says so and `--fix` mends it."""
    server = ServerProcess(tmp_path / "doctor.db", seed=ROLES_SEED, backend=backend).start()
    server.stop()  # the schema is made; doctor works on the database alone
    name = trigger
    if trigger == "access":
        name = "qd_access_api_keys" if backend == "postgresql" else "qd_access_api_keys_update"
    on = " ON api_keys" if backend == "postgresql" and trigger == "access" else ""
    on = " ON tasks" if backend == "postgresql" and trigger != "access" else on
    assert run_cli(["doctor", "--db", server.db_url]).returncode == 0
    execute_sql(server.db_url, f"DROP TRIGGER {name}{on}")
    found = run_cli(["doctor", "--db", server.db_url])
    assert found.returncode == 1, found.stderr
    assert f"trigger {name} is missing" in found.stderr
    fixed = run_cli(["doctor", "--db", server.db_url, "--fix"])
    assert fixed.returncode == 1 and "fixed" in fixed.stderr, fixed.stderr
    again = run_cli(["doctor", "--db", server.db_url])
    assert again.returncode == 0, again.stderr
