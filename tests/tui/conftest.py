"""Fixtures for the terminal app: the app connected to the suite's real server, a fixed clock."""

import os
from collections.abc import Callable

import pytest

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import KEYS, ServerProcess

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
        target = Target(url or server.url, token if token is not None else KEYS[role], None, "test")
        settings_in_force = AppSettings(**settings)  # type: ignore[arg-type]
        return QueueDeskApp(target, settings=settings_in_force, clock=clock, config_file=config_file)

    return make
