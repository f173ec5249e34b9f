"""The configuration file as the app reads it: the theme, remapped keys, --refresh, and the profile
the Connect screen saves (and the next start connects with)."""

import argparse
import itertools
import os
import stat
import subprocess
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from queuedesk.api.config import load_config
from queuedesk.cli import build_parser
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.main import _save, prepare
from queuedesk.tui.screens.connect import ConnectScreen
from queuedesk.tui.screens.queues import QueuesScreen
from queuedesk.tui.widgets.paged_table import PagedTable
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess, queuedesk_command
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, header, home, notes, open_queue, paste, show_tab

_names = itertools.count(1)


def config_file() -> Path:
    return Path(os.environ["QUEUEDESK_CONFIG"])  # the test's own (tests/tui/conftest.py)


def start(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
    """`queuedesk ARGS` with no QUEUEDESK_* variable but the configuration file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    env["QUEUEDESK_CONFIG"] = str(config)
    return subprocess.run(
        [*queuedesk_command(), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def no_connection_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("QUEUEDESK_URL", "QUEUEDESK_TOKEN", "QUEUEDESK_ORG", "QUEUEDESK_PROFILE"):
        monkeypatch.delenv(name, raising=False)


# --- the theme --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ('[app]\ntheme = "nope"\n', "app.theme"),
        (
            'default_profile = "w"\n[profiles.w]\nurl = "http://127.0.0.1:1"\ntoken = "k"\ntheme = "nope"\n',
            "profiles.w.theme",
        ),
    ],
    ids=["app", "profile"],
)
def test_an_unknown_theme_is_exit_2_naming_the_file_the_value_and_the_themes(
    tmp_path: Path, text: str, place: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    done = start(config=config)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"queuedesk: {config}: {place}: 'nope' is not a theme; the themes: "), (
        done.stderr
    )
    assert "nord" in done.stderr and "textual-dark" in done.stderr
    assert "Traceback" not in done.stderr and "InvalidThemeError" not in done.stderr


async def test_an_app_given_an_unknown_theme_starts_with_the_default_and_says_so(make_app: MakeApp) -> None:
    app = make_app("admin", theme="nope")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        assert app.theme == "textual-dark"
        assert any("Unknown theme" in note and "'nope'" in note for note in notes(app)), notes(app)


# --- remapped keys ----------------------------------------------------------------------------------------


async def test_a_remapped_key_works_and_the_old_key_no_longer_does(make_app: MakeApp) -> None:
    app = make_app("admin", keys={"queues.filter": "f2"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        field = screen.query_one("#queues-filter")
        await pilot.press("slash")
        await pilot.pause()
        assert not field.display and app.focused is not field
        await pilot.press("f2")
        await pilot.pause()
        assert field.display and app.focused is field
        assert not any("Unknown key binding" in note for note in notes(app))


async def test_the_history_tables_keys_can_be_remapped(
    make_app: MakeApp, clients: dict[str, httpx.Client], org_id: int
) -> None:
    admin, worker = clients["admin"], clients["worker"]
    queue = make_queue(admin, org_id, name=f"Remapped {next(_names)}")
    where = f"/orgs/{org_id}/queues/{queue['id']}"
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"p {n}"}} for n in range(3)]}
    assert admin.post(f"{where}/tasks/import", json=body).status_code == 200
    for _ in range(3):
        task = worker.post(f"{where}/tasks/next").json()
        done = worker.post(f"{where}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
        assert done.status_code == 200, done.text
    app = make_app("admin", keys={"table.down": "j", "table.up": "k"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await show_tab(app, pilot, "tab-completed")
        table = screen.history
        assert isinstance(table, PagedTable)
        await until(app, pilot, lambda: table.row_count == 3 and not table.busy, "the history")
        table.focus()
        await pilot.pause()
        assert table.cursor_row == 0
        await pilot.press("down")
        assert table.cursor_row == 0  # the old key does nothing now
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1


async def test_an_unknown_binding_id_is_reported_with_the_id_and_a_suggestion(make_app: MakeApp) -> None:
    app = make_app(
        "admin", keys={"queues.refersh": "f5", "queues.filter": "f2"}, config_file="/x/config.toml"
    )
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        await until(app, pilot, lambda: any("Unknown key binding" in n for n in notes(app)), "the warning")
        said = next(n for n in notes(app) if "Unknown key binding" in n)
        assert "/x/config.toml: keys: no key binding has the id queues.refersh" in said
        assert "Did you mean queues.refresh (for queues.refersh)?" in said
        assert "queues.filter" not in said  # a real id is not reported


# --- --refresh ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-1", "ten", "nan", "inf"])
def test_refresh_must_be_a_number_of_seconds_above_0(tmp_path: Path, value: str) -> None:
    done = start(f"--refresh={value}", config=tmp_path / "none.toml")
    assert done.returncode == 2, done
    assert "argument --refresh: takes a number of seconds above 0" in done.stderr, done.stderr
    assert repr(value) in done.stderr and "Traceback" not in done.stderr


async def test_a_refresh_given_on_the_command_line_shows_in_the_header(
    server: ServerProcess, clock: ManualClock, no_connection_variables: None
) -> None:
    args = build_parser().parse_args(["--url", server.url, "--token", KEYS["admin"], "--refresh", "2.5"])
    begun = prepare(args)
    assert begun.settings.refresh_seconds == 2.5
    app = QueueDeskApp(begun.target, settings=begun.settings, clock=clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await home(app, pilot)
        assert "every 2.5 s" in header(app)


# --- the profile the Connect screen saves --------------------------------------------------------------------


async def test_the_connect_screen_saves_a_profile_the_next_start_connects_with(
    server: ServerProcess, clock: ManualClock, no_connection_variables: None
) -> None:
    nothing = argparse.Namespace(url=None, token=None, org=None, profile=None, refresh=None)
    first = prepare(nothing)
    assert first.target is None and first.save_profile is _save
    app = QueueDeskApp(first.target, settings=first.settings, clock=clock, save_profile=first.save_profile)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ConnectScreen)
        await paste(app, pilot, server.url)
        await pilot.press("tab")
        await paste(app, pilot, KEYS["supervisor"])
        await pilot.press("enter")
        await home(app, pilot)

    saved = config_file()
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    config = load_config(saved)
    assert config.default_profile == "default"
    profile = config.profiles["default"]
    assert (profile.url, profile.token.get_secret_value()) == (server.url, KEYS["supervisor"])

    again = prepare(nothing)  # a restart with no flags and no variables
    assert again.target is not None and again.target.token == SecretStr(KEYS["supervisor"])
    assert again.target.source == "profile 'default'"
    app = QueueDeskApp(again.target, settings=again.settings, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        assert isinstance(screen, QueuesScreen)
        assert "Sue (supervisor)" in header(app)


# --- what `queuedesk` starts with ---------------------------------------------------------------------------


def test_a_key_variable_without_its_url_stops_the_app_before_it_starts(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'default_profile = "w"\n[profiles.w]\nurl = "http://127.0.0.1:1"\ntoken = "saved-key"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    env |= {"QUEUEDESK_CONFIG": str(config), "QUEUEDESK_TOKEN": "exported-key-0123456789"}
    done = subprocess.run(
        [*queuedesk_command()], capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("queuedesk: QUEUEDESK_TOKEN holds a key without a server URL"), done.stderr
    assert "http://127.0.0.1:1 (profile 'w')" in done.stderr and "unset QUEUEDESK_TOKEN" in done.stderr
    assert "exported-key" not in done.stderr


def test_the_chosen_profiles_settings_fall_back_to_the_default_profiles(
    no_connection_variables: None,
) -> None:
    config_file().write_text(
        'default_profile = "work"\n'
        '[profiles.work]\nurl = "https://work.example"\ntoken = "work-key"\norg = 3\n'
        'theme = "nord"\nrefresh_seconds = 3.0\nkeys = { "queues.refresh" = "f5" }\n'
        '[profiles.home]\nurl = "http://home.example"\ntoken = "home-key"\nrefresh_seconds = 1.5\n'
        '[app]\ntheme = "dracula"\nrefresh_seconds = 9.0\n'
    )
    chosen = argparse.Namespace(url=None, token=None, org=None, profile="home", refresh=None)
    begun = prepare(chosen)
    assert begun.target is not None
    assert (begun.target.url, begun.target.token, begun.target.org) == (
        "http://home.example",
        SecretStr("home-key"),
        None,
    )
    assert (begun.settings.refresh_seconds, begun.settings.theme) == (1.5, "nord")
    assert begun.settings.keys == {"queues.refresh": "f5"} and begun.profile_name == "home"
    flagged = prepare(argparse.Namespace(**{**vars(chosen), "refresh": 0.5}))
    assert flagged.settings.refresh_seconds == 0.5  # the flag wins over every profile
