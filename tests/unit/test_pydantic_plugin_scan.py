"""The app skips pydantic's plugin search when no plugin can be installed, and only then."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# What `queuedesk` does before pydantic builds its first validator, then a first validator.
START = """
import sys
from queuedesk import lean_start

lean_start.without_pydantic_plugin_search()
from queuedesk.api import config, models

models.Queue.model_validate({"id": 1, "name": "Q", "created_at": "2026-01-02T03:04:05Z", "n_tasks": 0})
print("importlib.metadata" in sys.modules, getattr(sys.modules.get("fake_plugin"), "SEEN", None))
"""

PLUGIN = """
SEEN = []


class Plugin:
    def new_schema_validator(self, schema, schema_type, schema_type_path, schema_kind, config, plugin_settings):
        SEEN.append(schema_type_path.name)
        return None, None, None


plugin = Plugin()
"""


def start(path: Path | None) -> str:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", START], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_without_plugins_pydantic_does_not_search_for_them() -> None:
    assert start(None) == "False None"  # importlib.metadata is what the search imports


@pytest.mark.parametrize("info", ["fake_plugin-1.0.dist-info", "fake_plugin.egg-info"])
def test_an_installed_plugin_is_still_loaded(tmp_path: Path, info: str) -> None:
    (tmp_path / "fake_plugin.py").write_text(PLUGIN)
    (tmp_path / info).mkdir()
    (tmp_path / info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugin\nVersion: 1.0\n")
    (tmp_path / info / "entry_points.txt").write_text("[pydantic]\nfake = fake_plugin:plugin\n")
    output = start(tmp_path)
    assert output.startswith("True ") and "'Queue'" in output, output
