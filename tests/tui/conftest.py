"""Fixtures for the terminal app: the app connected to the suite's real server, a fixed clock, a
fresh queue. The functions that drive and read the app are in tests/support/pilot.py."""

import os
from collections.abc import Callable

import httpx
import pytest

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import app_for

os.environ.setdefault("QUEUEDESK_IMAGE_RENDERER", "halfcell")

MakeApp = Callable[..., QueueDeskApp]


@pytest.fixture(autouse=True)
def _own_data_and_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's journal and config go to a directory of the test's own, never the user's."""
    home = tmp_path_factory.mktemp("queuedesk-home")
    monkeypatch.setenv("QUEUEDESK_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(home / "config.toml"))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_app(server: ServerProcess, clock: ManualClock) -> MakeApp:
    """An app for `role` against the real server (or `url`), on the manual clock."""

    def make(
        role: str = "admin",
        *,
        url: str | None = None,
        token: str | None = None,
        config_file: str = "",
        **settings: object,
    ) -> QueueDeskApp:
        return app_for(
            url or server.url,
            role,
            token=token,
            clock=clock,
            source="test",
            config_file=config_file,
            **settings,
        )

    return make


@pytest.fixture
def fresh(admin: httpx.Client, org_id: int) -> Callable[..., dict]:
    """`fresh(label)`: a new queue of the core blocks in Acme, named `<label> <6 hex digits>`."""

    def make(label: str = "Desk") -> dict:
        return make_queue(admin, org_id, label=label)

    return make
