"""Work other libraries do at import that `queuedesk` never needs, left out before they are imported.

Every import on the app's start path counts toward the time from typing `queuedesk` to the first
painted queue list (bench/tui_start.py). Both steps below change what is imported, never behaviour:
each leaves the library's own code in place whenever it could matter. Each is taken only on the
library versions it was checked on (`VERSIONS` in its compat module); on any other the library is
imported as it is, so neither binds the version pyproject.toml accepts.
"""

import os
import sys


def without_httpx_cli() -> None:
    """Keep httpx from importing its command line (click, pygments, rich's progress and syntax).

    httpx imports it with itself, used or not: ≈45 ms of the app's start. Marked as absent, httpx
    falls back to a stub `httpx.main` that QueueDesk never calls.
    """
    from queuedesk.compat import written_for
    from queuedesk.compat.httpx_private import VERSIONS, without_command_line

    if "httpx" not in sys.modules and written_for("httpx", VERSIONS):
        without_command_line()


def pydantic_plugins_may_exist() -> bool:
    """Whether an installed distribution might declare a pydantic plugin (any doubt says yes).

    Looks where `importlib.metadata` would (the `*.dist-info` and `*.egg-info` folders of each
    `sys.path` directory) for an `entry_points.txt` that mentions pydantic at all. Eggs, zip files
    on the path and distribution finders other than the standard one count as "may exist".
    """
    import importlib.machinery

    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder:
            return True
    for entry in sys.path:
        folder = entry or "."
        if os.path.isfile(folder):
            return True
        try:
            children = os.listdir(folder)
        except OSError:
            continue  # importlib.metadata skips a missing or unreadable path entry too
        for child in children:
            low = child.lower()
            if low.endswith(".egg"):
                return True
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, child, "entry_points.txt"), "rb") as handle:
                    if b"pydantic" in handle.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return True
    return False


def without_pydantic_plugin_search() -> None:
    """When no distribution can declare a pydantic plugin, tell pydantic so before it searches.

    pydantic looks for plugins (the `pydantic` entry-point group) when it builds its first
    validator: it imports `importlib.metadata` and reads every installed distribution's metadata,
    ≈25-35 ms of the app's start, to find nothing in almost every environment. pydantic asks
    `pydantic.plugin._loader.get_plugins()` (compat/pydantic_private.py); with none installed its answer is empty, and the module
    put in its place gives the same answer without the search. With a possible plugin nothing
    changes.

    Only the app does this (cli.main). The commands keep pydantic's own search: with this step,
    `queuedesk export`'s peak-memory growth from 2,000 to 20,000 tasks went from 2.3 to 9.8 MiB in
    an earlier measurement, for a reason not found, and a command's start time is not measured.
    """
    from queuedesk.compat import written_for
    from queuedesk.compat.pydantic_private import PLUGIN_LOADER, VERSIONS, answer_no_plugins

    if PLUGIN_LOADER in sys.modules or not written_for("pydantic", VERSIONS) or pydantic_plugins_may_exist():
        return
    answer_no_plugins()
