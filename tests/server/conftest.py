"""Every service test runs on SQLite and on PostgreSQL (skipped, with the reason, when none is reachable)."""

import pytest

from tests.support import postgres_unavailable

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgresql" and (reason := postgres_unavailable()):
        pytest.skip(f"PostgreSQL tests skipped: {reason}")
    return request.param


@pytest.fixture(autouse=True)
def _on_every_backend(backend: str) -> str:
    return backend


def sqlite_only(backend: str, why: str) -> None:
    if backend != "sqlite":
        pytest.skip(f"SQLite only: {why}")
