"""The suite's tiers, given at collection by convention so that a new test is tiered without a
decorator (tests/conftest.py calls `mark_tiers`):

- `postgres`: the PostgreSQL side of the both-databases parametrisation (`backend` = "postgresql"),
  and tests/server/test_postgres.py;
- `tmux`: every test of a module that drives a terminal through tests.support.tmux (its `Pane`);
- `browser`: every test of a module that drives chromium through tests.support.browser;
- `slow`: the modules and classes listed in SLOW (each of their tests takes about a second or more,
  measured with --durations), and every test that uses a fixture listed in SLOW_FIXTURES (one that
  starts a server or a terminal of its own).

And one for pytest-xdist: a test that uses a module- or class-scoped fixture (a server for the
module, say) gets that module's `xdist_group`, so `--dist loadgroup` starts that fixture on one
worker only instead of on each.
"""

import functools
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

# Modules (or module::Class) whose tests take about a second or more each; paths from tests/.
SLOW: frozenset[str] = frozenset()

# Fixtures that start something of their own for each test (a server, a terminal, a demo).
SLOW_FIXTURES: frozenset[str] = frozenset()

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
    if module in SLOW or (cls is not None and f"{module}::{cls.__name__}" in SLOW):
        tiers.add("slow")
    if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        tiers.add("slow")
    return tiers


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
