"""A disputed task in review without a screen (`tui/review/dispute_rules.py`): B21's equality, the
most common values (a tie to the earliest answer), an answer taken whole, the answers side by side."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from queuedesk.api.models import Block
from queuedesk.tui.review.dispute_rules import keys_said, prefilled, side_by_side, taken, value_key

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
OPTIONS = [{"id": i, "name": i.title()} for i in ("red", "blue", "green")]
BLOCKS = [
    Block.model_validate({"id": "text", "name": "Text", "type": "text", "text": {"read_only": True}}),
    Block.model_validate(
        {
            "id": "colour",
            "name": "Colour",
            "type": "single_selection",
            "single_selection": {"options": OPTIONS},
        }
    ),
    Block.model_validate(
        {
            "id": "tags",
            "name": "Tags",
            "type": "multiple_selection",
            "multiple_selection": {"options": OPTIONS},
        }
    ),
    Block.model_validate({"id": "note", "name": "Note", "type": "text"}),
    Block.model_validate({"id": "photo", "name": "Photo", "type": "image"}),
]


@dataclass
class Said:
    worker: str
    data: dict[str, Any]
    minutes: int
    name: str | None = None

    @property
    def answered_at(self) -> datetime:
        return T0 + timedelta(minutes=self.minutes)


def test_equality_as_the_server_counts_it() -> None:
    assert value_key("number", 3) == value_key("number", 3.0)
    assert value_key("multiple_selection", ["a", "b"]) == value_key("multiple_selection", ["b", "a"])
    assert value_key("date", "2026-12-07T10:00:00Z") == value_key("date", "2026-12-07T11:00:00+01:00")
    assert value_key("date", "2026-12-07") != value_key("date", "2026-12-07T00:00:00Z")
    assert value_key("binary", True) != value_key("number", 1) and value_key("text", None) != value_key(
        "text", ""
    )


def test_the_most_common_value_per_block_a_tie_to_the_earliest_answer() -> None:
    answers = [  # given out of order: carol answered last
        Said("carol@x", {"colour": "green", "tags": ["red"], "note": "c"}, 3),
        Said("alice@x", {"colour": "red", "tags": ["red", "blue"], "note": "a"}, 1),
        Said("bob@x", {"colour": "blue", "tags": ["blue", "red"], "note": None}, 2),
    ]
    values = prefilled(BLOCKS, answers, {"text": "the input", "photo": "https://x/p.png"})
    assert values == {
        "text": "the input",  # read-only: the task's value
        "colour": "red",  # one each: alice's, the earliest
        "tags": ["red", "blue"],  # two hold the same set, in alice's order
        "note": "a",
        "photo": None,  # no answer holds it
    }
    assert taken(BLOCKS, answers[2], {"text": "the input"})["colour"] == "blue"
    assert taken(BLOCKS, answers[2], {"text": "the input"})["text"] == "the input"


def test_side_by_side_names_who_answered_what_with_keys_in_answer_order() -> None:
    answers = [
        Said("bob@x", {"colour": "blue", "note": "b"}, 2, name="Bob"),
        Said("alice@x", {"colour": "red", "note": "a"}, 1),
    ]
    table = side_by_side(BLOCKS, answers, {"colour": 0.5})
    assert table.rows == ["Colour (50%)", "Tags", "Note"]  # compared first; read-only and inputs left out
    (a, b) = table.columns
    assert (a.key, a.who, a.values, a.agrees) == ("A", "alice@x", ["Red", "—", "a"], [True, True, True])
    assert (b.key, b.who, b.values, b.agrees) == ("B", "Bob", ["Blue", "—", "b"], [False, True, False])
    assert keys_said(3) == "A, B or C takes an answer whole" and keys_said(1) == "A takes an answer whole"


def test_on_a_dispute_the_answer_keys_act_and_accept_and_redo_do_not() -> None:
    from queuedesk.tui.review.review_rules import keys_line, review_applies, verdict_values
    from queuedesk.tui.work.task_rules import TaskRules
    from tests.unit.test_review_rules import View

    rules, out_of_fields = TaskRules(), View()

    def applies(
        action: str,
        params: tuple[object, ...],
        view: View = out_of_fields,
        *,
        editing: bool = False,
        answers: int = 3,
    ) -> bool:
        return review_applies(rules, action, params, view, editing=editing, answers=answers)

    assert applies("take_answer", ("C",)) and not applies("take_answer", ("D",))  # three answers
    assert not applies("take_answer", ("A",), answers=0)  # no dispute: no answers to take
    assert not applies("verdict", ("accept",)) and not applies("verdict", ("redo",))
    assert applies("note", ()) and applies("edit", ())
    assert not applies("take_answer", ("A",), View(focus="text"), editing=True)  # a capital is text there
    assert applies("take_answer", ("A",), View(), editing=True)  # out of the fields it acts
    assert verdict_values("decide", {"colour": "red"}, {"colour": None}) == {"colour": "red"}
    assert keys_line(editing=False, in_a_field=False, answers=2) == (
        "Disputed: A or B takes an answer whole · e edits · enter decides · s skips"
    )
