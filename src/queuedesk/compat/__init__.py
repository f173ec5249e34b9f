"""Other libraries' private names that QueueDesk relies on: one module per library, each name with
the reason it is used and where (`PRIVATE_NAMES`).

A private name can change in any release without notice. `tests/unit/test_private_names.py` looks
up every name listed here in the installed library, so an upgrade that renames one fails there, by
name, rather than somewhere in the app; pyproject.toml pins each of these libraries to the minor
version tested. Importing this package imports none of the libraries.
"""

from dataclasses import dataclass


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
