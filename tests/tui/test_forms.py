"""TaskForm and the block editors, driven by keys in a small app (Pilot), plus SVG snapshots."""

import io
from typing import Any, ClassVar

import pytest
from PIL import Image, ImageDraw
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static, TextArea

from queuedesk.api.blocks import validate_task_data
from queuedesk.api.models import Block
from queuedesk.tui.forms import FORMS_CSS, BlockEditor, TaskForm, editor_for
from queuedesk.tui.forms.binary import BinaryEditor
from queuedesk.tui.forms.fallback import FallbackEditor
from queuedesk.tui.forms.multiple_selection import MultipleSelectionEditor
from queuedesk.tui.forms.options import OptionItem, OptionsEditor
from queuedesk.tui.forms.single_selection import SingleSelectionEditor
from queuedesk.tui.forms.text import TextEditor
from queuedesk.tui.widgets.image_view import ImageView
from queuedesk.tui.work.image_fetch import ImageFetcher
from tests.support import CORE_BLOCKS as STANDARD_BLOCKS
from tests.support.pilot import settle, stop_blinking

PHOTO = "https://example.com/p.png"


def picture_png() -> bytes:
    """A small picture that reads well in half cells: a sun over a field."""
    image = Image.new("RGB", (160, 100), (30, 60, 120))
    draw = ImageDraw.Draw(image)
    draw.ellipse((40, 20, 120, 90), fill=(240, 200, 40))
    draw.rectangle((0, 80, 160, 100), fill=(40, 160, 60))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class StaticFetcher(ImageFetcher):
    """Answers every address with the same picture, without a network."""

    async def fetch(self, url: str) -> bytes:
        return picture_png()


def options(n: int) -> list[dict[str, str]]:
    return [{"id": f"o{i}", "name": f"Option {i}"} for i in range(1, n + 1)]


_STANDARD = {block["id"]: block for block in STANDARD_BLOCKS}
# The suite's standard queue (its photo's placeholder is PHOTO), after a read-only question.
CORE_BLOCKS: list[dict[str, Any]] = [
    {"id": "question", "name": "Question", "type": "text", "text": {"read_only": True}},
    *(_STANDARD[block_id] for block_id in ("photo", "paragraph", "category")),
]
CORE_DATA = {"question": "Which colour is the sky in this photo?", "photo": PHOTO}

EVERY_BLOCK: list[dict[str, Any]] = [
    *CORE_BLOCKS,
    {
        "id": "tags",
        "name": "Tags",
        "type": "multiple_selection",
        "multiple_selection": {"options": [{"id": "cat", "name": "Cat"}, {"id": "dog", "name": "Dog"}]},
    },
    {"id": "many", "name": "Many", "type": "single_selection", "single_selection": {"options": options(12)}},
    {"id": "ok", "name": "Looks fine", "type": "binary", "binary": {"is_required": True}},
    {"id": "count", "name": "Count", "type": "number", "number": {"placeholder": "3"}},
    {"id": "when", "name": "When", "type": "date", "date": {}},
    {"id": "mail", "name": "Contact", "type": "email", "email": {}},
    {"id": "source", "name": "Source", "type": "link", "link": {}},
    {"id": "clip", "name": "Clip", "type": "video", "video": {}},
    {"id": "notes", "name": "Notes", "type": "rich_text", "rich_text": {"format": "markdown"}},
    {"id": "items", "name": "Items", "type": "list", "list": {"subtype": "list"}},
    {"id": "steps", "name": "Steps", "type": "text_sequence", "text_sequence": {}},
    {"id": "boxes", "name": "Boxes", "type": "bounding_boxes", "bounding_boxes": {"labels": ["car"]}},
    {"id": "future", "name": "Future", "type": "hologram", "hologram": {"depth": 3}},
]

# A value for every block, each fitting its type (what a create form sends, or a server stores).
EVERY_VALUE: dict[str, Any] = {
    "question": "Which colour is the sky?",
    "photo": PHOTO,
    "paragraph": "line one\nline two",
    "category": "blue",
    "tags": ["cat", "dog"],
    "many": "o12",
    "ok": False,
    "count": 2.5,
    "when": "2026-11-23T10:00:00",
    "mail": "ada@example.com",
    "source": "https://example.com/a",
    "clip": "https://example.com/v.mp4",
    "notes": "# Notes\n\nSome *markdown*.",
    "items": [1, "two", {"three": 3}],
    "steps": ["a", "b"],
    "boxes": {"car": [1, 2, 3, 4]},
    "future": {"anything": [True, None]},
}


def as_blocks(raw: list[dict[str, Any]]) -> list[Block]:
    return [Block.model_validate(b) for b in raw]


class FormApp(App[None]):
    """A screen holding one TaskForm, with the work screen's one-letter keys to see who gets a key."""

    CSS_PATH: ClassVar = [str(FORMS_CSS)]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "record('skip')", "Skip"),
        Binding("z", "record('zoom')", "Zoom"),
        Binding("enter", "record('submit')", "Submit"),
    ]

    def __init__(self, raw_blocks: list[dict[str, Any]], data: dict[str, Any], mode: str = "work") -> None:
        super().__init__()
        self.image_fetcher = StaticFetcher()
        self.blocks = as_blocks(raw_blocks)
        self.data = data
        self.mode = mode
        self.actions: list[str] = []
        self.messages: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield TaskForm(self.blocks, self.data, mode=self.mode)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.form.focus_first_editable()

    def action_record(self, name: str) -> None:
        self.actions.append(name)

    def on_block_editor_chosen(self, event: BlockEditor.Chosen) -> None:
        self.messages.append(("chosen", event.editor.block.id))

    def on_task_form_changed(self, event: TaskForm.Changed) -> None:
        self.messages.append(("changed", event.editor.block.id))

    @property
    def form(self) -> TaskForm:
        return self.query_one(TaskForm)

    def editor(self, block_id: str) -> BlockEditor:
        editor = self.form.editor(block_id)
        assert editor is not None
        return editor


@pytest.fixture(autouse=True)
def _halfcell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUEUEDESK_IMAGE_RENDERER", "halfcell")


# --- single selection: digits, the same digit again, the clear key ------------------------------


async def test_focus_starts_on_the_required_selection_and_digits_choose() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.focused is app.editor("category")
        await pilot.press("2")
        assert app.form.values() == {"paragraph": None, "category": "blue"}
        await pilot.press("2")  # the same digit again keeps the choice (a web tool would unselect)
        assert app.editor("category").value() == "blue"
        await pilot.press("3")
        assert app.editor("category").value() == "green"
        await pilot.pause()
        assert app.messages.count(("chosen", "category")) == 3
        assert app.messages.count(("changed", "category")) == 2  # the repeat changed nothing
        chosen = [item.option_name for item in app.query(OptionItem) if item.chosen]
        assert chosen == ["Green"]


async def test_backspace_and_delete_clear_the_choice() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("1")
        assert app.editor("category").value() == "red"
        await pilot.press("backspace")
        assert app.editor("category").value() is None
        await pilot.press("3", "delete")
        assert app.editor("category").value() is None
        assert app.form.missing_required() == ["Category"]


async def test_a_digit_without_an_option_is_refused_and_said() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("2", "7")
        editor = app.editor("category")
        assert editor.value() == "blue"
        assert editor.shown_problem == "no option 7 (1\u20133)"


async def test_up_down_and_space_choose() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", "down", "space")  # the first arrow shows the cursor, the next moves
        assert app.editor("category").value() == "blue"


async def test_a_click_on_an_option_picks_it() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        app.editor("paragraph").focus_field()
        green = next(item for item in app.query(OptionItem) if item.option_name == "Green")
        await pilot.click(green)
        assert app.editor("category").value() == "green"
        assert app.focused is app.editor("category")


# --- more than 10 options: two digits, the pause, the filter ------------------------------------

MANY = [
    {"id": "many", "name": "Many", "type": "single_selection", "single_selection": {"options": options(12)}}
]


async def test_two_digits_typed_quickly_choose_option_12() -> None:
    app = FormApp(MANY, {})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("1", "2")
        assert app.editor("many").value() == "o12"
        await pilot.press("3")  # cannot grow into a number <= 12: chosen at once
        assert app.editor("many").value() == "o3"


class StepClock:
    """The app's injectable clock, as far as the editors use it: timers that fire when told."""

    def __init__(self) -> None:
        self.waiting: list[tuple[float, Any]] = []

    def call_later(self, owner: Any, delay: float, callback: Any) -> Any:
        entry = (delay, callback)
        self.waiting.append(entry)
        clock = self

        class Handle:
            def stop(self) -> None:
                if entry in clock.waiting:
                    clock.waiting.remove(entry)

        return Handle()

    def fire(self) -> None:
        waiting, self.waiting = self.waiting, []
        for _delay, callback in waiting:
            callback()


async def test_a_lone_first_digit_is_chosen_after_the_pause_or_by_the_next_key() -> None:
    app = FormApp(MANY, {})
    app.clock = StepClock()  # type: ignore[attr-defined]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("1")
        assert app.editor("many").value() is None  # it may still become 10, 11 or 12
        assert [delay for delay, _ in app.clock.waiting] == [OptionsEditor.DIGIT_WINDOW]
        app.clock.fire()
        assert app.editor("many").value() == "o1"
        await pilot.press("2")
        assert app.editor("many").value() == "o2"  # cannot grow: at once
        await pilot.press("1", "enter")  # enter ends the number, then reaches the screen (submit)
        assert app.editor("many").value() == "o1"
        assert app.actions == ["submit"]
        assert app.clock.waiting == []
        await pilot.press("1", "0")
        assert app.editor("many").value() == "o10"


async def test_a_lone_first_digit_waits_on_a_real_timer_without_a_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(OptionsEditor, "DIGIT_WINDOW", 1.0)
    app = FormApp(MANY, {})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("1")
        assert app.editor("many").value() is None
        for _ in range(60):
            if app.editor("many").value() is not None:
                break
            await pilot.pause(0.05)
        assert app.editor("many").value() == "o1"


async def test_slash_filters_the_options_and_enter_chooses() -> None:
    app = FormApp(MANY, {})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"ion 11")
        visible = [item.option_name for item in app.query(OptionItem) if item.display]
        assert visible == ["Option 11"]
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor("many").value() == "o11"
        assert app.focused is app.editor("many")
        assert app.actions == []  # the filter's enter chose; it did not submit
        await pilot.press("slash", "x", "escape")
        await pilot.pause()
        assert app.focused is app.editor("many")
        assert all(item.display for item in app.query(OptionItem))


# --- the other choosing editors ------------------------------------------------------------------


async def test_multiple_selection_digits_toggle_and_binary_keys() -> None:
    blocks = [b for b in EVERY_BLOCK if b["id"] in ("tags", "ok")]
    app = FormApp(blocks, {})
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.focused is app.editor("ok")  # the required one, though it comes second
        await pilot.press("y")
        assert app.editor("ok").value() is True
        await pilot.press("n")
        assert app.editor("ok").value() is False
        await pilot.press("space")
        assert app.editor("ok").value() is True
        await pilot.press("2")
        assert app.editor("ok").value() is False
        await pilot.press("backspace")
        assert app.editor("ok").value() is None
        await pilot.press("shift+tab")
        assert app.focused is app.editor("tags")
        await pilot.press("2", "1")
        assert app.editor("tags").value() == ["cat", "dog"]  # kept in the options' order
        await pilot.press("2")
        assert app.editor("tags").value() == ["cat"]
        await pilot.press("backspace")
        assert app.editor("tags").value() is None


# --- required, problems, a server's rejection ---------------------------------------------------


async def test_required_blocks_are_refused_until_filled() -> None:
    blocks = [b for b in EVERY_BLOCK if b["id"] in ("paragraph", "category", "ok")]
    app = FormApp(blocks, {})
    async with app.run_test(size=(100, 30)) as pilot:
        form = app.form
        assert form.missing_required() == ["Category", "Looks fine"]
        assert form.problems() == {"category": "required", "ok": "required"}
        form.show_problems(form.problems())
        await pilot.pause()
        assert app.editor("category").shown_problem == "required"
        assert app.focused is app.editor("category")
        await pilot.press("1")
        assert app.editor("category").shown_problem is None  # a change clears it
        assert form.missing_required() == ["Looks fine"]
        await pilot.press("tab", "y")
        assert form.missing_required() == []
        assert form.problems() == {}
        assert validate_task_data(form.blocks, form.values(), enforce_required=True) == []


async def test_creating_a_task_leaves_required_blocks_to_the_worker() -> None:
    app = FormApp(CORE_BLOCKS, {}, mode="create")
    async with app.run_test(size=(100, 30)):
        form = app.form
        assert app.focused is app.editor("question").query_one(Input)  # the first block
        assert form.problems() == {}
        assert form.missing_required() == ["Category"]
        assert not app.editor("category").query_one(".editor-required").display


async def test_a_server_rejection_lands_on_its_field() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("2")
        # The work screen maps the envelope's field "data.paragraph" to the block id.
        message = "block 'paragraph' (text): too rude"
        app.form.show_problems({"paragraph": message, "ghost": "not a block of this queue"})
        await pilot.pause()
        paragraph = app.editor("paragraph")
        assert paragraph.shown_problem == message
        line = paragraph.query_one(".editor-problem", Static)
        assert line.display and str(line.render()) == message
        assert app.focused is paragraph.query_one(Input)
        form_line = app.form.query_one("#form-problem", Static)
        assert form_line.display and "ghost: not a block of this queue" in str(form_line.render())
        assert app.editor("category").shown_problem is None
        await pilot.press("x")
        assert paragraph.shown_problem is None


async def test_a_number_that_does_not_parse_is_a_problem() -> None:
    blocks = [b for b in EVERY_BLOCK if b["id"] in ("count", "when", "mail")]
    app = FormApp(blocks, {})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"12")
        assert app.editor("count").value() == 12
        app.editor("count").set_value("twelve")
        app.editor("when").set_value("23/11/2026")
        app.editor("mail").set_value("ada at example")
        await pilot.pause()
        problems = app.form.problems()
        assert problems["count"] == "must be a number"
        assert "is not an ISO 8601 date" in problems["when"]
        assert "is not an email address" in problems["mail"]


# --- values round-trip for every editor ---------------------------------------------------------


async def test_every_editor_round_trips_its_value_and_the_rules_accept_it() -> None:
    app = FormApp(EVERY_BLOCK, EVERY_VALUE, mode="create")
    async with app.run_test(size=(100, 30)):
        form = app.form
        values = form.values()
        assert values == EVERY_VALUE
        assert validate_task_data(form.blocks, values, enforce_required=True) == []
        assert form.problems() == {}
        assert isinstance(app.editor("paragraph").query_one(TextArea), TextArea)  # multi-line
        for editor in form.editors():
            editor.set_value(None)
        empty = form.values()
        assert set(empty.values()) == {None}
        assert validate_task_data(form.blocks, empty) == []
        for editor in form.editors():
            editor.set_value(EVERY_VALUE[editor.block.id])
        assert form.values() == EVERY_VALUE


async def test_typed_values_reach_the_rules_as_their_types() -> None:
    blocks = [b for b in EVERY_BLOCK if b["id"] in ("count", "when", "mail", "source", "items")]
    app = FormApp(blocks, {}, mode="create")
    async with app.run_test(size=(100, 30)) as pilot:
        typed = {
            "count": "-3.5",
            "when": "2026-11-23",
            "mail": "ada@example.com",
            "source": "https://example.com/x",
            "items": '["a", 2]',
        }
        for block_id, text in typed.items():
            app.editor(block_id).focus_field()
            await pilot.press(*text)
        values = app.form.values()
        assert values == {
            "count": -3.5,
            "when": "2026-11-23",
            "mail": "ada@example.com",
            "source": "https://example.com/x",
            "items": ["a", 2],
        }
        assert validate_task_data(app.form.blocks, values) == []
        app.editor("items").focus_field()
        await pilot.press("backspace")
        assert app.form.problems()["items"].startswith("not valid JSON")


async def test_set_data_shows_the_next_task_in_place() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot, 1)
        form = app.form
        await pilot.press("2")
        form.show_problems({"paragraph": "too short"})
        await app.image_fetcher.picture("https://example.com/next.png")
        form.set_data({"question": "And this one?", "photo": "https://example.com/next.png"})
        form.focus_first_editable()
        await pilot.pause()
        assert form.values() == {"paragraph": None, "category": None}
        assert app.editor("paragraph").shown_problem is None
        assert app.focused is app.editor("category")
        view = app.query_one(ImageView)
        assert (view.state, view.url) == ("shown", "https://example.com/next.png")
        assert str(app.editor("question").query_one(".editor-value", Static).render()) == "And this one?"
        await pilot.press("3")
        assert form.values()["category"] == "green"


@pytest.mark.parametrize("block_type", ["number", "text"])
async def test_a_value_shown_again_takes_the_next_digit_after_it(block_type: str) -> None:
    """The typing fuzzer's task 729: "50" typed on a task, undo put the task before on screen (the
    field emptied), the draft came back with "50"; `tab` into it and `3` must make "503", not "350"."""
    blocks = [{"id": "count", "name": "Count", "type": block_type}]
    app = FormApp(blocks, {})
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot, 1)
        form = app.form
        app.editor("count").focus_field()
        await pilot.press("5", "0")
        app.set_focus(None)
        form.set_data({"count": None})  # the task before, back by undo
        form.set_data({"count": "50"})  # this one again, with its draft
        await pilot.pause()
        app.editor("count").focus_field()
        await pilot.press("3")
        assert app.editor("count").current_text() == "503"


# --- text fields and keys ------------------------------------------------------------------------


async def test_letters_in_a_text_field_are_text_and_escape_leaves_it() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        app.editor("paragraph").focus_field()
        await pilot.press(*"sz 12", "enter")
        assert app.editor("paragraph").value() == "sz 12"
        assert app.editor("category").value() is None  # the digits were text
        assert app.actions == ["submit"]  # enter is not the field's: it reaches the screen
        await pilot.press("escape")
        assert app.focused is app.form  # out of the field, still in the form
        await pilot.press("s", "z")
        assert app.actions == ["submit", "skip", "zoom"]
        await pilot.press("tab")  # the field after the one left
        assert app.focused is app.editor("category")
        await pilot.press("1")
        assert app.editor("category").value() == "red"


async def test_escape_from_a_selection_is_left_to_the_screen() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        assert app.focused is app.editor("category")


async def test_tab_moves_between_editors_only() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(100, 30)) as pilot:
        app.editor("paragraph").focus_field()
        await pilot.press("tab")
        assert app.focused is app.editor("category")
        await pilot.press("tab")
        assert app.focused is app.editor("paragraph").query_one(Input)


async def test_long_text_gets_a_multi_line_area() -> None:
    block = as_blocks([CORE_BLOCKS[2]])[0]
    assert isinstance(editor_for(block, "short"), TextEditor)
    app = FormApp([CORE_BLOCKS[2]], {"paragraph": "x" * 200})
    async with app.run_test(size=(100, 30)) as pilot:
        area = app.editor("paragraph").query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)
        await pilot.press("enter", "y")
        assert app.editor("paragraph").value() == "x" * 200 + "\ny"
        assert app.actions == []  # enter is a new line here


# --- the work mode's two panes, read-only content, unknown types --------------------------------


async def test_work_mode_splits_content_from_the_questions() -> None:
    app = FormApp(EVERY_BLOCK, EVERY_VALUE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot, 1)
        form = app.form
        pane = form.task_pane()
        assert pane is not None
        content = {e.block.id for e in pane.query(BlockEditor)}
        assert content == {"question", "photo", "source", "clip", "notes", "boxes", "future"}
        editable = {e.block.id for e in form.form_pane().query(BlockEditor)}
        assert editable == {
            "paragraph",
            "category",
            "tags",
            "many",
            "ok",
            "count",
            "when",
            "mail",
            "items",  # a list and a sequence are filled by the worker too (issue 27)
            "steps",
        }
        assert set(form.values()) == editable
        assert form.image_urls() == [PHOTO]
        view = pane.query_one(ImageView)
        assert view.state == "shown"


async def test_the_panes_stack_on_a_narrow_terminal() -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot, 1)
        await pilot.pause()
        form, view = app.form, app.query_one(ImageView)
        pane = form.task_pane()
        assert pane is not None and not form.has_class("-narrow")
        assert pane.region.x < form.form_pane().region.x  # side by side
        assert view.max_rows == 12
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        assert form.has_class("-narrow")
        assert pane.region.y < form.form_pane().region.y  # the task above the form
        assert view.max_rows == 8 and view.query_one(".image-picture").size.height <= 8


async def test_unknown_block_types_are_shown_read_only() -> None:
    raw = [
        {"id": "future", "name": "Future", "type": "hologram", "hologram": {"depth": 3}},
        {"id": "odd", "name": "Odd", "type": "hologram"},
        {
            "id": "category",
            "name": "Category",
            "type": "single_selection",
            "single_selection": {"options": options(2)},
        },
    ]
    raw.append(  # an option as another server might send it: no name, a number as id
        {
            "id": "loose",
            "name": "Loose",
            "type": "single_selection",
            "single_selection": {"options": [{"id": 7}]},
        }
    )
    data = {"future": {"layers": [1, 2]}, "odd": object(), "loose": "gone"}
    app = FormApp(raw, data)
    async with app.run_test(size=(100, 30)):
        assert [item.option_name for item in app.editor("loose").query(OptionItem)] == ["7"]
        assert app.form.problems()["loose"] == "cannot be checked: this block's settings are not as expected"
        future = app.editor("future")
        assert isinstance(future, FallbackEditor) and not future.editable
        shown = str(future.query_one(".editor-value", Static).render())
        assert shown == '{"layers": [1, 2]}'
        assert "object" in str(app.editor("odd").query_one(".editor-value", Static).render())
        assert set(app.form.values()) == {"category", "loose"}


async def test_a_list_of_plain_values_reads_as_bullets_and_anything_else_as_json() -> None:
    raw = [
        {"id": "steps", "name": "Steps", "type": "list", "list": {"subtype": "text"}},
        {"id": "turns", "name": "Turns", "type": "text_sequence"},
        {"id": "mixed", "name": "Mixed", "type": "list", "list": {"subtype": "text"}},
    ]
    data = {"steps": ["unplug it", "wait 10 s", 3], "turns": ["\x1b[2Jhi"], "mixed": [{"a": 1}]}
    app = ReadOnlyApp(raw, data)  # as the task view and the review show a task
    async with app.run_test(size=(100, 30)):

        def shown_of(block_id: str) -> str:
            return str(app.editor(block_id).query_one(".editor-value", Static).render())

        assert shown_of("steps") == "• unplug it\n• wait 10 s\n• 3"
        assert shown_of("turns") == "• ␛[2Jhi"  # outside text shown, never obeyed
        assert shown_of("mixed") == '[{"a": 1}]'


class ReadOnlyApp(App[None]):
    """Each block's editor, read-only, showing its value."""

    CSS_PATH: ClassVar = [str(FORMS_CSS)]

    def __init__(self, raw_blocks: list[dict[str, Any]], data: dict[str, Any]) -> None:
        super().__init__()
        self.blocks = as_blocks(raw_blocks)
        self.data = data

    def compose(self) -> ComposeResult:
        for block in self.blocks:
            yield editor_for(block, self.data.get(block.id), editable=False)

    def editor(self, block_id: str) -> BlockEditor:
        return next(e for e in self.query(BlockEditor) if e.block.id == block_id)


async def test_a_list_is_filled_one_item_per_line_unless_it_holds_more_than_text() -> None:
    raw = [
        {"id": "steps", "name": "Steps", "type": "list"},
        {"id": "turns", "name": "Turns", "type": "text_sequence"},
    ]
    app = FormApp(raw, {"steps": ["unplug it", 3], "turns": ["first", "second"]})
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot, 1)
        turns = app.editor("turns").query_one(TextArea)
        assert turns.text == "first\nsecond"  # one item per line
        assert app.editor("steps").query_one(TextArea).text == '["unplug it", 3]'  # a number: JSON
        app.editor("turns").focus_field()
        await pilot.press("enter", *"  third  ", "enter", "enter")
        assert app.form.values()["turns"] == ["first", "second", "third"]
        turns.text = ""
        assert app.form.values()["turns"] == []  # an empty list stays a list


def test_the_registry_knows_every_type_and_falls_back() -> None:
    for raw in EVERY_BLOCK:
        block = Block.model_validate(raw)
        editor = editor_for(block, EVERY_VALUE.get(block.id), editable=False)
        assert editor.block is block and not editor.editable
    unknown = editor_for(Block.model_validate({"id": "x y", "name": "X", "type": "new"}), [1])
    assert isinstance(unknown, FallbackEditor)
    assert unknown.id is not None and unknown.id.startswith("block-x_y-")
    assert isinstance(editor_for(Block.model_validate(EVERY_BLOCK[4]), None), MultipleSelectionEditor)
    assert isinstance(editor_for(Block.model_validate(EVERY_BLOCK[6]), None), BinaryEditor)
    assert isinstance(editor_for(Block.model_validate(EVERY_BLOCK[3]), None), SingleSelectionEditor)


# --- snapshots -----------------------------------------------------------------------------------


async def _ready(pilot: Any) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    stop_blinking(pilot.app)
    await pilot.pause()


def test_snapshot_core_blocks_100x30(snap_compare: Any) -> None:
    app = FormApp(CORE_BLOCKS, CORE_DATA)
    assert snap_compare(app, terminal_size=(100, 30), run_before=_ready)


def test_snapshot_core_blocks_chosen_with_a_problem_80x24(snap_compare: Any) -> None:
    async def choose_and_reject(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("2")
        pilot.app.form.show_problems({"paragraph": "block 'paragraph' (text): say what you saw"})
        await pilot.pause()
        stop_blinking(pilot.app)

    app = FormApp(CORE_BLOCKS, CORE_DATA)
    assert snap_compare(app, terminal_size=(80, 24), run_before=choose_and_reject)


def test_snapshot_create_form_100x30(snap_compare: Any) -> None:
    app = FormApp(CORE_BLOCKS, {}, mode="create")
    assert snap_compare(app, terminal_size=(100, 30), run_before=_ready)
