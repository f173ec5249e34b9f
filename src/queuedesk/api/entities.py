"""Named entities: the value of a `named_entity_recognition` block, its labels and its tokens.

A value is `{"text": str, "entities": [{"start": int, "end": int, "label": str}, ...]}`: `start`
and `end` count characters (Unicode code points, as Python indexes a `str`) of `text`, `end`
exclusive, and `label` is one of the block's labels. Other keys of the value are kept as they are.
The block's settings may list its labels (`"labels": ["PER", ...]` or `[{"id", "name"}, ...]`);
without them, the one label is `entity`.

The server checks values with `check` (through `queuedesk.api.blocks`), and the app's editor marks
entities with the rest, so what the editor makes is what the server takes.
"""

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

DEFAULT_LABEL = "entity"
ORIGINAL_LABEL = "category"  # the original service's name for an entity's label
# A word (letters, digits, inner apostrophes and hyphens) or one other visible character.
_TOKEN = re.compile(r"\w+(?:['\u2019-]\w+)*|[^\w\s]", re.UNICODE)


@dataclass(frozen=True, order=True)
class Entity:
    start: int
    end: int
    label: str

    def as_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "label": self.label}


def labels(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The block's labels as (id, name), read leniently; `entity` when it lists none."""
    found: list[tuple[str, str]] = []
    for raw in settings.get("labels") or []:
        if isinstance(raw, str) and raw:
            found.append((raw, raw))
        elif isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
            found.append((raw["id"], str(raw.get("name") or raw["id"])))
    return found or [(DEFAULT_LABEL, DEFAULT_LABEL)]


def tokens(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each word or punctuation mark of `text`: what a cursor steps over."""
    return [match.span() for match in _TOKEN.finditer(text)]


def text_of(value: Any) -> str | None:
    """The text to mark, or None when the value holds none."""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    return None


def entities_of(value: Any) -> list[Entity]:
    """The well-formed entities of a value, in order (anything else in it is skipped)."""
    if not isinstance(value, dict) or not isinstance(value.get("entities"), list):
        return []
    found = []
    for raw in value["entities"]:
        if isinstance(raw, dict) and _is_index(raw.get("start")) and _is_index(raw.get("end")):
            label = raw.get("label", raw.get(ORIGINAL_LABEL))  # the original service says `category`
            found.append(Entity(raw["start"], raw["end"], label if isinstance(label, str) else ""))
    return sorted(found)


def with_entity(value: dict[str, Any], entity: Entity) -> dict[str, Any]:
    """`value` with `entity` marked; entities it overlaps are replaced by it."""
    kept = [e for e in entities_of(value) if e.end <= entity.start or e.start >= entity.end]
    return {**value, "entities": [e.as_json() for e in sorted([*kept, entity])]}


def without_entities(value: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """`value` with every entity touching characters `start`..`end` unmarked."""
    kept = [e for e in entities_of(value) if e.end <= start or e.start >= end]
    return {**value, "entities": [e.as_json() for e in kept]}


def check(value: Any, settings: Mapping[str, Any]) -> str | None:
    """What is wrong with a value (None when it fits): the shape above, spans inside the text and
    not overlapping, labels among the block's."""
    if not isinstance(value, dict):
        return "must be an object"
    text = value.get("text")
    if text is not None and not isinstance(text, str):
        return "'text' must be a string"
    raw_entities = value.get("entities")
    if raw_entities is None:
        return None
    if not isinstance(raw_entities, list):
        return "'entities' must be a list"
    known = {label_id for label_id, _ in labels(settings)} if settings.get("labels") else None
    length = len(text) if isinstance(text, str) else 0
    spans: list[tuple[int, int]] = []
    for index, raw in enumerate(raw_entities):
        where = f"entity {index + 1}"
        if not isinstance(raw, dict):
            return f"{where} must be an object with start, end and label"
        start, end, label = raw.get("start"), raw.get("end"), raw.get("label")
        if not (_is_index(start) and _is_index(end)):
            return f"{where}: start and end must be whole numbers of characters"
        if not 0 <= start < end <= length:
            return f"{where}: {start}..{end} is not a span of the text's {length} characters"
        if label is None and ORIGINAL_LABEL in raw:
            return (
                f"{where} has {ORIGINAL_LABEL!r} (the original service's name for it): "
                "this server names an entity's label 'label'"
            )
        if not isinstance(label, str) or (known is not None and label not in known):
            allowed = ", ".join(sorted(known)) if known else "a string"
            return f"{where}: label {label!r} is not one of the block's labels ({allowed})"
        spans.append((start, end))
    spans.sort()
    for (_, first_end), (second_start, _) in itertools.pairwise(spans):
        if second_start < first_end:
            return "entities must not overlap"
    return None


def _is_index(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def original_check(value: Any) -> str | None:
    """What the original service refuses, or cannot serve back, in a named-entity value; None when
    it takes it: a plain string, or `{"text", "entities": [{"start", "end", "category"}, ...]}`."""
    if isinstance(value, str):
        return None
    if not isinstance(value, dict):
        return "must be a string or an object with 'text' and 'entities'"
    if value.get("text") is not None and not isinstance(value.get("text"), str):
        return "'text' must be a string"
    raw_entities = value.get("entities")
    if raw_entities is None:
        return None
    if not isinstance(raw_entities, list):
        return "'entities' must be a list"
    for index, raw in enumerate(raw_entities):
        where = f"entity {index + 1}"
        if not isinstance(raw, dict) or not (_is_index(raw.get("start")) and _is_index(raw.get("end"))):
            return f"{where} must be an object with whole numbers start and end, and {ORIGINAL_LABEL}"
        if not isinstance(raw.get(ORIGINAL_LABEL, raw.get("label")), str):
            return (
                f"{where} needs {ORIGINAL_LABEL!r}: this server names an entity's label "
                f"{ORIGINAL_LABEL!r} and answers 400 without it"
            )
    return None


def in_original_form(value: Any) -> Any:
    """A named-entity value as the original takes it: each entity's `label` (QueueDesk's name) sent
    as `category` (the original's); anything else as it is."""
    if not isinstance(value, dict) or not isinstance(value.get("entities"), list):
        return value
    renamed = [
        {ORIGINAL_LABEL if key == "label" else key: item for key, item in raw.items()}
        if isinstance(raw, dict) and "label" in raw and ORIGINAL_LABEL not in raw
        else raw
        for raw in value["entities"]
    ]
    return {**value, "entities": renamed}
