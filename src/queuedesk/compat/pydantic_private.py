"""pydantic's private names QueueDesk relies on (pydantic 2.13 and 2.14; other versions go without the shortcut)."""

import sys
import types

from queuedesk.compat import PrivateName

PLUGIN_LOADER = "pydantic.plugin._loader"
# Each asks `get_plugins()` of this module for the `pydantic` entry-point group's plugins.
VERSIONS = ("2.13", "2.14")

PRIVATE_NAMES = (
    PrivateName(
        f"{PLUGIN_LOADER}.get_plugins",
        3,
        "pydantic asks this module for plugins when it builds its first validator, searching every "
        "installed distribution's entry points (≈25-35 ms of the app's start); when none can exist "
        "a stand-in module answers the same empty tuple without the search (lean_start.py).",
        "lean_start.py without_pydantic_plugin_search",
        versions=VERSIONS,
    ),
)


def answer_no_plugins() -> None:
    """Put the stand-in loader in place, unless pydantic's own is already imported."""
    if PLUGIN_LOADER in sys.modules:
        return
    loader = types.ModuleType(PLUGIN_LOADER, "No pydantic plugin is installed (queuedesk).")
    loader.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> (): no plugins
    sys.modules[PLUGIN_LOADER] = loader
