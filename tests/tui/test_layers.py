"""The layers stay apart: the app never loads the server, the client never loads Textual."""

import subprocess
import sys

import pytest

FORBIDDEN = {
    "queuedesk.cli queuedesk.tui.app queuedesk.tui.main queuedesk.tui.screens.work": (
        "queuedesk.server",
        "starlette",
        "sqlalchemy",
        "uvicorn",
    ),
    "queuedesk.api.client queuedesk.api.config queuedesk.api.blocks": (
        "textual",
        "queuedesk.server",
        "queuedesk.tui",
    ),
}


@pytest.mark.parametrize("modules", list(FORBIDDEN))
def test_importing_loads_nothing_of_another_layer(modules: str) -> None:
    imports = "; ".join(f"import {m}" for m in modules.split())
    program = f"{imports}; import sys; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    ).stdout.split()
    strays = [m for m in loaded if m.startswith(FORBIDDEN[modules])]
    assert strays == [], f"importing {modules} loaded {strays}"
