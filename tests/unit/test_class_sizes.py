"""No class grows past its size: a screen is composed of panes and plain Python, not one long class.
A class under `tui/screens/` may have at most 300 lines, any other class in `src/` 400; each one
allowed more is named below with the reason. Read from the source with `ast`: nothing is imported."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "queuedesk"
SCREEN_LIMIT = 300
OTHER_LIMIT = 400

# (path under src/queuedesk, class name): why it may be longer for now.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def limit_for(path: str) -> int:
    return SCREEN_LIMIT if path.startswith("tui/screens/") else OTHER_LIMIT


def class_sizes() -> dict[tuple[str, str], int]:
    """Every class of the package (nested ones too), by (path, name): its lines, decorators included."""
    sizes: dict[tuple[str, str], int] = {}
    for file in sorted(SRC.rglob("*.py")):
        path = file.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), filename=str(file))):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                sizes[(path, node.name)] = (node.end_lineno or node.lineno) - first + 1
    return sizes


def too_long(sizes: dict[tuple[str, str], int]) -> dict[tuple[str, str], int]:
    return {where: lines for where, lines in sizes.items() if lines > limit_for(where[0])}


def test_no_class_is_longer_than_its_limit_unless_named_with_a_reason() -> None:
    over = {where: lines for where, lines in too_long(class_sizes()).items() if where not in EXCEPTIONS}
    said = [
        f"{path}::{name}: {lines} lines (limit {limit_for(path)})" for (path, name), lines in over.items()
    ]
    assert not said, "split by job into small modules:\n" + "\n".join(said)


def test_every_exception_still_needs_to_be_one() -> None:
    """An exception whose class was split (or renamed) goes from the table: it would let it grow back."""
    sizes = class_sizes()
    stale = [f"{path}::{name}" for path, name in EXCEPTIONS if sizes.get((path, name), 0) <= limit_for(path)]
    assert not stale, "no longer too long, take out of EXCEPTIONS: " + ", ".join(stale)


@pytest.mark.parametrize(
    ("source", "limit", "over"),
    [
        ("class A:\n" + "    x = 1\n" * 299, SCREEN_LIMIT, False),  # 300 lines: at the limit
        ("class A:\n" + "    x = 1\n" * 300, SCREEN_LIMIT, True),
        ("@dataclass\nclass A:\n" + "    x = 1\n" * 299, SCREEN_LIMIT, True),  # the decorator counts
        ("class A:\n    class B:\n" + "        x = 1\n" * 400, OTHER_LIMIT, True),
    ],
)
def test_a_class_is_measured_from_its_first_decorator_to_its_last_line(
    tmp_path: Path, source: str, limit: int, over: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "queuedesk" / "tui" / "screens"
    package.mkdir(parents=True)
    (package / "a.py").write_text(source)
    monkeypatch.setattr(f"{__name__}.SRC", tmp_path / "queuedesk")
    assert bool(too_long(class_sizes())) == over
