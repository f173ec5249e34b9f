"""The package's rooms, kept by reading its imports (every one: inside functions and under
`TYPE_CHECKING` too, since a type-only import still ties two modules together for whoever reads them).

- no circle of imports anywhere in the package;
- at most a dozen modules loose in the roots of `tui/` and `server/`: the rest live in folders that
  name their family;
- the app's rooms build on each other one way: widgets (plain parts), modals (dialogs), panes (parts
  of a screen that talk to the server), screens; none imports the app (`tui/host.py` says what they
  ask of it);
- `api/` imports neither Textual nor the server nor the app;
- `server/` and `tui/` never import each other.

Run as a script with a source folder (`python tests/unit/test_import_graph.py path/to/src`) to see
what another tree breaks.
"""

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def modules(src: Path) -> dict[str, Path]:
    """Every module of the `queuedesk` package under `src`, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((src / "queuedesk").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """What a module imports: our modules by their dotted name (relative imports made absolute),
    other libraries' by the name imported."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            yield from submodules or [base]  # `from package import module`, else the module itself


def graph(src: Path) -> dict[str, set[str]]:
    """Module -> every name it imports (see `imported_modules`)."""
    known = modules(src)
    return {name: set(imported_modules(name, path, known)) - {name} for name, path in known.items()}


def circles(edges: dict[str, set[str]], inside: str) -> list[list[str]]:
    """The strongly connected groups of more than one module among those under `inside` (Tarjan)."""
    nodes = [n for n in edges if n == inside or n.startswith(inside + ".")]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in edges or not (target == inside or target.startswith(inside + ".")):
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in nodes:
        if node not in index:
            visit(node)
    return found


def crossings(edges: dict[str, set[str]], source: str, forbidden: tuple[str, ...]) -> list[str]:
    """`module -> import` for every import from a module under `source` of a name under `forbidden`."""
    return sorted(
        f"{name} -> {target}"
        for name, targets in edges.items()
        if name == source or name.startswith(source + ".")
        for target in targets
        if any(target == f or target.startswith(f + ".") for f in forbidden)
    )


# The app's rooms, from the bottom: widgets (plain parts), modals (dialogs), panes (parts of a screen
# that talk to the server and open dialogs), screens; only `main` builds the app.
TUI = "queuedesk.tui"
RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "widgets are plain parts, built of no dialog, pane or screen": (
        f"{TUI}.widgets",
        (f"{TUI}.modals", f"{TUI}.panes", f"{TUI}.screens", f"{TUI}.app"),
    ),
    "dialogs open no screen": (f"{TUI}.modals", (f"{TUI}.panes", f"{TUI}.screens", f"{TUI}.app")),
    "panes are parts of screens, not the other way round": (f"{TUI}.panes", (f"{TUI}.screens", f"{TUI}.app")),
    "screens ask the app through `tui/host.py`, never import it": (f"{TUI}.screens", (f"{TUI}.app",)),
    **{
        f"the app's `{family}/` is built of no dialog, pane or screen": (
            f"{TUI}.{family}",
            (f"{TUI}.modals", f"{TUI}.panes", f"{TUI}.screens", f"{TUI}.app"),
        )
        for family in ("keys", "terminal", "work", "review", "views", "admin", "nodes")
    },
    "the client knows neither Textual nor the server nor the app": (
        "queuedesk.api",
        ("textual", "textual_image", "queuedesk.server", "queuedesk.tui"),
    ),
    "the server does not import the app": ("queuedesk.server", ("queuedesk.tui", "textual")),
    "the app does not import the server": ("queuedesk.tui", ("queuedesk.server",)),
}


def problems(src: Path) -> list[str]:
    edges = graph(src)
    found = [f"a circle: {' <-> '.join(group)}" for group in circles(edges, "queuedesk")]
    for rule, (source, forbidden) in RULES.items():
        found += [f"{rule}: {crossing}" for crossing in crossings(edges, source, forbidden)]
    return found


def test_the_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """A circle made only of a type-only import and a function's import is still one; relative
    imports count like absolute ones."""
    files = {
        "__init__.py": "",
        "api/__init__.py": "",
        "api/client.py": "import textual.app\n",
        "server/__init__.py": "",
        "server/app.py": "",
        "tui/__init__.py": "",
        "tui/app.py": "def open_queue() -> None:\n    from queuedesk.tui.screens import queue\n",
        "tui/screens/__init__.py": "",
        "tui/screens/queue.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..app import App\n",
        "tui/widgets/__init__.py": "",
        "tui/widgets/view.py": "from ..screens.queue import QueueScreen\nfrom queuedesk.server import app\n",
    }
    for name, text in files.items():
        path = tmp_path / "queuedesk" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert problems(tmp_path) == [
        "a circle: queuedesk.tui.app <-> queuedesk.tui.screens.queue",
        "widgets are plain parts, built of no dialog, pane or screen: "
        "queuedesk.tui.widgets.view -> queuedesk.tui.screens.queue",
        "screens ask the app through `tui/host.py`, never import it: queuedesk.tui.screens.queue -> queuedesk.tui.app",
        "the client knows neither Textual nor the server nor the app: queuedesk.api.client -> textual.app",
        "the app does not import the server: queuedesk.tui.widgets.view -> queuedesk.server.app",
    ]


def test_the_package_keeps_its_rooms() -> None:
    assert problems(SRC) == []


LOOSE_AT_MOST = 12


def test_the_roots_of_the_app_and_the_server_hold_at_most_a_dozen_modules() -> None:
    for room in ("tui", "server"):
        loose = sorted(path.name for path in (SRC / "queuedesk" / room).glob("*.py"))
        assert len(loose) <= LOOSE_AT_MOST, f"{room}/ has {len(loose)} loose modules: {loose}"


if __name__ == "__main__":
    for problem in problems(Path(sys.argv[1]) if len(sys.argv) > 1 else SRC):
        print(problem)
