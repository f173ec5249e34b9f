"""What the original Task Queue Service refuses, or half does, on a task create: one check for all.

The command line (`tasks create`, `import`), the Python client (`create_task`) and the terminal
app's new-task form call `refusals` before sending a create to a server without QueueDesk's
extensions. What the original does with a block left out, observed on version 1.0.51 (see
docs/original-service.md):

| block type                      | left out (no value)                                         |
|---------------------------------|-------------------------------------------------------------|
| list, named_entity_recognition  | the task is saved, then the answer is 500 (a retry doubles) |
| bounding_boxes                  | 500, nothing saved                                          |
| multiple_selection, text_sequence, every other type | 201                                     |

A named-entity value without `text` (`{}`) is as bad as none: the task is saved, then 500. Checked
against a real 1.0.51 on 2026-11-25 (docs/original-service.md says how).

A block whose id the original keeps as a JSON number (`{"id": 7}`) gets no value from a create:
the original looks the value up by the number while JSON keys are strings, so it stores null.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from queuedesk.api import entities
from queuedesk.api.blocks import Problem, task_data_problems, value_problem
from queuedesk.api.csv_values import OBJECT_TYPES
from queuedesk.api.models import Block

SAVED_THEN_FAILS = frozenset({"list", "named_entity_recognition"})
FAILS_UNSAVED = frozenset({"bounding_boxes"})
NEEDS_A_VALUE = SAVED_THEN_FAILS | FAILS_UNSAVED


@dataclass(frozen=True)
class Refusal:
    """One reason the original would fail a create: the block at fault and what to do."""

    block_id: str
    message: str

    def __str__(self) -> str:
        return f"{self.block_id}: {self.message}"


def refusals(blocks: Iterable[Block], data: Mapping[str, Any]) -> list[Refusal]:
    """Why the original would fail (or lose values) on a create with this data; [] when it would not."""
    found: list[Refusal] = []
    for block in blocks:
        value = data.get(block.id)
        if is_number_id(block):
            if value is not None:
                found.append(
                    Refusal(
                        block.id,
                        f"this server keeps the block's id as a number ({block.id}) and stores no value "
                        "for it from a create: leave it out, or give the block a text id in a queue of "
                        "its own",
                    )
                )
            continue
        said = _unservable(block, value)
        if said is not None:
            found.append(Refusal(block.id, said))
            continue
        if block.type == "named_entity_recognition" and isinstance(value, dict) and "text" not in value:
            found.append(
                Refusal(
                    block.id,
                    "a named_entity_recognition value needs 'text' on this server "
                    f"({_none(block)} for none): without it the task is saved and then fails (500)",
                )
            )
            continue
        if value is not None:
            continue
        if block.type in SAVED_THEN_FAILS:
            found.append(
                Refusal(
                    block.id,
                    f"a {block.type} block needs a value on this server ({_none(block)} for none): without "
                    "one it saves the task and then fails (500)",
                )
            )
        elif block.type in FAILS_UNSAVED:
            found.append(
                Refusal(
                    block.id,
                    f"a {block.type} block needs a value on this server ({_none(block)} for none): without "
                    "one it fails (500)",
                )
            )
    return found


def _unservable(block: Block, value: Any) -> str | None:
    """What in a value the original refuses, or stores and then cannot serve back."""
    if block.type == "list" and isinstance(value, list):
        odd = [item for item in value if not _scalar(item)]
        if odd:
            return (
                f"this server takes only strings and numbers in a list, not {_shown(odd[0])}: it stores "
                "the task, and once it is completed every page of completed tasks holding it fails "
                "(500), for good"
            )
    if block.type == "named_entity_recognition":
        return entities.original_check(value)
    return None


def _scalar(item: Any) -> bool:
    return isinstance(item, str | int | float) and not isinstance(item, bool)


def _shown(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 40 else text[:37] + "..."


def value_rule(block: Block, value: Any) -> str | None:
    """A value's check on the original: its own named-entity format (`refusals` says what is wrong
    in one), QueueDesk's rule for every other block."""
    if block.type == "named_entity_recognition":
        return None
    return value_problem(block, value)


def task_problems(blocks: list[Block], data: Any) -> list[Problem]:
    """Everything a create to the original would be refused for, fail on or lose: keys that are no
    block (it drops them), values that do not fit (an option it does not offer is stored as it is),
    and `refusals`. [] when the create is safe to send."""
    found = list(task_data_problems(blocks, data, check_value=value_rule))
    if found or not isinstance(data, Mapping):
        return found
    return [Problem("original_refuses", f"data.{r.block_id}", r.message) for r in refusals(blocks, data)]


def in_original_form(blocks: Iterable[Block], data: Mapping[str, Any]) -> dict[str, Any]:
    """The data as the original takes it: entities of named-entity blocks with `category`, not
    QueueDesk's `label` (the original answers 400 to `label`)."""
    kinds = {block.id: block.type for block in blocks}
    return {
        key: entities.in_original_form(value) if kinds.get(key) == "named_entity_recognition" else value
        for key, value in data.items()
    }


def is_number_id(block: Block) -> bool:
    """True for a block the server named by a JSON number (the client reads it as a string)."""
    return block.number_id


def _none(block: Block) -> str:
    """The empty value the original takes for the block (a `{}` named-entity value fails there too)."""
    if block.type == "named_entity_recognition":
        return '{"text": "", "entities": []}'
    return "{}" if block.type in OBJECT_TYPES else "[]"
