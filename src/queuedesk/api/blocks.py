"""The rules of blocks: which settings each block type takes and which values fit it.

The server validates queue definitions and task data with these rules, and the terminal app checks
its forms with the same ones before sending, so the two can never disagree.
"""

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeAlias
from urllib.parse import urlsplit

from queuedesk.api import entities
from queuedesk.api.models import Block
from queuedesk.api.terminal_text import control_character, described, is_safe

# Always matched whole (`fullmatch`): `^...$` would let a final newline through.
BLOCK_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# No control character in an address (an ESC is not whitespace, and a terminal obeys it).
_ADDRESS_CHAR = r"[^@\s\x00-\x1f\x7f-\x9f]"
EMAIL = re.compile(f"{_ADDRESS_CHAR}+@{_ADDRESS_CHAR}+\\.{_ADDRESS_CHAR}+")
MAX_URL_LENGTH = 2048
# Numbers JSON on the wire can carry: orjson, which the service and the client use, reads and writes
# integers from -2**63 to 2**64 - 1 and finite floats.
INTEGER_RANGE = (-(2**63), 2**64 - 1)
LISTED = 5  # names a message lists (blocks, options) before "and N more"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: a stable `code`, the `field` at fault, a `message` for people."""

    code: str
    field: str | None
    message: str


MAX_REPORTED = 100  # problems an answer reports; the rest are only counted


@dataclass(frozen=True)
class Findings:
    """The first problems found in an input, and how many more there were."""

    first: list[Problem]
    more: int = 0

    def __bool__(self) -> bool:
        return bool(self.first)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.first)


def first_problems(problems: Iterable[Problem], keep: int = MAX_REPORTED) -> Findings:
    """Keep the first `keep` problems and count the rest, without holding them."""
    first: list[Problem] = []
    more = 0
    for problem in problems:
        if len(first) < keep:
            first.append(problem)
        else:
            more += 1
    return Findings(first, more)


def control_problem(value: str, *, lines: bool = False) -> str | None:
    """Why `value` may not be stored in a field people read (a name, a description, a URL): it holds
    a control character, which a terminal would obey. With `lines`, line feeds and tabs are fine."""
    char = control_character(value, lines=lines)
    if char is None:
        return None
    allowed = " (line breaks and tabs are fine)" if lines else ""
    return f"holds a control character ({described(char)}): remove it{allowed}"


# --- settings -----------------------------------------------------------------------------------

SettingCheck = Callable[[Any], str | None]


def _is_str(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def _is_shown_str(value: Any) -> str | None:
    """A string people read in the app (a placeholder): no control characters but line breaks."""
    return _is_str(value) or control_problem(value, lines=True)


def _is_bool(value: Any) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _is_str_or_number(value: Any) -> str | None:
    ok = isinstance(value, str | int | float) and not isinstance(value, bool)
    return None if ok else "must be a string or a number"


def _is_format(value: Any) -> str | None:
    return None if value in ("markdown", "html") else "must be 'markdown' or 'html'"


def _is_options(value: Any) -> str | None:
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of {id, name} objects"
    seen: set[str] = set()
    for index, option in enumerate(value):
        if not isinstance(option, dict) or set(option) != {"id", "name"}:
            return f"option {index} must be an object with exactly 'id' and 'name'"
        option_id, name = option["id"], option["name"]
        if not isinstance(option_id, str) or not BLOCK_ID.fullmatch(option_id):
            return f"option {index} id must be 1-64 letters, digits, '_' or '-'"
        if not isinstance(name, str):
            return f"option {index} name must be a string"
        if (problem := control_problem(name)) is not None:
            return f"option {index} name {problem}"
        if option_id in seen:
            return f"option id '{option_id}' is used twice"
        seen.add(option_id)
    return None


# --- values -------------------------------------------------------------------------------------

ValueCheck = Callable[[Any, Mapping[str, Any]], str | None]


def _text_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def _option_ids(settings: Mapping[str, Any]) -> list[str]:
    options = settings.get("options") or []
    return [o["id"] for o in options if isinstance(o, dict) and "id" in o]


def _single_selection_value(value: Any, settings: Mapping[str, Any]) -> str | None:
    ids = _option_ids(settings)
    if not isinstance(value, str) or value not in ids:
        return f"{_show(value)} is not an option ({listing(ids)})"
    return None


def _multiple_selection_value(value: Any, settings: Mapping[str, Any]) -> str | None:
    ids = _option_ids(settings)
    if not isinstance(value, list):
        return f"must be a list of option ids ({listing(ids)})"
    unknown = [_show(v) for v in value if not isinstance(v, str) or v not in ids]
    if unknown:
        return f"{listing(unknown)} not among the options ({listing(ids)})"
    if len(set(value)) != len(value):
        return "lists an option twice"
    return None


def is_http_url(value: Any) -> bool:
    """An absolute http(s) URL with a host, and nothing in it a terminal would obey (a link is drawn
    as a terminal hyperlink)."""
    if not isinstance(value, str) or len(value) > MAX_URL_LENGTH or any(c.isspace() for c in value):
        return False
    if not is_safe(value):
        return False
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _url_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    if isinstance(value, str) and (problem := control_problem(value)) is not None:
        return problem
    return None if is_http_url(value) else f"{_show(value)} is not an http(s) URL"


def _binary_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _number_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number"
    if isinstance(value, int):  # math.isfinite would raise OverflowError beyond the float range
        low, high = INTEGER_RANGE
        return None if low <= value <= high else "is a whole number out of range (at most 64 bits)"
    return None if math.isfinite(value) else "must be a finite number"


def _date_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    if isinstance(value, str):
        for parse in (date.fromisoformat, datetime.fromisoformat):
            try:
                parse(value)
                return None
            except ValueError:
                continue
    return f"{_show(value)} is not an ISO 8601 date or date-time"


def _email_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    ok = isinstance(value, str) and len(value) <= 320 and EMAIL.fullmatch(value)
    return None if ok else f"{_show(value)} is not an email address"


def _list_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    return None if isinstance(value, list) else "must be a list"


def _object_value(value: Any, _settings: Mapping[str, Any]) -> str | None:
    return None if isinstance(value, dict) else "must be an object"


def _any_value(_value: Any, _settings: Mapping[str, Any]) -> str | None:
    return None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def listing(names: Sequence[str], limit: int = LISTED) -> str:
    """At most `limit` names, then how many more: a message stays short whatever the queue holds."""
    shown = ", ".join(names[:limit])
    more = len(names) - limit
    return f"{shown} and {more} more" if more > 0 else shown


@dataclass(frozen=True)
class BlockType:
    name: str
    settings: Mapping[str, SettingCheck] = field(default_factory=dict)
    check_value: ValueCheck = _any_value
    required_settings: tuple[str, ...] = ()
    free_settings: bool = False  # settings kept as the original service has them, not checked


_PLACEHOLDER = {"placeholder": _is_shown_str}
_REQUIRED = {"is_required": _is_bool}

BLOCK_TYPES: dict[str, BlockType] = {
    t.name: t
    for t in (
        BlockType("text", {**_PLACEHOLDER, "read_only": _is_bool, **_REQUIRED}, _text_value),
        BlockType(
            "single_selection",
            {"options": _is_options, **_REQUIRED},
            _single_selection_value,
            required_settings=("options",),
        ),
        BlockType("image", _PLACEHOLDER, _url_value),
        BlockType(
            "multiple_selection",
            {"options": _is_options, **_REQUIRED},
            _multiple_selection_value,
            required_settings=("options",),
        ),
        BlockType("binary", _REQUIRED, _binary_value),
        BlockType("number", {"placeholder": _is_str_or_number, **_REQUIRED}, _number_value),
        BlockType("date", {**_PLACEHOLDER, **_REQUIRED}, _date_value),
        BlockType("email", {**_PLACEHOLDER, **_REQUIRED}, _email_value),
        *(BlockType(name, _PLACEHOLDER, _url_value) for name in ("link", "embed", "audio")),
        *(BlockType(name, _PLACEHOLDER, _url_value) for name in ("video", "pdf")),
        BlockType("rich_text", {"format": _is_format, "read_only": _is_bool}, _text_value),
        BlockType("list", {"subtype": _is_str}, _list_value),
        BlockType("text_sequence", {}, _list_value),
        *(
            BlockType(name, check_value=_object_value, free_settings=True)
            for name in ("form_sequence", "bounding_boxes")
        ),
        BlockType("named_entity_recognition", check_value=entities.check, free_settings=True),
    )
}


def block_type(name: str) -> BlockType:
    """The rules for a type; an unknown type (from a newer server) accepts any value."""
    return BLOCK_TYPES.get(name) or BlockType(name, free_settings=True)


def is_empty(value: Any) -> bool:
    """What `is_required` refuses: no value, an empty string or an empty list."""
    return value is None or value == "" or value == []


# --- whole definitions --------------------------------------------------------------------------


def validate_blocks(raw_blocks: Any, field_name: str = "data") -> list[Problem]:
    """Check a queue's block definitions (B12, B13): ids, known types and their settings."""
    if not isinstance(raw_blocks, list):
        return [Problem("invalid_value", field_name, "must be a list of blocks")]
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_blocks):
        where = f"{field_name}[{index}]"
        if not isinstance(raw, dict):
            problems.append(Problem("invalid_value", where, "a block must be an object"))
            continue
        problems.extend(_validate_block(raw, where, seen))
    return problems


def _validate_block(raw: dict[str, Any], where: str, seen: set[str]) -> list[Problem]:
    problems = [
        Problem("missing_required", f"{where}.{key}", f"a block needs '{key}'")
        for key in ("id", "name", "type")
        if key not in raw
    ]
    if problems:
        return problems
    block_id, name, type_name = raw["id"], raw["name"], raw["type"]
    if not isinstance(block_id, str) or not BLOCK_ID.fullmatch(block_id):
        problems.append(Problem("invalid_value", f"{where}.id", "must be 1-64 letters, digits, '_' or '-'"))
    elif block_id in seen:
        problems.append(Problem("invalid_value", f"{where}.id", f"block id '{block_id}' is used twice"))
    else:
        seen.add(block_id)
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        problems.append(Problem("invalid_value", f"{where}.name", "must be a non-empty string"))
    elif (problem := control_problem(name)) is not None:
        problems.append(Problem("invalid_value", f"{where}.name", problem))
    if not isinstance(type_name, str) or type_name not in BLOCK_TYPES:
        known = ", ".join(BLOCK_TYPES)
        problems.append(
            Problem("invalid_value", f"{where}.type", f"{_show(type_name)} is not a block type ({known})")
        )
        return problems
    extra = set(raw) - {"id", "name", "type", type_name}
    problems.extend(
        Problem("unknown_field", f"{where}.{key}", f"a {type_name} block has no {_show(key)}")
        for key in sorted(extra)
    )
    problems.extend(_validate_settings(BLOCK_TYPES[type_name], raw.get(type_name), f"{where}.{type_name}"))
    return problems


def _validate_settings(kind: BlockType, settings: Any, where: str) -> list[Problem]:
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        return [Problem("invalid_value", where, "settings must be an object")]
    problems = [
        Problem("missing_required", f"{where}.{key}", f"a {kind.name} block needs '{key}'")
        for key in kind.required_settings
        if key not in settings
    ]
    if kind.free_settings:
        return problems
    for key, value in settings.items():
        check = kind.settings.get(key)
        if check is None:
            valid = ", ".join(kind.settings) or "none"
            problems.append(Problem("unknown_field", f"{where}.{key}", f"unknown setting (valid: {valid})"))
        elif (message := check(value)) is not None:
            problems.append(Problem("invalid_value", f"{where}.{key}", message))
    return problems


BlockValueCheck: TypeAlias = Callable[[Block, Any], str | None]


def value_problem(block: Block, value: Any) -> str | None:
    """What is wrong with a block's (non-null) value by QueueDesk's rules; None when it fits."""
    return block_type(block.type).check_value(value, block.settings)


def validate_task_data(
    blocks: Sequence[Block],
    data: Any,
    *,
    enforce_required: bool = False,
    field_name: str = "data",
    allow_empty: bool = False,
) -> list[Problem]:
    """Check a task's `data` against its queue's blocks (A1, B7, B8).

    Every key must be a block id, every value null or fitting its block. With `enforce_required`
    (completion) a required block must also have a value.
    """
    return list(
        task_data_problems(
            blocks, data, enforce_required=enforce_required, field_name=field_name, allow_empty=allow_empty
        )
    )


def task_data_problems(
    blocks: Sequence[Block],
    data: Any,
    *,
    enforce_required: bool = False,
    field_name: str = "data",
    allow_empty: bool = False,
    by_id: Mapping[str, Block] | None = None,
    check_value: BlockValueCheck | None = None,
) -> Iterator[Problem]:
    """`validate_task_data`'s problems one at a time, so that a caller keeping only the first few
    never holds one per key of a huge object. `by_id` (the blocks by id) saves building it again
    for each task of an import. `check_value` replaces the block types' value rules (another server's)."""
    if not isinstance(data, dict) or (not data and not allow_empty):
        yield Problem("no_data", field_name, "must be a non-empty JSON object of block values")
        return
    by_id = by_id or {b.id: b for b in blocks}
    valid = ""
    for key in data:
        if key not in by_id:
            valid = valid or listing(list(by_id)) or "none"
            yield Problem(
                "unknown_field",
                f"{field_name}.{key}",
                f"{_show(key)} is not a block of this queue (blocks: {valid})",
            )
    for key, value in data.items():
        block = by_id.get(key)
        if block is None or value is None:
            continue
        message = (check_value or value_problem)(block, value)
        if message is not None:
            yield Problem("invalid_value", f"{field_name}.{key}", f"block '{key}' ({block.type}): {message}")
    if enforce_required:
        for b in blocks:
            if b.is_required and is_empty(data.get(b.id)):
                yield Problem(
                    "missing_required", f"{field_name}.{b.id}", f"block '{b.id}' ({b.name}) is required"
                )
