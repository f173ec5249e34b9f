"""The ids of the app's key bindings, for telling a mistyped id in the file's `keys` from a real one.

The ids are read from the sources rather than from the classes: most screens are imported only when
first opened (the start stays fast), and a check must not import them all.
"""

import ast
import difflib
import functools
from collections.abc import Iterable
from pathlib import Path

_PACKAGE = Path(__file__).parents[1]  # the whole app (tui/), not only keys/


def _ids_in(source: str) -> Iterable[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Binding":
            for keyword in node.keywords:
                if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                    yield str(keyword.value.value)


@functools.cache
def binding_ids() -> frozenset[str]:
    """Every binding id the app's screens and widgets declare."""
    sources = (path.read_text(encoding="utf-8") for path in sorted(_PACKAGE.rglob("*.py")))
    return frozenset(found for source in sources if "Binding(" in source for found in _ids_in(source))


def unknown_ids(keys: Iterable[str]) -> list[str]:
    """The ids in `keys` no binding has, in the order given."""
    known = binding_ids()
    return [key for key in keys if key not in known]


def suggestions(unknown: Iterable[str]) -> str:
    """ "Did you mean …?" for ids close to real ones, else where the ids are named."""
    close = {
        wrong: found[0]
        for wrong in unknown
        if (found := difflib.get_close_matches(wrong, sorted(binding_ids()), n=1, cutoff=0.6))
    }
    if close:
        return "Did you mean " + ", ".join(f"{right} (for {wrong})" for wrong, right in close.items()) + "?"
    return "An id is the screen's name and the action, such as queues.refresh or table.down."
