"""Other libraries' private names that QueueDesk relies on: one module per library, each name with
the reason it is used and where (`PRIVATE_NAMES`).

A private name can change in any release without notice. `tests/unit/test_private_names.py` looks
up every name listed here in the installed library, so an upgrade that renames one fails there, by
name, rather than somewhere in the app; pyproject.toml pins each of these libraries to the minor
version tested. Importing this package imports none of the libraries.

A name used only for a shortcut that changes no behaviour (lean_start.py, the app's head start on
its imports) binds no pin: it lists the minor versions it was checked on (`versions`), and the
shortcut is taken on those alone (`written_for`); on any other version the library is imported
as it is, so those libraries are installed in ranges.
"""

import os
import re
from dataclasses import dataclass

_VERSION = re.compile(r"(\d+)\.(\d+)(?:[.+\-a-z].*)?")


@dataclass(frozen=True)
class PrivateName:
    """`path`: the module, then attributes ("textual.screen.Screen._forward_event"); `module`: how
    many dotted parts name the module (the rest are attributes looked up on it). `on_instances`: the
    last name is set on each instance (`self.name = ...` in the class's code), not on the class."""

    path: str
    module: int
    why: str
    used_in: str
    on_instances: bool = False
    versions: tuple[str, ...] = ()  # the minor versions checked ("0.28"); empty: the library is pinned


def installed_minor(package: str) -> str | None:
    """The "major.minor" of the installed distribution of a top-level `package`, or None when in
    any doubt (not installed, no or several metadata folders, an odd version).

    Read from the name of its `NAME-VERSION.dist-info` folder beside the package: neither the
    package nor `importlib.metadata` is imported (either would cost the start what a shortcut
    saves).
    """
    from importlib.util import find_spec

    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.dirname(next(iter(spec.submodule_search_locations)))
    prefix = f"{package.lower()}-"
    try:
        found = [
            name[len(prefix) : -len(".dist-info")]
            for name in os.listdir(folder)
            if name.lower().startswith(prefix) and name.endswith(".dist-info")
        ]
    except OSError:
        return None
    match = _VERSION.fullmatch(found[0]) if len(found) == 1 else None
    return f"{match[1]}.{match[2]}" if match else None


def written_for(package: str, versions: tuple[str, ...]) -> bool:
    """Whether the installed `package` is one of the minor `versions` a shortcut was checked on."""
    return installed_minor(package) in versions
