"""Configuration from the environment (Part C): every `serve` option reads `QUEUEDESK_<OPTION>` and
the flag wins; `doctor`, `prune` and `backup` read `QUEUEDESK_DB`; the suite's servers get none of
the developer's QUEUEDESK_ variables. Over real HTTP against real servers, on both databases."""

import json
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from queuedesk.service_environment import cleared
from tests.support import ROLES_SEED, ServerProcess, free_port, queuedesk_command
from tests.support.contract import body_of, claim, create
from tests.support.loopback import loopback_client
from tests.support.seeds import KEYS


def _environment(**values: str) -> dict[str, str]:
    return {**cleared(os.environ), **values}


def test_every_serve_option_reads_the_environment_and_the_flag_wins(backend: str, tmp_path: Path) -> None:
    """Database, port, metrics token, log format, a switch and a number from the environment; the
    lease from the flag although the environment says otherwise."""
    db = ServerProcess(tmp_path / "env.db", backend=backend).db_url
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps(ROLES_SEED))
    port = free_port()
    environment = _environment(
        QUEUEDESK_DB=db,
        QUEUEDESK_PORT=str(port),
        QUEUEDESK_SEED=str(seed),
        QUEUEDESK_METRICS_TOKEN="env-token",
        QUEUEDESK_LOG_FORMAT="json",
        QUEUEDESK_ALLOW_PRIVATE_WEBHOOKS="yes",
        QUEUEDESK_LEASE_SECONDS="60",
    )
    log = (tmp_path / "env.log").open("w")
    process = subprocess.Popen(
        [*queuedesk_command(), "serve", "--lease-seconds", "120"], env=environment, stdout=log, stderr=log
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with loopback_client(url, timeout=30) as client:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, (tmp_path / "env.log").read_text()
                try:
                    if client.get("/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline
                time.sleep(0.1)
            assert client.get("/metrics", headers={"Authorization": "Bearer env-token"}).status_code == 200
            admin = {"Authorization": f"Token {KEYS['admin']}"}
            org = client.get("/me", headers=admin).json()["organization_id"]
            queue = client.get(f"/orgs/{org}/queues", headers=admin).json()[0]["id"]
            qpath = f"/orgs/{org}/queues/{queue}"
            # The switch: a loopback webhook target is allowed.
            assert (
                client.put(
                    f"{qpath}/webhook", json={"target": "http://127.0.0.1:9/h"}, headers=admin
                ).status_code
                == 200
            )
            client.headers.update(admin)
            create(client, qpath, paragraph="x", category="red")
            task = claim(client, qpath)
        lease = task["assignment"]
        from tests.support.contract import moment

        held = (moment(lease["lease_expires_at"]) - moment(lease["assigned_at"])).total_seconds()
        assert held == pytest.approx(120, abs=1), "the flag --lease-seconds did not win over the environment"
    finally:
        process.terminate()
        assert process.wait(timeout=35) == 0
        log.close()
    lines = (tmp_path / "env.log").read_text().splitlines()
    assert lines and all(line.startswith("{") for line in lines), lines[:3]


def test_a_wrong_value_in_the_environment_is_named(tmp_path: Path) -> None:
    done = subprocess.run(
        [*queuedesk_command(), "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"],
        env=_environment(QUEUEDESK_PORT="eighty", QUEUEDESK_LOG_FORMAT="text"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "QUEUEDESK_PORT='eighty'" in done.stderr
    done = subprocess.run(
        [*queuedesk_command(), "serve"],
        env=_environment(QUEUEDESK_LOG_FORMAT="xml", QUEUEDESK_DB=f"sqlite:///{tmp_path / 'x.db'}"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "QUEUEDESK_LOG_FORMAT='xml'" in done.stderr


@pytest.mark.parametrize("command", ["doctor", "backup", "prune"])
def test_doctor_backup_and_prune_read_queuedesk_db(
    command: str, server: ServerProcess, tmp_path: Path
) -> None:
    if command == "backup" and server.backend != "sqlite":
        pytest.skip("backup copies SQLite files; PostgreSQL is backed up with pg_dump")
    args = {
        "doctor": ["doctor"],
        "backup": ["backup", str(tmp_path / "copy.db")],
        "prune": ["prune", "--deliveries-older-than", "3650d", "--dry-run"],
    }[command]
    done = subprocess.run(
        [*queuedesk_command(), *args],
        env=_environment(QUEUEDESK_DB=server.db_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    expected = {"doctor": "every queue's counters match", "backup": "integrity ok", "prune": "dry run"}[
        command
    ]
    assert expected in said


def test_the_suites_servers_get_none_of_the_shells_queuedesk_variables(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A developer's QUEUEDESK_METRICS_TOKEN, QUEUEDESK_LOG_FORMAT or QUEUEDESK_LEASE_SECONDS changes
    nothing of a server the tests start."""
    monkeypatch.setenv("QUEUEDESK_METRICS_TOKEN", "from-the-shell")
    monkeypatch.setenv("QUEUEDESK_LOG_FORMAT", "json")
    monkeypatch.setenv("QUEUEDESK_LEASE_SECONDS", "5")
    server = ServerProcess(tmp_path / "clean.db", seed=ROLES_SEED, backend=backend)
    with server.running(), server.client("admin") as admin:
        assert admin.get("/metrics", headers={"Authorization": "Bearer from-the-shell"}).status_code == 404
        org = admin.get("/me").json()["organization_id"]
        queue = admin.get(f"/orgs/{org}/queues").json()[0]["id"]
        qpath = f"/orgs/{org}/queues/{queue}"
        create(admin, qpath, paragraph="x", category="red")
        task = body_of(admin.post(f"{qpath}/tasks/next"))
        assert task["assignment"]["lease_expires_at"] is not None
    from tests.support.contract import moment

    held = moment(task["assignment"]["lease_expires_at"]) - moment(task["assignment"]["assigned_at"])
    assert held.total_seconds() == pytest.approx(900, abs=1)
    assert not any(line.startswith("{") for line in server.log().splitlines())
