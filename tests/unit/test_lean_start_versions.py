"""lean_start's shortcuts are taken only on the library versions they were checked on; on any other
the library is imported as it is (so pyproject.toml can accept a range)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from queuedesk.compat import installed_minor, written_for


@pytest.mark.parametrize(
    ("folders", "expected"),
    [
        (["fakepkg-1.2.3.dist-info"], "1.2"),
        (["fakepkg-10.20.dist-info"], "10.20"),
        (["fakepkg-2.14.0rc1.dist-info"], "2.14"),
        (["fakepkg-0.28.1+local.dist-info"], "0.28"),
        (["Fakepkg-3.0.0.dist-info"], "3.0"),
        (["fakepkg_extra-1.0.dist-info", "fakepkg-4.5.6.dist-info"], "4.5"),
        ([], None),  # no metadata: in doubt
        (["fakepkg-1.0.0.dist-info", "fakepkg-2.0.0.dist-info"], None),  # two: in doubt
        (["fakepkg_extra-1.0.dist-info"], None),  # another distribution's
        (["fakepkg-1.0.0.egg-info"], None),
        (["fakepkg-latest.dist-info"], None),
    ],
)
def test_the_installed_minor_is_read_from_the_metadata_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folders: list[str], expected: str | None
) -> None:
    (tmp_path / "fakepkg").mkdir()
    (tmp_path / "fakepkg" / "__init__.py").write_text("")
    for folder in folders:
        (tmp_path / folder).mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed_minor("fakepkg") == expected
    assert "fakepkg" not in sys.modules  # read without importing it
    assert written_for("fakepkg", ("1.2", "4.5", "10.20")) is (expected in ("1.2", "4.5", "10.20"))


def test_a_missing_or_single_file_package_has_no_minor() -> None:
    assert installed_minor("no_such_package_queuedesk") is None
    assert installed_minor("json") is None  # a standard library package: no metadata folder


def test_the_installed_libraries_are_read() -> None:
    import httpx
    import pydantic

    assert installed_minor("httpx") == ".".join(httpx.__version__.split(".")[:2])
    assert installed_minor("pydantic") == ".".join(pydantic.VERSION.split(".")[:2])


# Each shortcut, with the versions it was checked on replaced by one that is not installed, then
# the library imported: what is in sys.modules says whether the shortcut was taken.
GATED = {
    "httpx": """
import sys
from queuedesk.compat import httpx_private
from queuedesk import lean_start
if {other}:
    httpx_private.VERSIONS = ("0.0",)
lean_start.without_httpx_cli()
import httpx
print(sys.modules.get("httpx._main", "not loaded") is None)
""",
    "pydantic": """
import sys
from queuedesk.compat import pydantic_private
from queuedesk import lean_start
if {other}:
    pydantic_private.VERSIONS = ("1.0",)
lean_start.without_pydantic_plugin_search()
from queuedesk.api import models
models.Queue.model_validate({{"id": 1, "name": "Q", "created_at": "2026-01-02T03:04:05Z", "n_tasks": 0}})
print("importlib.metadata" not in sys.modules)
""",
}


@pytest.mark.parametrize("library", sorted(GATED))
def test_a_shortcut_is_taken_on_its_versions_only(library: str) -> None:
    def shortcut_taken(other: bool) -> bool:
        done = subprocess.run(
            [sys.executable, "-c", GATED[library].format(other=other)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip() == "True"

    assert shortcut_taken(other=False)  # the installed version is one it was checked on
    assert not shortcut_taken(other=True)
