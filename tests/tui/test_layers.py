"""The layers stay apart: the app never loads the server, the client never loads Textual."""

import subprocess
import sys

import pytest

APP_FORBIDDEN = ("queuedesk.server", "starlette", "sqlalchemy", "uvicorn")
LAZY_SCREENS = (
    "queues",
    "queue",
    "connect",
    "flush",
    "work",
    "task",
    "keys",
    "create",
    "confirm",
    "delivery",
    "people",
    "people_screen",
    "queue_editor",
    "block_type_picker",
)

FORBIDDEN = {
    "queuedesk.cli queuedesk.tui.app queuedesk.tui.main queuedesk.tui.screens.work": APP_FORBIDDEN,
    # The screens the app loads only when they are opened: none may bring the server along either.
    " ".join(f"queuedesk.tui.screens.{name}" for name in LAZY_SCREENS): APP_FORBIDDEN,
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


def test_every_screen_module_is_in_the_lazy_list() -> None:
    """A screen added later is checked too: the list above names every module of tui/screens."""
    from pathlib import Path

    import queuedesk.tui.screens as screens

    here = Path(screens.__file__).parent
    modules = {p.stem for p in here.glob("*.py")} - {"__init__", "base"}
    assert modules <= set(LAZY_SCREENS), modules - set(LAZY_SCREENS)
