"""The queue editor's model and the comparison of blocks: options as text, ids made from names,
problems placed at their block and field, retyping, and what a change does to tasks' values."""

from queuedesk.api.block_changes import compare_blocks, impact_lines
from queuedesk.api.blocks import Problem
from queuedesk.api.models import Block
from queuedesk.tui.admin.queue_draft import (
    BlockDraft,
    DraftProblem,
    block_problems,
    located,
    make_id,
    options_text,
    parse_options,
)

CATEGORY = Block.model_validate(
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        },
    }
)
NOTE = Block.model_validate({"id": "note", "name": "Note", "type": "text"})


def test_options_round_trip_as_lines_and_a_name_alone_makes_its_id() -> None:
    options = [{"id": "red", "name": "Red"}, {"id": "needs_review", "name": "Needs: review"}]
    assert parse_options(options_text(options)) == options
    assert parse_options("\nNeeds review\n  ok : Fine \n") == [
        {"id": "needs_review", "name": "Needs review"},
        {"id": "ok", "name": "Fine"},
    ]
    assert make_id("  Ça va? Oui!  ") == "a_va_oui"


def test_problems_are_placed_at_their_block_and_field() -> None:
    drafts = [BlockDraft.of(CATEGORY), BlockDraft("category", "", "single_selection", {"options": []})]
    found = block_problems(drafts)
    assert DraftProblem(1, "id", "block id 'category' is used twice") in found
    assert DraftProblem(1, "name", "must be a non-empty string") in found
    assert any(p.block == 1 and p.field == "options" for p in found)
    assert not [p for p in found if p.block == 0]
    assert located(Problem("conflict", "name", "taken")) == DraftProblem(None, "name", "taken")


def test_retyping_keeps_the_settings_the_new_type_has() -> None:
    draft = BlockDraft("b", "B", "text", {"placeholder": "x", "read_only": True, "is_required": True})
    draft.retype("number")
    assert draft.settings == {"placeholder": "x", "is_required": True}
    draft.retype("multiple_selection")
    assert draft.settings["is_required"] is True and len(draft.settings["options"]) == 2
    assert block_problems([draft]) == []


def test_new_blocks_get_free_ids() -> None:
    assert BlockDraft.new("text", {"text", "text_2"}).id == "text_3"
    assert block_problems([BlockDraft.new("single_selection", set())]) == []


def test_what_a_change_of_blocks_does_to_values() -> None:
    retyped = Block.model_validate({"id": "note", "name": "Note", "type": "number"})
    fewer = CATEGORY.model_copy(update={"single_selection": {"options": [{"id": "blue", "name": "Blue"}]}})
    changes = compare_blocks([CATEGORY, NOTE], [fewer, retyped, Block(id="new", name="New", type="text")])
    assert [b.id for b in changes.added] == ["new"] and not changes.removed
    assert [(a.type, b.type) for a, b in changes.retyped] == [("text", "number")]
    assert [(b.id, lost) for b, lost in changes.options_removed] == [("category", ["red"])]
    lines = impact_lines(changes)
    assert "changes type from text to number" in lines[0] and "loses option red" in lines[1]
    assert not compare_blocks([CATEGORY], [CATEGORY, NOTE]).touches_values  # only added: nothing to say
    assert compare_blocks([CATEGORY, NOTE], [NOTE]).removed == [CATEGORY]
