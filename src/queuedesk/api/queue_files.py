"""A queue described in a file (TOML or JSON): the seed's queue shape, one queue per file.

    name = "Categorization"
    description = "Sort incoming reports"
    webhook = "https://hooks.example.com/q"      # optional
    review_percent = 20                          # optional: the share of completions reviewed (B19)
    consensus = { answers = 2, max_answers = 3 } # optional (B21); `consensus = false` turns it off (edit)

    [[blocks]]
    id = "category"
    name = "Category"
    type = "single_selection"
    single_selection = { is_required = true, options = [{ id = "red", name = "Red" }] }

    [[tasks]]                                   # optional, created with the queue (create only)
    data = { category = "red" }

Every fault is named at its place (`queue.toml: blocks[1].single_selection.options: ...`), checked
by the same block rules as the server, before anything is sent.
"""

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomli_w

from queuedesk.api.blocks import BLOCK_TYPES, Problem, is_http_url, validate_blocks, validate_task_data
from queuedesk.api.models import Block, QueueDetail

KEYS = ("name", "description", "webhook", "review_percent", "consensus", "blocks", "tasks")
CONSENSUS_KEYS = ("answers", "max_answers", "agreement", "blocks")
MAX_NAME = 200
MAX_DESCRIPTION = 10_000
FileFormat = Literal["toml", "json"]
_BLOCK_PLACE = re.compile(r"^blocks\[(?P<index>\d+)\](?P<rest>.*)$")


class QueueFileError(ValueError):
    """The file is not a queue description; the message names the file and each place at fault."""


@dataclass
class QueueFile:
    """What a file declares; a key the file leaves out is None (so `edit` leaves it as it is)."""

    name: str | None = None
    description: str | None = None
    webhook: str | None = None  # "" removes the webhook (edit)
    review_percent: int | None = None
    # B21: the settings as sent (`answers`, and any of `max_answers`, `agreement`, `blocks`);
    # False turns consensus off (edit).
    consensus: dict[str, Any] | Literal[False] | None = None
    blocks: list[Block] | None = None
    tasks: list[Mapping[str, Any]] = field(default_factory=list)

    def raw_blocks(self) -> list[Mapping[str, Any]] | None:
        return None if self.blocks is None else [block_to_dict(b) for b in self.blocks]


def block_to_dict(block: Block) -> dict[str, Any]:
    return block.model_dump(mode="json")


def file_format(path: Path) -> FileFormat:
    return "json" if path.suffix.lower() == ".json" else "toml"


def read_document(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise QueueFileError(f"cannot read {path}: {exc.strerror}") from None
    kind = file_format(path)
    try:
        document = json.loads(raw) if kind == "json" else tomllib.loads(raw.decode())
    except (ValueError, UnicodeDecodeError) as exc:
        raise QueueFileError(f"{path} is not valid {kind.upper()}: {exc}") from None
    if not isinstance(document, dict):
        raise QueueFileError(f"{path}: must be an object with name, description and blocks")
    return document


def parse_document(document: dict[str, Any], *, for_create: bool) -> tuple[QueueFile, list[Problem]]:
    """The queue a document declares and every problem in it (field names relative to the document)."""
    problems = [
        Problem("unknown_field", key, f"unknown key (valid: {', '.join(KEYS)})")
        for key in document
        if key not in KEYS
    ]
    found = QueueFile()
    if "name" in document or for_create:
        name = document.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            problems.append(
                Problem(
                    "invalid_value", "name", f"must be a non-empty string of at most {MAX_NAME} characters"
                )
            )
        else:
            found.name = name.strip()
    if "description" in document:
        description = document["description"]
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
            problems.append(
                Problem(
                    "invalid_value",
                    "description",
                    f"must be a string of at most {MAX_DESCRIPTION} characters",
                )
            )
        else:
            found.description = description
    if "webhook" in document:
        webhook = document["webhook"]
        if not isinstance(webhook, str) or (webhook and not is_http_url(webhook)):
            problems.append(Problem("invalid_value", "webhook", 'must be an http(s) URL, or "" for none'))
        else:
            found.webhook = webhook
    if "review_percent" in document:
        percent = document["review_percent"]
        if type(percent) is not int or not 0 <= percent <= 100:
            problems.append(
                Problem("invalid_value", "review_percent", "must be a whole number from 0 to 100")
            )
        else:
            found.review_percent = percent
    if "consensus" in document:
        problems += _parse_consensus(document["consensus"], found, for_create)
    if "blocks" in document or for_create:
        raw_blocks = document.get("blocks", [])
        block_problems = validate_blocks(raw_blocks, "blocks")
        problems += block_problems
        if not block_problems:
            found.blocks = [Block.model_validate(b) for b in raw_blocks]
    if "tasks" in document:
        problems += _parse_tasks(document["tasks"], found, for_create)
    if isinstance(found.consensus, dict) and found.blocks is not None:
        problems += _consensus_against_blocks(found.consensus, found.blocks)
    return found, problems


def _parse_consensus(raw: Any, found: QueueFile, for_create: bool) -> list[Problem]:
    """B21's settings: a table with `answers` and any of the others; `false` (edit) turns it off."""
    if raw is False and not for_create:
        found.consensus = False
        return []
    shape = "a table such as { answers = 2, max_answers = 3 }" + ("" if for_create else ", or false (off)")
    if not isinstance(raw, dict) or "answers" not in raw:
        return [Problem("invalid_value", "consensus", f"must be {shape}")]
    problems = [
        Problem("unknown_field", f"consensus.{key}", f"unknown key (valid: {', '.join(CONSENSUS_KEYS)})")
        for key in raw
        if key not in CONSENSUS_KEYS
    ]
    for key in ("answers", "max_answers"):
        if key in raw and type(raw[key]) is not int:
            problems.append(
                Problem("invalid_value", f"consensus.{key}", "must be a whole number from 2 to 10")
            )
    agreement = raw.get("agreement", 0.5)
    if type(agreement) not in (int, float):
        problems.append(Problem("invalid_value", "consensus.agreement", "must be a share from 0.5 to 1"))
    blocks = raw.get("blocks", [])
    if not isinstance(blocks, list) or not all(isinstance(b, str) for b in blocks):
        problems.append(Problem("invalid_value", "consensus.blocks", "must be a list of block ids"))
    if not problems:
        found.consensus = dict(raw)
    return problems


def _consensus_against_blocks(settings: dict[str, Any], blocks: list[Block]) -> list[Problem]:
    from queuedesk.api.consensus_rules import Wanted, problems

    blocks_named = settings.get("blocks")
    wanted = Wanted(
        settings["answers"],
        settings.get("max_answers"),
        settings.get("agreement"),
        None if blocks_named is None else tuple(blocks_named),
    )
    return [Problem("invalid_value", "consensus", message) for message in problems(wanted, blocks)]


def _parse_tasks(raw_tasks: Any, found: QueueFile, for_create: bool) -> list[Problem]:
    if not for_create:
        return [
            Problem(
                "unknown_field",
                "tasks",
                "edit changes the queue's definition only: add tasks with `queuedesk import` or `tasks create`",
            )
        ]
    if not isinstance(raw_tasks, list):
        return [Problem("invalid_value", "tasks", "must be a list of {data = {...}} tables")]
    problems: list[Problem] = []
    for index, task in enumerate(raw_tasks):
        where = f"tasks[{index}]"
        if not isinstance(task, dict) or set(task) != {"data"}:
            problems.append(Problem("invalid_value", where, "a task is a table with exactly 'data'"))
            continue
        if found.blocks is not None:
            problems += validate_task_data(found.blocks, task["data"], field_name=f"{where}.data")
        if not problems:
            found.tasks.append(task["data"])
    return problems


def load_queue_file(path: Path, *, for_create: bool) -> QueueFile:
    """The queue `path` declares, or QueueFileError naming every place at fault."""
    document = read_document(path)
    found, problems = parse_document(document, for_create=for_create)
    if problems:
        raise QueueFileError("\n".join(f"{path}: {place(p.field, document)}: {p.message}" for p in problems))
    declared = (
        found.name,
        found.description,
        found.webhook,
        found.review_percent,
        found.consensus,
        found.blocks,
    )
    if not for_create and declared == (None,) * len(declared):
        raise QueueFileError(
            f"{path}: names nothing to change (name, description, webhook, review_percent, consensus or blocks)"
        )
    return found


def place(field_name: str | None, document: dict[str, Any]) -> str:
    """`blocks[1].type` -> `blocks[1] ('category').type`: the index and the block's id, when it has one."""
    match = _BLOCK_PLACE.match(field_name or "")
    raw_blocks = document.get("blocks")
    if match is None or not isinstance(raw_blocks, list):
        return field_name or "(the file)"
    index = int(match["index"])
    raw = raw_blocks[index] if index < len(raw_blocks) else None
    block_id = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(block_id, str):
        return field_name or "(the file)"
    return f"blocks[{index}] ({block_id!r}){match['rest']}"


def describe(queue: QueueDetail, webhook: str | None = None) -> dict[str, Any]:
    """A queue as a document that `load_queue_file` reads back (what `queue show` writes).

    What a QueueDesk queue cannot hold is left out (`left_out` names it): the original service adds
    `value: null` to text blocks and keeps settings such as `image.read_only`."""
    document: dict[str, Any] = {"name": queue.name, "description": queue.description}
    if webhook:
        document["webhook"] = webhook
    if "review_percent" in queue.model_fields_set:  # a server with review (B19) answered it
        document["review_percent"] = queue.review_percent
    if queue.consensus is not None:  # B21
        document["consensus"] = queue.consensus.model_dump(mode="json")
    document["blocks"] = [_portable(block_to_dict(b))[0] for b in queue.data]
    return document


def left_out(queue: QueueDetail) -> list[str]:
    """The places `describe` leaves out of the queue's blocks (`blocks[2] ('photo').image.read_only`)."""
    found: list[str] = []
    for index, block in enumerate(queue.data):
        found += [f"blocks[{index}] ({block.id!r}).{where}" for where in _portable(block_to_dict(block))[1]]
    return found


def _portable(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The block as QueueDesk takes it, and what was dropped (a null is the same as left out)."""
    type_name = raw.get("type")
    if not isinstance(type_name, str) or type_name not in BLOCK_TYPES:
        return raw, []  # a type QueueDesk does not have: kept whole, `queue create` names it
    kind = BLOCK_TYPES[type_name]
    kept = {k: v for k, v in raw.items() if k in ("id", "name", "type", type_name)}
    dropped = [k for k, v in raw.items() if k not in kept and v is not None]
    settings = raw.get(type_name)
    if isinstance(settings, dict) and not kind.free_settings:
        kept[type_name] = {k: v for k, v in settings.items() if k in kind.settings and v is not None}
        dropped += [
            f"{type_name}.{k}" for k, v in settings.items() if k not in kind.settings and v is not None
        ]
    return kept, dropped


def dump(document: dict[str, Any], kind: FileFormat) -> str:
    if kind == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return tomli_w.dumps(_without_nulls(document))


def _without_nulls(value: Any) -> Any:
    """TOML has no null: a setting that is null is the same as one left out."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value if v is not None]
    return value
