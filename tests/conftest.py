"""Fixtures: one real server for the suite, a fresh queue per test, a client per role."""

import itertools
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from queuedesk.collector import settle_for_serving
from tests.receiver import Receiver
from tests.support import (
    CORE_BLOCKS,
    ROLES_SEED,
    Organization,
    ServerProcess,
    drop_databases,
    next_organization,
    postgres_unavailable,
    with_spare_organizations,
)
from tests.support.tiers import mark_tiers

_names = itertools.count(1)

# Compiled modules are kept (in __pycache__, ignored by git) even where the environment says not to:
# every `queuedesk serve` and CLI run of the suite (hundreds) would compile the package again, and
# each pytest process would rewrite every test module's asserts again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tiers by convention (tests.support.tiers): slow, postgres, tmux, browser."""
    mark_tiers(items)


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> str:
    """The database under the server: SQLite, unless the test is parametrized (tests/server runs
    everything on both, see its conftest)."""
    name: str = getattr(request, "param", "sqlite")
    if name == "postgresql" and (reason := postgres_unavailable()):
        pytest.skip(f"PostgreSQL tests skipped: {reason}")
    return name


@pytest.fixture(scope="session", autouse=True)
def _drop_postgres_databases() -> Iterator[None]:
    yield
    drop_databases()


@pytest.fixture(scope="session")
def _suite_servers() -> Iterator[dict[str, ServerProcess]]:
    """The suite's server on each backend, started on first use and kept until the end: `server` is
    made again whenever the backend changes (a PostgreSQL test after a SQLite one), and finds it here."""
    started: dict[str, ServerProcess] = {}
    yield started
    for process in started.values():
        process.stop()


@pytest.fixture(scope="session")
def server(
    backend: str, _suite_servers: dict[str, ServerProcess], tmp_path_factory: pytest.TempPathFactory
) -> ServerProcess:
    if backend not in _suite_servers:
        db_path: Path = tmp_path_factory.mktemp(f"server-{backend}") / "queuedesk.db"
        seed = with_spare_organizations(ROLES_SEED)
        process = ServerProcess(db_path, ["--allow-private-webhooks"], seed=seed, backend=backend)
        _suite_servers[backend] = process.start()
    return _suite_servers[backend]


@pytest.fixture(scope="session")
def clients(server: ServerProcess) -> Iterator[dict[str, httpx.Client]]:
    made = {role: server.client(role) for role in ("admin", "supervisor", "worker", "worker2", "other_admin")}
    made["anonymous"] = server.client("")
    yield made
    for client in made.values():
        client.close()


@pytest.fixture
def admin(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["admin"]


@pytest.fixture
def worker(clients: dict[str, httpx.Client]) -> httpx.Client:
    return clients["worker"]


@pytest.fixture(scope="session")
def org_id(clients: dict[str, httpx.Client]) -> int:
    return clients["admin"].get("/me").json()["organization_id"]


@pytest.fixture
def new_org(server: ServerProcess) -> Iterator[Callable[[], Organization]]:
    """`new_org()`: another organization of this test's own on the session server (see own_org)."""
    made: list[Organization] = []

    def make() -> Organization:
        made.append(next_organization(server))
        return made[-1]

    yield make
    for organization in made:
        organization.close()


@pytest.fixture
def own_org(new_org: Callable[[], Organization]) -> Organization:
    """An organization of this test's own on the session server, with an admin, a supervisor and a
    worker: for every test that adds, changes or disables people or revokes keys."""
    return new_org()


@pytest.fixture(scope="session")
def other_org(clients: dict[str, httpx.Client]) -> dict[str, int]:
    """The other organization's id and one of its queues' ids."""
    other = clients["other_admin"]
    org = other.get("/me").json()["organization_id"]
    queue = other.get(f"/orgs/{org}/queues").json()[0]["id"]
    return {"org": org, "queue": queue}


def make_queue(
    admin: httpx.Client,
    org: int,
    blocks: list[dict[str, Any]] | None = None,
    *,
    label: str | None = None,
    **extra: Any,
) -> dict:
    """A new queue (the core blocks unless `blocks`). Named `Queue <n>`, or with `label`, `<label>
    <6 hex digits>`: a name no other queue's contains, so a filter on it finds this queue alone."""
    name = f"Queue {next(_names)}" if label is None else f"{label} {uuid.uuid4().hex[:6]}"
    body = {"name": name, "data": CORE_BLOCKS if blocks is None else blocks, **extra}
    response = admin.post(f"/orgs/{org}/queues", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def queue(admin: httpx.Client, org_id: int) -> dict:
    """A fresh queue with the three core blocks, so tests never see each other's tasks."""
    return make_queue(admin, org_id)


@pytest.fixture
def qpath(org_id: int, queue: dict) -> str:
    return f"/orgs/{org_id}/queues/{queue['id']}"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on loopback of the test's own (tests/receiver.py)."""
    made = Receiver().start()
    yield made
    made.stop()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The suite's process lives long and makes apps by the hundred: its collector tuned as the
    service's is (what collection made frozen, a larger youngest generation), ≈10% of a Pilot
    module's CPU."""
    settle_for_serving()
