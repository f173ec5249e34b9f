"""A queue's consensus as the editor holds it (`tui/admin/consensus_draft.py`): what it means in
words, what is wrong with it and what is sent (B21)."""

from fractions import Fraction

import pytest

from queuedesk.tui.admin.consensus_draft import ConsensusDraft, parse_agreement
from queuedesk.tui.admin.queue_draft import BlockDraft

OPTIONS = {"options": [{"id": "a", "name": "A"}]}
DRAFTS = [
    BlockDraft("text", "Text", "text"),
    BlockDraft("category", "Category", "single_selection", dict(OPTIONS)),
    BlockDraft("flags", "Flags", "multiple_selection", {**OPTIONS, "read_only": True}),
    BlockDraft("count", "Count", "number"),
]


def test_off_sends_null_and_says_one_answer_completes() -> None:
    draft = ConsensusDraft()
    assert (draft.body(DRAFTS), draft.problems(DRAFTS), draft.state()) == (None, [], None)
    assert draft.meaning(DRAFTS) == "No consensus: one answer completes a task."


def test_two_answers_a_third_when_they_disagree_in_words_and_as_sent() -> None:
    draft = ConsensusDraft(on=True, answers="2", max_answers="3")
    assert draft.meaning(DRAFTS) == (  # the read-only selection is not compared by default
        "Each task is answered by 2 workers, a third when they disagree; a task the third cannot settle "
        "goes to review. They agree when one value of Category is given by at least half of the answers, "
        "and more than any other value."
    )
    assert draft.body(DRAFTS) == {"answers": 2, "max_answers": 3, "agreement": 0.5, "blocks": ["category"]}


def test_more_answers_and_a_share_and_chosen_blocks() -> None:
    draft = ConsensusDraft(
        on=True, answers="3", max_answers="5", agreement="2/3", blocks=["count", "category"]
    )
    assert draft.meaning(DRAFTS) == (
        "Each task is answered by 3 workers, up to 5 while they disagree; a task 5 answers cannot settle "
        "goes to review. They agree when, on each of Count and Category, one value is given by at least "
        "67% of the answers."
    )
    body = draft.body(DRAFTS)
    assert body is not None and body["agreement"] == 2 / 3 and body["blocks"] == ["count", "category"]
    assert (
        ConsensusDraft(on=True, answers="2")
        .meaning(DRAFTS)
        .startswith("Each task is answered by 2 workers; a task they do not agree on goes to review.")
    )


@pytest.mark.parametrize(
    ("draft", "field", "words"),
    [
        (ConsensusDraft(on=True, answers="1"), "consensus.answers", "from 2 to 10"),
        (ConsensusDraft(on=True, answers="11"), "consensus.answers", "from 2 to 10"),
        (
            ConsensusDraft(on=True, answers="3", max_answers="2"),
            "consensus.max_answers",
            "from 3 (the answers)",
        ),
        (ConsensusDraft(on=True, agreement="0.4"), "consensus.agreement", "from 0.5 to 1"),
        (ConsensusDraft(on=True, agreement="120%"), "consensus.agreement", "from 0.5 to 1"),
        (ConsensusDraft(on=True, agreement="half"), "consensus.agreement", "like 0.6, 60% or 2/3"),
        (ConsensusDraft(on=True, blocks=[]), "consensus.blocks", "choose at least one block"),
    ],
)
def test_bad_values_are_named_at_their_field(draft: ConsensusDraft, field: str, words: str) -> None:
    (problem,) = draft.problems(DRAFTS)
    assert problem.field == field and words in problem.message


def test_nothing_comparable_says_what_to_add() -> None:
    (problem,) = ConsensusDraft(on=True).problems(DRAFTS[:1])
    assert "add a selection, yes/no, number or date block" in problem.message


def test_agreement_as_share_percent_or_fraction_and_read_back() -> None:
    assert parse_agreement("0.6") == parse_agreement("60 %") == Fraction(3, 5)
    assert parse_agreement("2/3") == Fraction(2, 3) and parse_agreement("1/0") is None
    held = {"answers": 3, "max_answers": 3, "agreement": 2 / 3, "blocks": ["category"]}
    draft = ConsensusDraft.of(held)
    assert (draft.answers, draft.max_answers, draft.agreement, draft.blocks) == ("3", "", "2/3", ["category"])
    assert ConsensusDraft.of({"answers": 2, "max_answers": 4, "agreement": 0.5}).max_answers == "4"
    assert ConsensusDraft.of(None) == ConsensusDraft()
