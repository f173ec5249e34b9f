"""Every private name of another library that QueueDesk uses is listed in `queuedesk.compat`, and
is still there in the installed library: an upgrade that renames one fails here, by name."""

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import pytest

import queuedesk.compat
from queuedesk.compat import PrivateName, installed_minor, written_for


def compat_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"queuedesk.compat.{info.name}")
        for info in pkgutil.iter_modules(queuedesk.compat.__path__)
    ]


def listed() -> list[PrivateName]:
    return [name for module in compat_modules() for name in module.PRIVATE_NAMES]


def missing(name: PrivateName) -> str | None:
    """What of `name` the installed library lacks, or None when all of it is there."""
    parts = name.path.split(".")
    module_name = ".".join(parts[: name.module])
    try:
        found: object = importlib.import_module(module_name)
    except ImportError:
        return f"no module {module_name}"
    attributes = parts[name.module :]
    if name.on_instances:
        *attributes, assigned = attributes
    for attribute in attributes:
        if not hasattr(found, attribute):
            return f"{module_name} has no {'.'.join(attributes)}"
        found = getattr(found, attribute)
    if name.on_instances:
        assert isinstance(found, type), name
        code = "".join(
            inspect.getsource(cls) for cls in found.__mro__ if cls.__module__.split(".")[0] == parts[0]
        )
        if not re.search(rf"\bself\.{re.escape(assigned)}\s*(:[^=\n]*)?=[^=]", code):
            return f"{'.'.join(parts[:-1])} no longer sets self.{assigned}"
    return None


@pytest.mark.parametrize("name", listed(), ids=lambda name: name.path)
def test_each_listed_private_name_is_still_there(name: PrivateName) -> None:
    assert name.why and name.used_in
    library = name.path.split(".")[0]
    if name.versions and not written_for(library, name.versions):
        pytest.skip(
            f"{library} {installed_minor(library)} is not one of {name.versions}: "
            f"its shortcut ({name.used_in}) is not taken"
        )
    assert missing(name) is None, f"{missing(name)} (used in {name.used_in}: {name.why})"


def test_a_library_named_with_versions_is_not_pinned() -> None:
    """A library whose names list the versions they were checked on is installed in a range (more
    than one minor); every other library with a listed name is pinned to one minor."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(queuedesk.__file__).parents[2] / "pyproject.toml").read_text())["project"]
    requirements = [
        *project["dependencies"],
        *(r for e in project["optional-dependencies"].values() for r in e),
    ]

    def requirement(library: str) -> str:
        normal = library.replace("_", "-")
        [found] = {r.split(";")[0] for r in requirements if re.match(rf"{re.escape(normal)}\b(?!-)", r)}
        return found

    for name in listed():
        library = name.path.split(".")[0]
        pinned = re.fullmatch(r"[\w-]+>=(\d+)\.(\d+)(?:\.\d+)?,<(\d+)\.(\d+)", requirement(library))
        one_minor = pinned is not None and (int(pinned[1]), int(pinned[2]) + 1) == (
            int(pinned[3]),
            int(pinned[4]),
        )
        assert one_minor != bool(name.versions), (name.path, requirement(library))


def test_a_renamed_name_is_caught() -> None:
    """The check itself: a name the library does not have, on a class or set on instances, fails."""
    assert missing(PrivateName("textual.screen.Screen._forward_event_renamed", 2, "x", "x"))
    assert missing(PrivateName("textual.no_such_module.X", 2, "x", "x")) == "no module textual.no_such_module"
    assert missing(
        PrivateName("uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.renamed", 4, "x", "x", True)
    )


def test_the_protocol_subclass_adds_no_name_uvicorn_uses() -> None:
    from queuedesk.compat.uvicorn_private import OUR_NAMES, HttpToolsProtocol

    code = inspect.getsource(HttpToolsProtocol)
    assert [name for name in OUR_NAMES if hasattr(HttpToolsProtocol, name) or f"self.{name}" in code] == []


def test_the_packages_code_reaches_into_no_private_module_unlisted() -> None:
    """An import of another library's private module (`from x._y import`, a "x._y" module name) in
    QueueDesk's code names a module listed here."""
    from pathlib import Path

    listed_modules = {".".join(n.path.split(".")[: n.module]) for n in listed()}
    source = Path(queuedesk.__file__).parent
    found = set()
    for path in source.rglob("*.py"):
        if path.parent.name == "compat":
            continue
        for match in re.finditer(
            r"""(?:from\s+|["'])((?:textual|textual_image|pydantic|httpx|anyio|uvicorn)(?:\.\w+)*\._\w+(?:\.\w+)*)""",
            path.read_text(),
        ):
            found.add((match.group(1), str(path.relative_to(source))))
    assert {(module, where) for module, where in found if module not in listed_modules} == set()


# Names with a leading underscore that are public API: SQLAlchemy's Row._mapping, namedtuple's
# methods, os._exit.
PUBLIC_UNDERSCORED = frozenset({"_mapping", "_replace", "_asdict", "_fields", "_make", "_exit"})


def test_the_packages_code_reads_no_private_attribute_unlisted() -> None:
    """`x._name` where `_name` is not QueueDesk's own (defined somewhere in the package) is another
    library's: it must be listed here (by its last name)."""
    import ast
    from pathlib import Path

    source = Path(queuedesk.__file__).parent
    trees = {
        path: ast.parse(path.read_text()) for path in source.rglob("*.py") if path.parent.name != "compat"
    }
    own = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                own.add(node.target.id)
    names = {name.path.split(".")[-1] for name in listed()}
    unlisted = sorted(
        f"{path.relative_to(source)}:{node.lineno} .{node.attr}"
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and node.attr not in own | names | PUBLIC_UNDERSCORED
    )
    assert unlisted == []
