"""Every service test runs on SQLite and on PostgreSQL (skipped, with the reason, when none is reachable)."""

import pytest

BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The root conftest's one `backend` fixture, parametrized here. A second `backend` fixture in this
    folder would let a session fixture made under the other one (the server a TUI test started on
    SQLite) be handed to a PostgreSQL test: pytest tears a session fixture down only when the
    fixture it was made from changes."""
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", BACKENDS, indirect=True, scope="session")


@pytest.fixture(autouse=True)
def _on_every_backend(backend: str, request: pytest.FixtureRequest) -> str:
    if "server" in request.fixturenames:
        server = request.getfixturevalue("server")
        assert server.backend == backend, f"a {backend} test was given the {server.backend} server"
    return backend


def sqlite_only(backend: str, why: str) -> None:
    if backend != "sqlite":
        pytest.skip(f"SQLite only: {why}")
