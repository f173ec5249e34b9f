"""Create or edit a queue (admins): its name, description and blocks, with the worker's form as a
live preview.

Blocks are checked by the server's own rules (`queuedesk.api.blocks`) at every change, each problem
under its field, so a save that would be refused is not sent. Changing the blocks of a queue that
has tasks says first what happens to the values those tasks hold, and asks. `escape` asks before
discarding changes.
"""

from collections.abc import Mapping
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, LoadingIndicator, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from queuedesk.api import errors
from queuedesk.api.block_changes import compare_blocks, impact_lines
from queuedesk.api.blocks import Problem
from queuedesk.api.models import Block, Queue, QueueDetail
from queuedesk.tui.admin.queue_draft import (
    BlockDraft,
    DraftProblem,
    block_problems,
    located,
    queue_problems,
    review_percent,
    review_problems,
)
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.review.review_access import has_review
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.block_settings import BlockSettings, row
from queuedesk.tui.widgets.context_bar import ContextBar


def who_is_affected(pending: int, completed: int) -> str:
    """Which tasks a change of blocks affects: the pending ones, completed under the new blocks;
    completed tasks keep the values they were completed with (the server never rewrites a task)."""
    if pending == 0:
        said = "No pending task is affected"
    elif pending == 1:
        said = "1 pending task takes the new blocks when it is completed"
    else:
        said = f"{pending:,} pending tasks take the new blocks when they are completed"
    if completed == 1:
        said += "; 1 completed task keeps its values"
    elif completed:
        said += f"; {completed:,} completed tasks keep their values"
    return said + "."


class BlockList(OptionList):
    """The queue's blocks in order; `[` and `]` move the one under the cursor, `delete` removes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "screen.move_block(-1)", "Move up", id="queue_editor.up"),
        Binding("right_square_bracket", "screen.move_block(1)", "Move down", id="queue_editor.down"),
        Binding("delete,minus", "screen.remove_block", "Remove block", id="queue_editor.remove"),
        Binding("plus,a", "screen.add_block", "Add block", show=False, id="queue_editor.add_key"),
    ]


class QueueEditorScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss")
    # Keys typed while the queue loads go to the name field once it is there (not to the pane the
    # automatic focus would pick meanwhile).
    AUTO_FOCUS = ""
    KEYS_WAIT_FOR_FOCUS = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="queue_editor.save", priority=True),
        Binding("ctrl+n", "add_block", "Add block", id="queue_editor.add", priority=True),
        Binding("ctrl+up", "move_block(-1)", "Move up", show=False, id="queue_editor.ctrl_up", priority=True),
        Binding(
            "ctrl+down", "move_block(1)", "Move down", show=False, id="queue_editor.ctrl_down", priority=True
        ),
        Binding("escape", "leave", "Back", id="queue_editor.back"),
    ]

    def __init__(self, queue: Queue | None = None) -> None:
        """`queue` None: a new queue."""
        super().__init__()
        self.queue = queue
        self.detail: QueueDetail | None = None
        self.tasks_held = 0  # pending and completed tasks of the queue being edited
        self.tasks_completed = 0
        self.drafts: list[BlockDraft] = []
        self.queue_name = ""
        self.queue_description = ""
        self.review_text = "0"  # the share of completions drawn for review (B19), as typed
        self.reviews = False  # the server reviews work: the field is shown
        self.saved_state: Any = None
        self.selected: int | None = None
        self.problems: list[DraftProblem] = []
        self.sending = False
        self.name_touched = queue is not None  # a new queue's empty name is no fault until it is
        self._preview_due = False
        self._previewed: Any = None  # what the preview shows: the blocks drawn and how many there are

    # --- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        where = "new queue" if self.queue is None else f"{self.queue.name} / edit"
        yield ContextBar(where, id="context")
        with Horizontal(id="editor-body"):
            with VerticalScroll(id="editor-pane"):
                yield LoadingIndicator(id="editor-loading")
            with Vertical(id="editor-preview"):
                yield Label("What a worker sees", classes="qe-heading")
                yield Container(id="preview-slot")
        yield Static("", id="editor-status", markup=False)
        yield AppFooter()

    def _editor_widgets(self) -> list[Any]:
        name_problem = Static("", id="queue-problem-name", classes="qe-problem", markup=False)
        name_problem.display = False
        blocks_problem = Static("", id="blocks-problem", classes="qe-problem", markup=False)
        blocks_problem.display = False
        description = TextArea(self.queue_description, id="queue-description", compact=True)
        name = Input(self.queue_name, placeholder="the queue's name", id="queue-name", compact=True)
        review = Input(self.review_text, id="queue-review", compact=True, restrict=r"[0-9]*", max_length=3)
        review.display = self.reviews
        return [
            row("Name", name),
            name_problem,
            row("Description", description),
            row("Review %", review),
            Static("Blocks: ctrl+n adds · [ ] or ctrl+↑↓ move · delete removes", classes="qe-label"),
            BlockList(id="block-list", compact=True, markup=False),
            blocks_problem,
            Container(id="block-settings-slot"),
        ]

    def on_mount(self) -> None:
        self.query_one("#preview-slot").can_focus_children = False
        self._load()

    @work(exclusive=True, group="editor-load")
    async def _load(self) -> None:
        if self.queue is not None:
            try:
                client = self.session.client
                self.detail = await client.queue(self.queue.id)
                completed = (await client.completed_tasks(self.queue.id, limit=1)).count
            except Exception as exc:
                self.qd.report(exc, doing="Opening the queue")
                self.dismiss()
                return
            self.tasks_held = self.detail.n_tasks + completed
            self.tasks_completed = completed
            self.queue_name, self.queue_description = self.detail.name, self.detail.description
            self.review_text = str(self.detail.review_percent)
            self.drafts = [BlockDraft.of(b) for b in self.detail.data]
        self.reviews = any(
            has_review(q) for q in [*([self.detail] if self.detail else []), *self.qd.known_queues]
        )
        self.saved_state = self._state()
        pane = self.query_one("#editor-pane")
        await self.query_one("#editor-loading").remove()
        await pane.mount_all(self._editor_widgets())
        self._fill_block_list()
        if self.drafts:
            await self._select(0)
        self._check()
        self._schedule_preview()
        self._show_status()
        self.query_one("#queue-name").focus()

    # --- the model ---------------------------------------------------------------------------------

    def _state(self) -> Any:
        return (
            self.queue_name,
            self.queue_description,
            [d.raw() for d in self.drafts],
            self.review_text.strip(),
        )

    @property
    def dirty(self) -> bool:
        return self.saved_state is not None and self._state() != self.saved_state

    def _raw_blocks(self) -> list[Mapping[str, Any]]:
        return [d.raw() for d in self.drafts]

    def _check(self) -> None:
        """Check everything; show each problem at its field and mark blocks that have one."""
        self.problems = queue_problems(self.queue_name, self.queue_description) + block_problems(self.drafts)
        if self.reviews:
            self.problems += review_problems(self.review_text)
        self._show_problems()

    def _show_problems(self) -> None:
        if not self.query("#block-list"):
            return
        mine = {p.field: p.message for p in self.problems if p.block is None}
        if not self.name_touched:
            mine.pop("name", None)
        line = self.query_one("#queue-problem-name", Static)
        line.update(mine.get("name", ""))
        line.display = "name" in mine
        others = [f"{k}: {m}" for k, m in mine.items() if k not in ("name",)]
        general = self.query_one("#blocks-problem", Static)
        general.update("\n".join(others))
        general.display = bool(others)
        for index in range(len(self.drafts)):
            self._relabel(index)
        settings = self._settings()
        if settings is not None:
            settings.show_problems({p.field: p.message for p in self.problems if p.block == settings.index})

    def _block_label(self, index: int) -> str:
        draft = self.drafts[index]
        flags = " *" if draft.settings.get("is_required") else ""
        mark = "✗ " if any(p.block == index for p in self.problems) else ""
        return (
            f"{index + 1}. {mark}{draft.name or '(no name)'} · {draft.id or '(no id)'} · {draft.type}{flags}"
        )

    def _fill_block_list(self) -> None:
        listing = self.query_one(BlockList)
        listing.clear_options()
        listing.add_options([Option(self._block_label(i)) for i in range(len(self.drafts))])
        if self.selected is not None and self.drafts:
            listing.highlighted = min(self.selected, len(self.drafts) - 1)

    def _relabel(self, index: int) -> None:
        listing = self.query_one(BlockList)
        if index < listing.option_count:
            listing.replace_option_prompt_at_index(index, self._block_label(index))

    def _settings(self) -> BlockSettings | None:
        found = self.query(BlockSettings)
        return found.first() if found else None

    async def _select(self, index: int | None) -> None:
        """Show the settings of block `index` (None: no block)."""
        self.selected = index
        slot = self.query_one("#block-settings-slot")
        await slot.remove_children()
        if index is not None and index < len(self.drafts):
            await slot.mount(BlockSettings(self.drafts[index], index, id="block-settings"))
            listing = self.query_one(BlockList)
            if listing.highlighted != index:
                listing.highlighted = index
        self._show_problems()

    def _changed(self) -> None:
        self._check()
        self._schedule_preview()
        self._show_status()

    def _show_status(self) -> None:
        parts = [f"{len(self.drafts)} block(s)"]
        if self.queue is not None:
            parts.append(f"{self.tasks_held} task(s) hold values")
        share = review_percent(self.review_text) if self.reviews else None
        if share:
            parts.append(f"{share}% of completions reviewed")
        if self.problems:
            parts.append(f"{len(self.problems)} problem(s) to fix before saving")
        if self.dirty:
            parts.append("unsaved changes")
        parts.append("ctrl+s saves")
        self.query_one("#editor-status", Static).update(" · ".join(parts))

    # --- the preview -------------------------------------------------------------------------------

    def _schedule_preview(self) -> None:
        if not self._preview_due:
            self._preview_due = True
            self.call_after_refresh(self._redraw_preview)

    async def _redraw_preview(self) -> None:
        self._preview_due = False
        faulty = {p.block for p in self.problems}
        shown = ([d.raw() for i, d in enumerate(self.drafts) if i not in faulty], len(self.drafts))
        if shown == self._previewed:
            return  # the name or description changed: the worker's form did not
        self._previewed = shown
        blocks = [Block.model_validate(raw) for raw in shown[0]]
        slot = self.query_one("#preview-slot")
        await slot.remove_children()
        if len(blocks) < len(self.drafts):
            await slot.mount(Static("Blocks marked ✗ are left out until they are fixed.", classes="qe-note"))
        if blocks:
            await slot.mount(TaskForm(blocks, {}, mode="work", id="preview-form"))
        else:
            await slot.mount(Static("No blocks yet: ctrl+n adds one.", classes="form-empty"))

    # --- events ------------------------------------------------------------------------------------

    @on(Input.Changed, "#queue-name")
    def _name_changed(self, event: Input.Changed) -> None:
        self.queue_name = event.value
        self.name_touched = True
        self._changed()

    @on(Input.Changed, "#queue-review")
    def _review_changed(self, event: Input.Changed) -> None:
        self.review_text = event.value
        self._changed()

    @on(TextArea.Changed, "#queue-description")
    def _description_changed(self, event: TextArea.Changed) -> None:
        self.queue_description = event.text_area.text
        self._changed()

    @on(OptionList.OptionHighlighted, "#block-list")
    async def _block_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != self.selected:
            await self._select(event.option_index)

    @on(BlockSettings.Changed)
    async def _block_changed(self, event: BlockSettings.Changed) -> None:
        self._changed()
        if event.field == "type":  # another type has other settings
            await self._select(event.settings.index)
            settings = self._settings()
            if settings is not None:
                settings.focus_field("type")

    # --- actions -----------------------------------------------------------------------------------

    def action_add_block(self) -> None:
        if not self.query("#block-list"):
            return
        from queuedesk.tui.modals.block_type_picker import BlockTypePicker

        self.app.push_screen(BlockTypePicker(), self._add_block_of)

    async def _add_block_of(self, type_name: str | None) -> None:
        if type_name is None:
            return
        draft = BlockDraft.new(type_name, {d.id for d in self.drafts})
        at = len(self.drafts) if self.selected is None else self.selected + 1
        self.drafts.insert(at, draft)
        self.selected = at
        self._fill_block_list()
        await self._select(at)
        self._changed()
        settings = self._settings()
        if settings is not None:
            settings.focus_field("name")

    async def action_remove_block(self) -> None:
        index = self.selected
        if index is None or index >= len(self.drafts):
            return
        self.drafts.pop(index)
        self.selected = min(index, len(self.drafts) - 1) if self.drafts else None
        self._fill_block_list()
        await self._select(self.selected)
        self._changed()
        self.query_one(BlockList).focus()

    def action_move_block(self, step: int) -> None:
        index = self.selected
        if index is None or not 0 <= index + step < len(self.drafts):
            return
        to = index + step
        self.drafts[index], self.drafts[to] = self.drafts[to], self.drafts[index]
        self.selected = to  # before the list moves its cursor: the settings shown stay as they are
        self.query_one(BlockList).highlighted = to
        settings = self._settings()
        if settings is not None:
            settings.renumber(to)
        self._changed()

    def action_save(self) -> None:
        if self.saved_state is None or self.sending:
            return
        self.name_touched = True
        self._check()
        if self.problems:
            first = self.problems[0]
            self.call_later(self._go_to, first)
            self.notify(
                "Nothing was saved: fix the fields marked in red.", title="Not saved", severity="warning"
            )
            return
        if self.queue is not None and not self.dirty:
            self.notify("Nothing to save: no changes.", timeout=3)
            return
        confirm = self._what_happens_to_tasks()
        if confirm is None:
            self._send()
            return
        from queuedesk.tui.modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._send()

        self.app.push_screen(ConfirmScreen("Change the blocks?", confirm, "Save"), answered)

    def _what_happens_to_tasks(self) -> str | None:
        """What the change does to the values tasks hold, or None when it touches none."""
        if self.detail is None or self.tasks_held == 0:
            return None
        changes = compare_blocks(self.detail.data, [Block.model_validate(b) for b in self._raw_blocks()])
        if not changes.touches_values:
            return None
        lines = "\n".join(f"• {line}" for line in impact_lines(changes))
        affected = who_is_affected(self.detail.n_tasks, self.tasks_completed)
        return f"{self.detail.name!r}: {affected}\n\n{lines}"

    async def _go_to(self, problem: DraftProblem) -> None:
        if problem.block is None:
            target = {"name": "#queue-name", "review": "#queue-review"}.get(
                problem.field, "#queue-description"
            )
            self.query_one(target).focus()
            return
        if problem.block != self.selected:
            await self._select(problem.block)
        settings = self._settings()
        if settings is not None:
            settings.focus_field(problem.field)

    @work(exclusive=True, group="editor-save")
    async def _send(self) -> None:
        client = self.session.client
        self.sending = True
        try:
            if self.queue is None:
                saved = await client.create_queue(
                    self.queue_name.strip(),
                    self._raw_blocks(),
                    self.queue_description,
                    review_percent=review_percent(self.review_text) or None if self.reviews else None,
                )
            else:
                name, description, blocks, review = self._state()
                was_name, was_description, was_blocks, was_review = self.saved_state
                saved = await client.update_queue(
                    self.queue.id,
                    name=name.strip() if name != was_name else None,
                    description=description if description != was_description else None,
                    blocks=blocks if blocks != was_blocks else None,
                    review_percent=review_percent(review) if self.reviews and review != was_review else None,
                )
        except errors.ValidationError as exc:
            self._refused([Problem(e.code or "", e.field, e.message) for e in exc.errors])
            self.notify(str(exc), title="The server refused the queue", severity="warning")
            return
        except errors.Conflict as exc:
            self._refused([Problem("conflict", "name", exc.message)])
            self.notify(exc.message, title="Not saved", severity="warning")
            return
        except Exception as exc:
            self.qd.report(exc, doing="Saving the queue")
            return
        finally:
            self.sending = False
        self.saved_state = self._state()
        done = "created" if self.queue is None else "saved"
        self.notify(f"Queue {saved.name!r} {done}.", title="Saved")
        self.dismiss()

    def _refused(self, problems: list[Problem]) -> None:
        self.problems = [located(p) for p in problems]
        self._show_problems()
        if self.problems:
            self.call_later(self._go_to, self.problems[0])

    def action_leave(self) -> None:
        if not self.dirty:
            self.dismiss()
            return
        from queuedesk.tui.modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss()

        self.app.push_screen(
            ConfirmScreen(
                "Discard your changes?", "What you changed in this queue has not been saved.", "Discard"
            ),
            answered,
        )
