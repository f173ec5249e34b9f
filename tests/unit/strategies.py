"""Hypothesis strategies for the unit tests: JSON values, block definitions and values that fit them.

The definitions are built from the rules' own table (`BLOCK_TYPES`): every type the service knows
gets settings that are valid for it, and every value strategy draws only what its type accepts, so
a property can say "anything drawn here is accepted" and mean it.
"""

import os
import string
from datetime import UTC, timedelta, timezone
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

from queuedesk.api import entities
from queuedesk.api.blocks import BLOCK_TYPES
from queuedesk.api.models import Block

# Every property runs this many examples at most, so that the whole of tests/unit takes a few seconds
# and can run on every save (hypothesis keeps each failure it finds and tries it first next time).
# For a thorough run: QUEUEDESK_EXAMPLES=1000 pytest tests/unit
EXAMPLES = int(os.environ.get("QUEUEDESK_EXAMPLES", "30"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None)

# What JSON on the wire holds: orjson, which the service and the client read with, refuses integers
# beyond 64 bits, and no JSON carries NaN or infinities.
INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)  # no lone surrogates (not UTF-8)

json_scalars = st.none() | st.booleans() | INT64 | FINITE | TEXT
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)
# Lists and objects as block values: one level deep is enough for the value rules, and much cheaper.
json_lists = st.lists(json_scalars, max_size=3) | st.lists(st.lists(json_scalars, max_size=2), max_size=2)
json_objects = st.dictionaries(TEXT, json_scalars | json_lists, max_size=3)

# What people read in the app (names, placeholders): the service refuses control characters there.
SHOWN_TEXT = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=30)
ID_CHARACTERS = string.ascii_letters + string.digits + "_-"
block_ids = st.text(ID_CHARACTERS, min_size=1, max_size=64)
block_names = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(
    lambda name: bool(name.strip())
)
options = st.lists(
    st.fixed_dictionaries({"id": block_ids, "name": SHOWN_TEXT}),
    min_size=1,
    max_size=4,
    unique_by=lambda option: option["id"],
)

URL_TYPES = ("image", "link", "embed", "audio", "video", "pdf")
FREE_TYPES = ("form_sequence", "named_entity_recognition", "bounding_boxes")


def _optional(**entries: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=entries)


_PLACEHOLDER = {"placeholder": SHOWN_TEXT}
_REQUIRED = {"is_required": st.booleans()}

SETTINGS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "text": _optional(**_PLACEHOLDER, read_only=st.booleans(), **_REQUIRED),
    "single_selection": st.fixed_dictionaries({"options": options}, optional=_REQUIRED),
    "multiple_selection": st.fixed_dictionaries({"options": options}, optional=_REQUIRED),
    "binary": _optional(**_REQUIRED),
    "number": _optional(placeholder=SHOWN_TEXT | INT64 | FINITE, **_REQUIRED),
    "date": _optional(**_PLACEHOLDER, **_REQUIRED),
    "email": _optional(**_PLACEHOLDER, **_REQUIRED),
    "rich_text": _optional(format=st.sampled_from(["markdown", "html"]), read_only=st.booleans()),
    "list": _optional(subtype=TEXT),
    "text_sequence": st.builds(dict),  # a fresh dict each time (tests change what they draw)
    **dict.fromkeys(URL_TYPES, _optional(**_PLACEHOLDER)),
    **dict.fromkeys(FREE_TYPES, json_objects),  # kept as sent, never checked
}
assert set(SETTINGS) == set(BLOCK_TYPES), set(SETTINGS) ^ set(BLOCK_TYPES)


@st.composite
def block_definitions(draw: st.DrawFn, type_name: str | None = None) -> dict[str, Any]:
    """One valid definition (`{"id", "name", "type", "<type>": settings}`); settings may be left out
    when the type needs none."""
    kind = type_name or draw(st.sampled_from(sorted(BLOCK_TYPES)))
    raw: dict[str, Any] = {"id": draw(block_ids), "name": draw(block_names), "type": kind}
    settings_value = draw(SETTINGS[kind])
    if settings_value or BLOCK_TYPES[kind].required_settings or draw(st.booleans()):
        raw[kind] = settings_value
    return raw


def block_lists(min_size: int = 1, max_size: int = 3) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Valid definitions of one queue: ids unique."""
    return st.lists(block_definitions(), min_size=min_size, max_size=max_size, unique_by=lambda b: b["id"])


_labels = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=12)
_hostnames = st.builds(
    lambda first, rest: ".".join([first, *rest]),
    _labels,
    st.lists(st.text(string.ascii_lowercase, min_size=2, max_size=8), max_size=2),
)
_paths = st.lists(st.text(string.ascii_letters + string.digits + "-._~%", max_size=8), max_size=3).map(
    lambda parts: "".join("/" + p for p in parts)
)
http_urls = st.builds(
    lambda scheme, host, port, path: f"{scheme}://{host}{'' if port is None else f':{port}'}{path}",
    st.sampled_from(["http", "https"]),
    _hostnames,
    st.none() | st.integers(min_value=1, max_value=65535),
    _paths,
)
_zones = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))])
iso_dates = st.dates().map(lambda d: d.isoformat()) | st.datetimes(timezones=st.none() | _zones).map(
    lambda moment: moment.isoformat()
)
emails = st.builds(
    lambda local, domain, top: f"{local}@{domain}.{top}",
    st.text(string.ascii_lowercase + string.digits + "._+-", min_size=1, max_size=20),
    _labels,
    st.text(string.ascii_lowercase, min_size=2, max_size=8),
)


def values_for(block: Block) -> st.SearchStrategy[Any]:
    """Values the block's type accepts (never None: that is 'no value', accepted by every block)."""
    kind = block.type
    ids = [o["id"] for o in block.settings.get("options", [])]
    if kind in ("text", "rich_text"):
        return TEXT
    if kind == "single_selection":
        return st.sampled_from(ids)
    if kind == "multiple_selection":
        return st.lists(st.sampled_from(ids), unique=True, max_size=len(ids))
    if kind in URL_TYPES:
        return http_urls
    if kind == "binary":
        return st.booleans()
    if kind == "number":
        return INT64 | FINITE
    if kind == "date":
        return iso_dates
    if kind == "email":
        return emails
    if kind in ("list", "text_sequence"):
        return json_lists
    if kind == "named_entity_recognition":
        return named_entity_values(block)
    if kind in FREE_TYPES:
        return json_objects
    raise AssertionError(f"no values for {kind}")  # a new block type: give it a strategy


@st.composite
def named_entity_values(draw: st.DrawFn, block: Block) -> dict[str, Any]:
    """A text and entities on it: spans in order, not overlapping, each with one of the block's labels."""
    text = draw(TEXT)
    label_ids = [label_id for label_id, _ in entities.labels(block.settings)]
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if a < b]
    found = [{"start": a, "end": b, "label": draw(st.sampled_from(label_ids))} for a, b in spans]
    extra = draw(
        st.dictionaries(TEXT.filter(lambda k: k not in ("text", "entities")), json_scalars, max_size=2)
    )
    return {**extra, "text": text, "entities": found}


@st.composite
def blocks_with_values(
    draw: st.DrawFn, min_size: int = 1
) -> tuple[list[Block], dict[str, Any], list[dict[str, Any]]]:
    """A queue's blocks, a task's data with a fitting value (or None) for each, and the definitions."""
    raw = draw(block_lists(min_size=min_size))
    blocks = [Block.model_validate(b) for b in raw]
    data = {b.id: draw(st.none() | values_for(b)) for b in blocks}
    return blocks, data, raw
