"""The queue editor's rules without a screen (`tui/admin/queue_edit.QueueEdit`): loading, what is
dirty, the problems shown, moving blocks, the status line and what saving sends."""

from queuedesk.api.models import QueueDetail
from queuedesk.tui.admin.queue_edit import QueueEdit

DETAIL = QueueDetail.model_validate(
    {
        "id": 7,
        "name": "Sorting",
        "created_at": "2026-12-01T10:00:00Z",
        "n_tasks": 3,
        "review_percent": 10,
        "description": "Sort them",
        "data": [
            {"id": "note", "name": "Note", "type": "text"},
            {
                "id": "colour",
                "name": "Colour",
                "type": "single_selection",
                "single_selection": {"options": [{"id": "red", "name": "Red"}], "is_required": True},
            },
        ],
    }
)


def loaded() -> QueueEdit:
    edit = QueueEdit(existing=True, reviews=True)
    edit.load(DETAIL, completed=2)
    edit.mark_saved()
    edit.check()
    return edit


def test_a_loaded_queue_is_clean_and_sends_nothing_unchanged() -> None:
    edit = loaded()
    assert (edit.tasks_held, edit.tasks_completed, edit.review_text) == (5, 2, "10")
    assert not edit.dirty and not edit.problems
    assert edit.changes() == {
        "name": None,
        "description": None,
        "blocks": None,
        "review_percent": None,
        "gold_percent": None,
    }
    assert edit.block_label(1) == "2. Colour · colour · single_selection *"
    assert (
        edit.status_line()
        == "2 block(s) · 5 task(s) hold values · 10% of completions reviewed · ctrl+s saves"
    )


def test_only_what_changed_is_sent_and_the_name_trimmed() -> None:
    edit = loaded()
    edit.name, edit.review_text = " Sorted ", "25"
    assert edit.dirty
    assert edit.changes() == {
        "name": "Sorted",
        "description": None,
        "blocks": None,
        "review_percent": 25,
        "gold_percent": None,
    }


def test_moving_and_removing_keep_the_block_selected_and_refuse_the_edges() -> None:
    edit = loaded()
    edit.selected = 0
    assert edit.move_block(1) and edit.selected == 1 and [d.id for d in edit.drafts] == ["colour", "note"]
    assert not edit.move_block(1) and edit.selected == 1
    assert edit.remove_block() and edit.selected == 0 and [d.id for d in edit.drafts] == ["colour"]
    assert edit.what_happens_to_tasks() is not None  # the note's values are no longer edited
    at = edit.add_block("text")
    assert (at, edit.drafts[at].id) == (1, "text")


def test_a_new_queue_names_its_missing_name_only_once_touched_and_previews_good_blocks() -> None:
    edit = QueueEdit()
    edit.mark_saved()
    edit.add_block("text")
    edit.add_block("text")
    edit.drafts[1].id = "text"  # the same id twice: the second block is left out of the preview
    edit.check()
    assert "name" not in edit.queue_problems_shown()
    edit.name_touched = True
    assert "a queue needs a name" in edit.queue_problems_shown()["name"]
    raw, total = edit.previewed()
    assert ([b["id"] for b in raw], total) == (["text"], 2)
    assert edit.block_label(1).startswith("2. ✗ ")
    assert edit.creation()["review_percent"] is None  # the server does not review: not sent


def test_consensus_is_checked_sent_with_a_new_queue_and_apart_when_changed() -> None:
    from queuedesk.tui.admin.consensus_draft import ConsensusDraft

    edit = QueueEdit(consensus_offered=True)
    edit.mark_saved()
    edit.add_block("single_selection")
    edit.consensus = ConsensusDraft(on=True, answers="11")
    assert [p.field for p in edit.check()] == ["name", "consensus.answers"]
    edit.consensus.answers = "3"
    assert edit.creation()["consensus"] == {
        "answers": 3,
        "max_answers": 3,
        "agreement": 0.5,
        "blocks": ["single_selection"],
    }
    changed = loaded()
    changed.consensus_offered = True
    assert not changed.consensus_changed()
    changed.consensus.on = True
    assert changed.consensus_changed() and "consensus of 2 answers" in changed.status_line()
    changed.saved_but_consensus()  # the rest was saved, the consensus refused: still to save
    assert changed.consensus_changed() and changed.changes()["name"] is None
