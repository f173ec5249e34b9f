"""docs/operations.md holds: its systemd unit passes `systemd-analyze verify` (where that command
exists), and its table names the variable of every `serve` option."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here")
    unit = re.search(r"```ini\n(.*?)```", DOC.read_text(), re.S)
    assert unit is not None
    installed = str(Path(sys.executable).with_name("queuedesk"))
    path = tmp_path / "queuedesk.service"
    path.write_text(unit.group(1).replace("/opt/queuedesk/bin/queuedesk", installed))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    # An unknown key or a bad value is only a warning: nothing may be said at all.
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


def test_every_serve_option_has_its_variable_in_the_table() -> None:
    from queuedesk.service_environment import PREFIX

    help_text = subprocess.run(
        [sys.executable, "-m", "queuedesk", "serve", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    flags = set(re.findall(r"(--[a-z][a-z-]+)", help_text)) - {"--help"}
    assert "--metrics-token" in flags and "--db" in flags
    text = DOC.read_text()
    missing = [flag for flag in sorted(flags) if PREFIX + flag[2:].upper().replace("-", "_") not in text]
    assert missing == []
