"""B23's pure rules: what a suggestion may be (`api/suggestion_rules.py`), the outcome and the per
agent tally the server keeps (`server/rules/suggested.py`, `server/store/suggestions.py`), and how the
app words and compares a suggested value (`tui/forms/suggested.py`)."""

from datetime import UTC, datetime
from typing import Any

import pytest

from queuedesk.api.models import Block, Suggestion
from queuedesk.api.suggestion_rules import AGENT_MAX, fills, lowest_score, normalized, suggestion_problems
from queuedesk.server.rules.suggested import outcome
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.suggestions import tally
from queuedesk.tui.forms.suggested import mark, quoted, same, score_words

BLOCKS = [
    Block.model_validate(raw)
    for raw in (
        {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
        {"id": "photo", "name": "Photo", "type": "image", "image": {}},
        {"id": "note", "name": "Note", "type": "text", "text": {}},
        {
            "id": "tags",
            "name": "Tags",
            "type": "multiple_selection",
            "multiple_selection": {"options": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
        },
        {"id": "size", "name": "Size", "type": "number", "number": {}},
        {"id": "day", "name": "Day", "type": "date", "date": {}},
    )
]


def fields(raw: Any) -> list[tuple[str, str | None]]:
    return [(p.code, p.field) for p in suggestion_problems(BLOCKS, raw)]


def test_only_blocks_a_worker_fills_take_suggestions() -> None:
    assert [b.id for b in BLOCKS if fills(b)] == ["note", "tags", "size", "day"]
    assert fields({"message": {"value": "x", "agent": "m"}}) == [("invalid_value", "suggestions.message")]
    assert fields({"photo": {"value": "https://a.test/p.png", "agent": "m"}}) == [
        ("invalid_value", "suggestions.photo")
    ]
    assert fields({"nope": {"value": 1, "agent": "m"}}) == [("unknown_field", "suggestions.nope")]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"value": "fine", "agent": "m"}, []),
        ({"value": "fine", "agent": "m", "score": 0}, []),
        ({"value": "fine", "agent": "m" * AGENT_MAX, "score": 1}, []),
        ({"value": "fine", "agent": "m" * (AGENT_MAX + 1)}, [("invalid_value", "suggestions.note.agent")]),
        ({"value": "fine", "agent": "  "}, [("invalid_value", "suggestions.note.agent")]),
        ({"value": "fine", "agent": 3}, [("invalid_value", "suggestions.note.agent")]),
        ({"value": "fine", "agent": "a\x07b"}, [("invalid_value", "suggestions.note.agent")]),
        ({"value": "fine", "agent": "m", "score": -0.01}, [("invalid_value", "suggestions.note.score")]),
        ({"value": "fine", "agent": "m", "score": False}, [("invalid_value", "suggestions.note.score")]),
        ({"value": "fine", "agent": "m", "score": "0.5"}, [("invalid_value", "suggestions.note.score")]),
        ({"agent": "m"}, [("invalid_value", "suggestions.note.value")]),
        ({"value": 5, "agent": "m"}, [("invalid_value", "suggestions.note.value")]),
        ({"value": "x", "agent": "m", "why": 1}, [("unknown_field", "suggestions.note.why")]),
    ],
)
def test_each_suggestion_is_checked_on_its_own_fields(item: dict[str, Any], expected: list) -> None:
    assert fields({"note": item}) == expected


def test_none_and_the_stored_form() -> None:
    assert fields(None) == [] and normalized(None) is None and normalized({}) is None
    assert fields([1]) == [("invalid_value", "suggestions")]
    offered = {"note": {"value": "x", "agent": "m"}, "size": {"value": 2, "agent": "r", "score": 0.2}}
    assert normalized(offered) == {
        "note": {"value": "x", "agent": "m", "score": None},
        "size": {"value": 2, "agent": "r", "score": 0.2},
    }
    assert lowest_score(offered) == 0.2
    assert lowest_score({"note": {"value": "x", "agent": "m", "score": None}}) is None
    assert lowest_score(None) is None


def queue() -> QueueRecord:
    return QueueRecord(1, 1, "Q", "", BLOCKS, [], datetime.now(UTC), None)


def test_the_outcome_uses_b21_equality_and_the_tally_counts_per_agent() -> None:
    offered = {
        "tags": {"value": ["b", "a"], "agent": "m", "score": 0.9},
        "size": {"value": 3, "agent": "m", "score": None},
        "day": {"value": "2026-01-02", "agent": "r", "score": 0.4},
        "note": {"value": "keep", "agent": "r", "score": 0.4},
    }
    final = {"tags": ["a", "b"], "size": 3.0, "day": "2026-01-02", "note": "other"}
    found = outcome(queue(), offered, final)
    assert found == {"tags": "accepted", "size": "accepted", "day": "accepted", "note": "changed"}
    assert tally(offered, found) == {"m": (2, 2), "r": (2, 1)}
    assert tally(None, None) == {}


def test_the_app_words_and_compares_a_suggestion() -> None:
    offered = Suggestion(value="billing", agent="triage \x1b[2Jv3", score=0.936)
    assert score_words(0.936) == "94%" and score_words(None) == ""
    said = mark(offered, changed=False)
    assert said.startswith("✦ suggested by triage") and said.endswith("· 94%") and "\x1b" not in said
    changed = mark(offered, changed=True, shown_as="Billing")
    assert changed.startswith("✎ changed · suggested “Billing” · ctrl+r restores")
    assert quoted(["a", "b"]) == "a, b" and quoted(True) == "yes" and quoted("a\n b") == "a b"
    assert quoted("x" * 60).endswith("…") and len(quoted("x" * 60)) == 40
    assert same(["a", "b"], ["b", "a"]) and not same(1, True) and same("x", "x") and not same(3, 3.0)


def test_the_demo_model_is_right_most_of_the_time_and_less_sure_when_wrong() -> None:
    import random
    from datetime import date

    from queuedesk.demo.content import TRIAGE, expected, new_task
    from queuedesk.demo.suggestions_start import suggestions_for

    rng = random.Random(23)
    right, scores = 0, {True: [], False: []}
    for _ in range(300):
        data = new_task(TRIAGE, rng, date(2026, 12, 8), "")
        found = suggestions_for(data, rng)
        assert not list(suggestion_problems(TRIAGE_BLOCKS, found))
        hit = found["team"]["value"] == expected(TRIAGE, data)["team"]
        right += hit
        scores[hit].append(found["team"]["score"])
    assert 0.75 <= right / 300 <= 0.95
    assert max(scores[False]) < min(scores[True])


TRIAGE_BLOCKS = [
    Block.model_validate(raw)
    for raw in (
        {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
        {
            "id": "team",
            "name": "Team",
            "type": "single_selection",
            "single_selection": {
                "options": [{"id": t, "name": t} for t in ("billing", "tech", "sales", "spam")]
            },
        },
        {"id": "note", "name": "Note", "type": "text", "text": {}},
    )
]
