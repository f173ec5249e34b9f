"""Block values in CSV cells, both ways: what `queuedesk import` reads and `queuedesk export` writes.

Strings stay as they are; an empty cell is no value (null); numbers, booleans, lists and objects are
written as JSON and read back by their block's type.
"""

import json
import math
import re
from typing import Any

from queuedesk.api.models import Block

STRING_TYPES = frozenset(
    {
        "text",
        "single_selection",
        "image",
        "link",
        "embed",
        "audio",
        "video",
        "pdf",
        "date",
        "email",
        "rich_text",
    }
)
LIST_TYPES = frozenset({"multiple_selection", "list", "text_sequence"})
OBJECT_TYPES = frozenset({"form_sequence", "named_entity_recognition", "bounding_boxes"})
TRUE_WORDS = frozenset({"true", "yes", "1", "y"})
FALSE_WORDS = frozenset({"false", "no", "0", "n"})

INTEGER = re.compile(r"[-+]?[0-9]+")
DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
MAX_INTEGER_DIGITS = 25  # longer integers are read as floats (and refused when beyond their range)

# Columns `queuedesk export` writes besides the blocks; `queuedesk import` skips them.
TASK_COLUMNS = ("id", "status", "created_at", "completed_at", "completed_by", "source")


def to_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def from_cell(block: Block, cell: str) -> Any:
    """The value of `cell` for `block`; ValueError with a message for people when it cannot be read."""
    if cell == "":
        return None
    kind = block.type
    if kind in STRING_TYPES:
        return cell
    if kind == "number":
        return _number(cell)
    if kind == "binary":
        word = cell.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError(f"{cell!r} is not true or false")
    if kind in LIST_TYPES:
        if cell.lstrip().startswith("["):
            return _json(cell)
        return [part.strip() for part in cell.split(",") if part.strip()]
    if kind in OBJECT_TYPES:
        return _json(cell)
    try:  # a type this client does not know: JSON when it parses, else the text
        return json.loads(cell)
    except (ValueError, RecursionError):
        return cell


def _number(cell: str) -> int | float:
    """ASCII digits only: `int()` and `float()` would also take `1_000` and other scripts' digits."""
    text = cell.strip()
    if INTEGER.fullmatch(text) and len(text) <= MAX_INTEGER_DIGITS:
        return int(text)
    if DECIMAL.fullmatch(text):
        value = float(text)
        if math.isfinite(value):
            return value
        raise ValueError(f"{_quoted(cell)} is out of range for a number")
    raise ValueError(f"{_quoted(cell)} is not a number")


def _json(cell: str) -> Any:
    try:
        return json.loads(cell)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{_quoted(cell)} is not valid JSON ({exc.msg})") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ValueError(f"{_quoted(cell)} is not JSON that can be read ({exc})") from None
    except RecursionError:
        raise ValueError(f"{_quoted(cell)} is nested too deeply to read") from None


def _quoted(cell: str) -> str:
    return repr(cell) if len(cell) <= 40 else repr(cell[:40]) + "..."
