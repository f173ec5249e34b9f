"""The layers stay apart: the app never loads the server, the client never loads Textual."""

import subprocess
import sys

import pytest

APP_FORBIDDEN = ("queuedesk.server", "starlette", "sqlalchemy", "uvicorn")
LAZY_SCREENS = (
    "screens.queues",
    "screens.queue",
    "screens.connect",
    "screens.work",
    "screens.create",
    "screens.people_screen",
    "screens.queue_editor",
    "modals.flush",
    "modals.task",
    "modals.keys",
    "modals.messages",
    "modals.quit_unsent",
    "modals.refused",
    "modals.review_note",
    "screens.review",
    "modals.confirm",
    "modals.delivery",
    "modals.redeliver",
    "modals.go_to",
    "modals.export",
    "modals.user_dialogs",
    "modals.block_type_picker",
    "modals.image",
    "modals.gold_expect",
)

FORBIDDEN = {
    "queuedesk.cli queuedesk.tui.app queuedesk.tui.main queuedesk.tui.screens.work": APP_FORBIDDEN,
    # The screens the app loads only when they are opened: none may bring the server along either.
    " ".join(f"queuedesk.tui.{name}" for name in LAZY_SCREENS): APP_FORBIDDEN,
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
    """A screen added later is checked too: the list above names every module of tui/screens and tui/modals."""
    from pathlib import Path

    import queuedesk.tui

    here = Path(queuedesk.tui.__file__).parent
    modules = {f"{room}.{p.stem}" for room in ("screens", "modals") for p in (here / room).glob("*.py")}
    modules -= {"screens.__init__", "modals.__init__"}
    assert modules <= set(LAZY_SCREENS), modules - set(LAZY_SCREENS)


# What a start with a saved connection imports before the first queue list is painted
# (cli.main, then tui/main.py's run_app and the app's start_session).
START = "queuedesk.cli queuedesk.tui.main queuedesk.tui.app queuedesk.tui.screens.queues"
# Loaded only when what needs them is opened: a start that imports one pays for it before its
# first painted list (bench/tui_start.py).
NOT_AT_START = (
    *(f"queuedesk.tui.{name}" for name in LAZY_SCREENS if name != "screens.queues"),
    "queuedesk.tui.forms",
    "queuedesk.tui.panes",
    "queuedesk.tui.admin",
    "queuedesk.tui.review.review_rules",
    "queuedesk.tui.review.review_session",
    "queuedesk.tui.work.work_session",
    "queuedesk.tui.work.image_fetch",
    "queuedesk.tui.work.task_rules",
    "queuedesk.tui.widgets.image_view",
    "queuedesk.tui.widgets.completions_chart",
    "queuedesk.tui.widgets.paged_table",
    "queuedesk.tui.widgets.instructions",
    "queuedesk.tui.keys.keymap",
    "queuedesk.tui.explanations",  # what a failure means, imported when one is told
    "queuedesk.commands",
    "queuedesk.web",
    "textual_image",
    "PIL",  # imported by run_app itself, for the terminal's answers, not by any module at import
    "click",  # httpx's command line, left out by lean_start.without_httpx_cli in cli.main
)


def test_a_start_loads_only_what_the_first_screen_needs() -> None:
    imports = "; ".join(f"import {m}" for m in START.split())
    program = (
        "from queuedesk import lean_start; lean_start.without_httpx_cli(); "
        f"{imports}; import sys; print(' '.join(sorted(sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    ).stdout.split()
    early = [m for m in loaded if m in NOT_AT_START or m.startswith(tuple(f"{n}." for n in NOT_AT_START))]
    assert early == [], f"a start loaded {early}"
