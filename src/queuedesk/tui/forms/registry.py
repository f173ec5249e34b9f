"""Which editor shows which block type. A new block type: one module, one line in `EDITORS`."""

import hashlib
import re
from typing import Any

from queuedesk.api.models import Block
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.binary import BinaryEditor
from queuedesk.tui.forms.date import DateEditor
from queuedesk.tui.forms.email import EmailEditor
from queuedesk.tui.forms.fallback import FallbackEditor
from queuedesk.tui.forms.image import ImageEditor
from queuedesk.tui.forms.link import LinkEditor
from queuedesk.tui.forms.list_items import ListEditor, SequenceEditor
from queuedesk.tui.forms.multiple_selection import MultipleSelectionEditor
from queuedesk.tui.forms.named_entities import NamedEntityEditor
from queuedesk.tui.forms.number import NumberEditor
from queuedesk.tui.forms.single_selection import SingleSelectionEditor
from queuedesk.tui.forms.text import TextEditor

EDITORS: dict[str, type[BlockEditor]] = {
    "text": TextEditor,
    "single_selection": SingleSelectionEditor,
    "multiple_selection": MultipleSelectionEditor,
    "binary": BinaryEditor,
    "number": NumberEditor,
    "date": DateEditor,
    "email": EmailEditor,
    "image": ImageEditor,
    "link": LinkEditor,
    "embed": LinkEditor,
    "audio": LinkEditor,
    "video": LinkEditor,
    "pdf": LinkEditor,
    "list": ListEditor,
    "text_sequence": ListEditor,
    "form_sequence": SequenceEditor,
    "named_entity_recognition": NamedEntityEditor,
}
"""Every other type (rich_text, bounding boxes, unknown) gets `FallbackEditor`."""
CREATE_EDITORS: dict[str, type[BlockEditor]] = {
    name: FallbackEditor for name in ("named_entity_recognition", "list", "text_sequence")
}
"""Where a new task's form differs: it is typed as JSON, as an integration sends it (the text to
mark, a list of any values)."""


def editor_class(type_name: str) -> type[BlockEditor]:
    return EDITORS.get(type_name, FallbackEditor)


def editor_for(block: Block, value: Any, *, editable: bool = True, creating: bool = False) -> BlockEditor:
    """The editor of `block` showing `value`; read-only when not `editable`; `creating`: in a new
    task's form."""
    kind = (CREATE_EDITORS.get(block.type) if creating else None) or editor_class(block.type)
    return kind(block, value, editable=editable, id=editor_id(block))


def filled_by_worker(block: Block) -> bool:
    """In the work screen, is `block` for the worker to fill (else it is the task's content)?"""
    return editor_class(block.type).filled_by_worker(block)


def editor_id(block: Block) -> str:
    """The DOM id of a block's editor: `block-<id>` (ids from other servers made safe)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", block.id)
    if safe != block.id:
        safe += "-" + hashlib.sha1(block.id.encode()).hexdigest()[:8]
    return f"block-{safe}"
