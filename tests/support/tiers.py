"""The suite's tiers, given at collection by convention so that a new test is tiered without a
decorator (tests/conftest.py calls `mark_tiers`):

- `postgres`: the PostgreSQL side of the both-databases parametrisation (`backend` = "postgresql"),
  and tests/server/test_postgres.py;
- `tmux`: every test of a module that drives a terminal through tests.support.tmux (its `Pane`);
- `browser`: every test of a module that drives chromium through tests.support.browser;
- `slow`: the modules, classes and tests listed in SLOW (measured with --durations: about a second
  or more each), every test that (or whose own fixture) starts a process, and the app's Pilot tests
  (the async tests of tests/tui) and snapshots.

And one for pytest-xdist: a test that uses a module- or class-scoped fixture (a server for the
module, say) gets that module's `xdist_group`, so `--dist loadgroup` starts that fixture on one
worker only instead of on each.
"""

import functools
import inspect
import shutil
from pathlib import Path

import pytest

from tests.support.browser import browser_missing

TIERS = {
    "slow": "takes about a second or more (deselect with -m 'not slow')",
    "postgres": "runs against PostgreSQL",
    "tmux": "drives the installed command in tmux",
    "browser": "drives chromium (queuedesk web)",
}

# Modules, classes (module::Class) and tests (module::name) that take about a second or more each,
# measured with --durations; paths from tests/.
SLOW = frozenset(
    {
        "test_cli.py",
        "test_cli_people.py",
        "test_cli_queue_files.py",
        "test_client_without_server.py",
        "test_cli_manners.py::test_a_reader_gone_ends_the_command_quietly",
        "test_connection_limits.py",
        "test_rate_limits.py",
        "api/test_original_service.py",
        "demo/test_colleague_claims.py",
        "demo/test_demo_command.py",
        "demo/test_demo_parts.py",
        "demo/test_web_browser.py",
        "demo/test_web_page.py",
        "server/test_access_cache.py",
        "server/test_backup.py",
        "server/test_claims.py",
        "server/test_openapi.py",
        "server/test_postgres.py",
        "server/test_seed_and_schema.py",
        "server/test_webhooks.py",
        "server/test_bad_input.py::test_random_complete_bodies",
        "server/test_bad_input.py::test_random_create_bodies",
        "server/test_bad_input.py::test_random_import_bodies",
        "server/test_bad_input.py::test_random_queue_definitions",
        "server/test_webhook_ping.py::test_a_ping_is_not_a_delivery_and_is_not_retried",
        "unit/test_models_built_on_use.py",
        "unit/test_pydantic_plugin_scan.py",
        "unit/test_bounded_errors.py::test_an_option_outside_ten_thousand_is_a_short_message",
    }
)

# A test is slow, too, when it or a fixture made for it alone starts a process (a server, the
# command, a terminal) or drives the app under Pilot (an async test in tests/tui, a snapshot).
STARTS_A_PROCESS = ("ServerProcess(", "run_cli(", "subprocess.", "Popen(", "DemoService(", "cli(")
SLOW_FIXTURES = frozenset({"snap_compare"})

_TESTS = Path(__file__).resolve().parent.parent


def _module_key(item: pytest.Item) -> str:
    return item.path.resolve().relative_to(_TESTS).as_posix()


@functools.cache
def _imports(path: Path, support_module: str) -> bool:
    """Whether the test module at `path` imports from `support_module`."""
    source = path.read_text(encoding="utf-8")
    return f"from {support_module} import" in source or f"import {support_module}" in source


def _tiers_of(item: pytest.Item) -> set[str]:
    tiers: set[str] = set()
    callspec = getattr(item, "callspec", None)
    module = _module_key(item)
    if (callspec is not None and callspec.params.get("backend") == "postgresql") or module == (
        "server/test_postgres.py"
    ):
        tiers.add("postgres")
    if _imports(item.path, "tests.support.tmux"):
        tiers.add("tmux")
    if _imports(item.path, "tests.support.browser"):
        tiers.add("browser")
    cls = getattr(item, "cls", None)
    function = getattr(item, "function", None)
    names = {module}
    if cls is not None:
        names.add(f"{module}::{cls.__name__}")
    if function is not None:
        names.add(f"{module}::{function.__name__}")
    listed = bool(names & SLOW or SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())))
    pilot = module.startswith("tui/") and inspect.iscoroutinefunction(function)
    if listed or pilot or (function is not None and _starts_processes(item, function)):
        tiers.add("slow")
    return tiers


@functools.cache
def _source(function: object) -> str:
    try:
        return inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def _starts_processes(item: pytest.Item, function: object) -> bool:
    """The test, or a function-scoped fixture it uses, starts a process of its own."""
    functions = [function]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        for definitions in info.name2fixturedefs.values():
            if definitions and definitions[-1].scope == "function":
                functions.append(definitions[-1].func)
    return any(call in _source(f) for f in functions for call in STARTS_A_PROCESS)


def _shared_scope_group(item: pytest.Item) -> str | None:
    """The module's name when the test uses a module- or class-scoped fixture."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for definitions in info.name2fixturedefs.values():
        if definitions and definitions[-1].scope in ("module", "class"):
            return _module_key(item)
    return None


def mark_tiers(items: list[pytest.Item]) -> None:
    tmux_missing = None if shutil.which("tmux") else "tmux is not installed (apt-get install tmux)"
    chromium_missing = browser_missing()
    said_why = False
    for item in items:
        marked = {mark.name for mark in item.iter_markers()}
        tiers = _tiers_of(item)
        for tier in sorted(tiers - marked):
            item.add_marker(getattr(pytest.mark, tier))
        tiers |= marked & TIERS.keys()
        if "tmux" in tiers and tmux_missing:
            item.add_marker(pytest.mark.skip(reason=tmux_missing))
        if "browser" in tiers and chromium_missing:
            item.add_marker(pytest.mark.skip(reason=f"browser test: {chromium_missing}"))
            said_why = True
        if (group := _shared_scope_group(item)) and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
    if said_why:  # said out loud as well as in the skip summary
        print(f"\nbrowser tests skipped: {chromium_missing}")
