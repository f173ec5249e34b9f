"""A queue's gold share as the editor holds it (`tui/admin/gold_draft.py`, `admin/queue_edit.py`):
what it means in words, what is wrong with it, and when it is sent (B22)."""

import pytest

from queuedesk.api.models import QueueDetail
from queuedesk.tui.admin.gold_draft import GoldDraft, about_one_in, gold_percent
from queuedesk.tui.admin.queue_edit import QueueEdit


@pytest.mark.parametrize(
    ("typed", "value"),
    [("0", 0), ("", 0), (" 10 ", 10), ("50", 50), ("51", None), ("100", None), ("x", None), ("-1", None)],
)
def test_the_share_is_a_whole_number_from_0_to_50(typed: str, value: int | None) -> None:
    assert gold_percent(typed) == value


@pytest.mark.parametrize(
    ("percent", "said"),
    [
        (10, "about 1 in 10"),
        (5, "about 1 in 20"),
        (50, "1 in 2"),
        (33, "about 1 in 3"),
        (1, "about 1 in 100"),
        (40, "about 40 in 100"),
        (15, "about 1 in 7"),
    ],
)
def test_the_share_said_as_one_in_so_many(percent: int, said: str) -> None:
    assert about_one_in(percent) == said


def test_the_meaning_in_words() -> None:
    assert GoldDraft("0", offered=True).meaning() == (
        "No gold tasks are given: workers get only the queue's ordinary work."
    )
    assert GoldDraft("10", offered=True).meaning() == (
        "About 1 in 10 tasks a worker is given is a gold task with a known answer (10%), while gold "
        "tasks they have not answered remain; their answers measure each worker's accuracy, and gold "
        "tasks are never completed."
    )
    assert "fix the share marked in red" in GoldDraft("60", offered=True).meaning()


def test_a_bad_share_is_a_problem_at_its_field_only_where_the_server_has_gold() -> None:
    edit = QueueEdit(name="Q")
    edit.gold.text = "75"
    assert all(p.field != "gold" for p in edit.check())  # no B22: the share is neither shown nor checked
    edit.gold.offered = True
    (problem,) = [p for p in edit.check() if p.field == "gold"]
    assert problem.block is None and "from 0 to 50" in problem.message
    assert edit.queue_problems_shown()["gold"] == problem.message


def detail(gold_percent: int) -> QueueDetail:
    return QueueDetail.model_validate(
        {
            "id": 7,
            "name": "Q",
            "created_at": "2026-12-07T00:00:00Z",
            "n_tasks": 0,
            "gold_percent": gold_percent,
        }
    )


def test_the_share_is_loaded_said_and_sent_with_the_rest_only_when_changed() -> None:
    edit = QueueEdit(existing=True)
    edit.gold.offered = True
    edit.load(detail(10), completed=0)
    edit.mark_saved()
    assert edit.gold.text == "10" and not edit.gold_changed() and not edit.dirty
    assert "10% gold" in edit.status_line()
    edit.gold.text = "010"  # the same number typed another way is no change
    assert not edit.gold_changed()
    edit.gold.text = "20"
    assert edit.gold_changed() and edit.dirty
    changes = edit.changes()  # B13 with the share, in the same request as the rest
    assert changes.pop("gold_percent") == 20 and all(v is None for v in changes.values())
    edit.consensus_offered = True
    edit.saved_but_consensus()  # the share reached the server with the rest
    assert not edit.gold_changed() and edit.changes()["gold_percent"] is None


def test_a_new_queue_sends_a_share_only_when_one_is_typed() -> None:
    edit = QueueEdit(name="Q")
    edit.gold.offered = True
    edit.mark_saved()
    assert not edit.gold_changed()
    edit.gold.text = "5"
    assert edit.gold_changed() and edit.creation()["gold_percent"] == 5
    edit.gold.text = "0"
    assert edit.creation()["gold_percent"] is None  # 0, the default: not sent
    edit.gold.offered = False
    edit.gold.text = "5"
    assert edit.creation()["gold_percent"] is None  # a server without B22 is sent none
