"""Counts and id ranges said as a person says them, in every message of the client and the command line."""

import ast
import re
from pathlib import Path

import pytest

from queuedesk.api.wording import counted, id_span

SRC = Path(__file__).resolve().parents[2] / "src" / "queuedesk"
# "task(s)", "block(s)": a count should say one or many, not both. "http(s)" names two schemes.
BOTH_NUMBERS = re.compile(r"\b(?!http\()\w+\(s\)")


@pytest.mark.parametrize(
    ("number", "noun", "said"),
    [(0, "task", "0 tasks"), (1, "task", "1 task"), (2, "task", "2 tasks"), (1200, "row", "1,200 rows"),
     (1, "pending task", "1 pending task"), (3, "entry", "3 entries")],
)  # fmt: skip
def test_counted(number: int, noun: str, said: str) -> None:
    plural = "entries" if noun == "entry" else None
    assert counted(number, noun, plural) == said


def test_id_span() -> None:
    assert id_span([93]) == "id 93"
    assert id_span([93, 94, 95]) == "ids 93-95"


def _literals(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


@pytest.mark.parametrize("room", ["api", "commands"])
def test_no_message_says_one_or_many_at_once(room: str) -> None:
    offending = [
        f"{path.relative_to(SRC)}:{line}: {text!r}"
        for path in sorted((SRC / room).rglob("*.py"))
        for line, text in _literals(path)
        if BOTH_NUMBERS.search(text)
    ]
    assert offending == []
