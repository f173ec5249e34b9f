"""A queue's definition while it is being edited: plain data the editor screen changes and checks.

Options of a selection are edited as text, one per line, `id: Name` (a line with only a name
gets an id made from it: "Needs review" -> `needs_review`).
"""

import re
from dataclasses import dataclass, field
from typing import Any

from queuedesk.api.blocks import BLOCK_TYPES, Problem, validate_blocks
from queuedesk.api.models import Block

BOOL_SETTINGS = ("is_required", "read_only")
TEXT_SETTINGS = ("placeholder", "format", "subtype")
_PLACE = re.compile(r"^data\[(?P<index>\d+)\](?:\.(?P<rest>.*))?$")


def make_id(name: str) -> str:
    """An id from a name: lower case, runs of other characters as `_`, at most 64 characters."""
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")[:64]


def options_text(options: Any) -> str:
    if not isinstance(options, list):
        return ""
    return "\n".join(
        f"{o.get('id', '')}: {o.get('name', '')}" if isinstance(o, dict) else str(o) for o in options
    )


def parse_options(text: str) -> list[dict[str, str]]:
    """`id: Name` lines (blank lines skipped); the block rules then say what is wrong with them."""
    found: list[dict[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        option_id, colon, name = line.partition(":")
        if not colon:
            name, option_id = line, make_id(line)
        found.append({"id": option_id.strip(), "name": name.strip()})
    return found


@dataclass
class BlockDraft:
    id: str
    name: str
    type: str
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, block: Block) -> "BlockDraft":
        return cls(block.id, block.name, block.type, dict(block.settings))

    @classmethod
    def new(cls, type_name: str, taken: set[str]) -> "BlockDraft":
        """A block of `type_name` with an id not in `taken` (`text`, `text_2`, ...)."""
        base, n = type_name, 1
        block_id = base
        while block_id in taken:
            n += 1
            block_id = f"{base}_{n}"
        name = type_name.replace("_", " ").capitalize() + ("" if n == 1 else f" {n}")
        settings: dict[str, Any] = {}
        if "options" in BLOCK_TYPES[type_name].required_settings:
            settings["options"] = [{"id": "yes", "name": "Yes"}, {"id": "no", "name": "No"}]
        return cls(block_id, name, type_name, settings)

    def retype(self, type_name: str) -> None:
        """Another type: settings the new type also has are kept, the others dropped."""
        kind = BLOCK_TYPES.get(type_name)
        if kind is None or type_name == self.type:
            return
        kept = {k: v for k, v in self.settings.items() if k in kind.settings}
        if "options" in kind.required_settings and "options" not in kept:
            kept["options"] = [{"id": "yes", "name": "Yes"}, {"id": "no", "name": "No"}]
        self.type, self.settings = type_name, kept

    def setting_keys(self) -> list[str]:
        kind = BLOCK_TYPES.get(self.type)
        return [] if kind is None or kind.free_settings else list(kind.settings)

    def raw(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type}
        settings = {k: v for k, v in self.settings.items() if v not in (None, "", False)}
        if self.type in BLOCK_TYPES and BLOCK_TYPES[self.type].free_settings:
            settings = dict(self.settings)
        if settings:
            body[self.type] = settings
        return body


@dataclass(frozen=True)
class DraftProblem:
    """A problem found in the draft: the block's index (None for the queue), the setting or field."""

    block: int | None
    field: str  # "name", "description"; in a block "id", "name", "type", "options", ...
    message: str


def block_problems(drafts: list[BlockDraft]) -> list[DraftProblem]:
    """The server's block rules over the drafts, each problem at its block and field."""
    return [located(p) for p in validate_blocks([d.raw() for d in drafts])]


def located(problem: Problem) -> DraftProblem:
    """`data[2].single_selection.options` -> block 2, field `options` (also for the server's answer)."""
    match = _PLACE.match(problem.field or "")
    if match is None:
        return DraftProblem(None, problem.field or "", problem.message)
    rest = (match["rest"] or "").split(".")
    name = rest[-1] if len(rest) > 1 else rest[0]
    return DraftProblem(int(match["index"]), name or "id", problem.message)


def review_percent(text: str) -> int | None:
    """The share of completions drawn for review (B19) as typed: a whole number 0-100, else None."""
    text = text.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value <= 100 else None


def review_problems(text: str) -> list[DraftProblem]:
    if review_percent(text) is None:
        return [DraftProblem(None, "review", "the share reviewed is a whole number from 0 to 100")]
    return []


def queue_problems(name: str, description: str) -> list[DraftProblem]:
    problems: list[DraftProblem] = []
    if not name.strip() or len(name) > 200:
        problems.append(DraftProblem(None, "name", "a queue needs a name (at most 200 characters)"))
    if len(description) > 10_000:
        problems.append(DraftProblem(None, "description", "at most 10000 characters"))
    return problems
