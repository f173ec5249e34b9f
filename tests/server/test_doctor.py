"""`queuedesk doctor` finds a counter changed behind the server's back, and `--fix` sets it right."""

import httpx

from tests.support import ServerProcess, execute_sql, query_value, run_cli


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
