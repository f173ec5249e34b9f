"""httpx's private names QueueDesk relies on (httpx 0.28 and 0.29; other versions go without the shortcut)."""

import sys

from queuedesk.compat import PrivateName

COMMAND_LINE = "httpx._main"
# httpx/__init__.py of each: `from ._main import main`, with a stub `main` on ImportError.
VERSIONS = ("0.28", "0.29")

PRIVATE_NAMES = (
    PrivateName(
        COMMAND_LINE,
        2,
        "httpx imports its command line (click, pygments, rich's progress and syntax) with itself, "
        "≈45 ms of the app's start; marked absent, httpx falls back to a stub `httpx.main` that "
        "QueueDesk never calls.",
        "lean_start.py without_httpx_cli",
        versions=VERSIONS,
    ),
)


def without_command_line() -> None:
    sys.modules.setdefault(COMMAND_LINE, None)  # type: ignore[arg-type]  # None marks a module absent
