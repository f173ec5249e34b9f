"""The named-entity value: its rules, its tokens and how marking changes it."""

from queuedesk.api import blocks, entities
from queuedesk.api.entities import Entity

LABELS = {"labels": ["PER", {"id": "ORG", "name": "Organization"}]}
TEXT = "Alice met Bob at ACME, Inc."


def value(*found: tuple[int, int, str]) -> dict[str, object]:
    return {"text": TEXT, "entities": [{"start": a, "end": b, "label": c} for a, b, c in found]}


def test_labels_read_strings_and_objects_and_default_to_one() -> None:
    assert entities.labels(LABELS) == [("PER", "PER"), ("ORG", "Organization")]
    assert entities.labels({}) == [("entity", "entity")]
    assert entities.labels({"labels": [3, {"name": "no id"}]}) == [("entity", "entity")]


def test_tokens_are_words_and_punctuation_with_inner_apostrophes_kept() -> None:
    text = "O'Neil's co-op, ok?"
    assert [text[a:b] for a, b in entities.tokens(text)] == ["O'Neil's", "co-op", ",", "ok", "?"]
    assert entities.tokens("   ") == []


def test_a_value_the_editor_makes_passes_the_rule_the_server_uses() -> None:
    made = entities.with_entity({"text": TEXT, "source": "crm"}, Entity(0, 5, "PER"))
    made = entities.with_entity(made, Entity(17, 26, "ORG"))
    assert made == {
        "text": TEXT,
        "source": "crm",
        "entities": [{"start": 0, "end": 5, "label": "PER"}, {"start": 17, "end": 26, "label": "ORG"}],
    }
    assert blocks.block_type("named_entity_recognition").check_value(made, LABELS) is None


def test_marking_over_an_entity_replaces_it_and_unmarking_takes_what_it_touches() -> None:
    marked = entities.with_entity(value((0, 5, "PER"), (10, 13, "PER")), Entity(4, 11, "ORG"))
    assert entities.entities_of(marked) == [Entity(4, 11, "ORG")]
    cleared = entities.without_entities(value((0, 5, "PER"), (10, 13, "PER")), 12, 13)
    assert entities.entities_of(cleared) == [Entity(0, 5, "PER")]


def test_the_rule_refuses_spans_outside_the_text_overlaps_and_unknown_labels() -> None:
    check = entities.check
    assert check(value((0, 5, "PER")), LABELS) is None
    assert check({"text": TEXT}, LABELS) is None
    assert check({}, {}) is None
    assert check([], {}) == "must be an object"
    assert check({"text": 5}, {}) == "'text' must be a string"
    assert check({"text": TEXT, "entities": {}}, {}) == "'entities' must be a list"
    assert "not a span" in (check(value((0, 99, "PER")), LABELS) or "")
    assert "not a span" in (check(value((5, 5, "PER")), LABELS) or "")
    assert "whole numbers" in (check(value((True, 3, "PER")), LABELS) or "")
    assert "whole numbers" in (check(value((0.0, 3, "PER")), LABELS) or "")
    assert check(value((0, 5, "PER"), (3, 8, "ORG")), LABELS) == "entities must not overlap"
    assert "not one of the block's labels (ORG, PER)" in (check(value((0, 5, "LOC")), LABELS) or "")
    assert check(value((0, 5, "anything")), {}) is None  # no labels listed: any string
    assert "label" in (check({"text": TEXT, "entities": [{"start": 0, "end": 1}]}, {}) or "")
