"""Create or edit a queue (admins): its name, description and blocks, with the worker's form as a
live preview.

Blocks are checked by the server's own rules (`queuedesk.api.blocks`) at every change, each problem
under its field, so a save that would be refused is not sent. Changing the blocks of a queue that
has tasks says first what happens to the values those tasks hold, and asks. `escape` asks before
discarding changes. What is typed and checked lives in `admin/queue_edit.QueueEdit`; the screen
composes the fields, the block list (`widgets/block_list`), the settings of the chosen block
(`widgets/block_settings`) and the preview (`widgets/queue_preview`), and binds the keys.
"""

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, VerticalScroll
from textual.widgets import LoadingIndicator, OptionList, Static

from queuedesk.api import errors
from queuedesk.api.blocks import Problem
from queuedesk.api.models import Queue
from queuedesk.tui.admin.queue_draft import DraftProblem, located
from queuedesk.tui.admin.queue_edit import QueueEdit
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.review.review_access import has_review
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.block_list import BlockList
from queuedesk.tui.widgets.block_settings import BlockSettings
from queuedesk.tui.widgets.consensus_fields import ConsensusFields
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.gold_fields import GoldFields
from queuedesk.tui.widgets.queue_fields import QueueFields
from queuedesk.tui.widgets.queue_preview import QueuePreview


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
        self.edit = QueueEdit(existing=queue is not None)
        self.sending = False

    # --- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        where = "new queue" if self.queue is None else f"{self.queue.name} / edit"
        yield ContextBar(where, id="context")
        with Horizontal(id="editor-body"):
            with VerticalScroll(id="editor-pane"):
                yield LoadingIndicator(id="editor-loading")
            yield QueuePreview(id="editor-preview")
        yield Static("", id="editor-status", markup=False)
        yield AppFooter()

    def _editor_widgets(self) -> list[Any]:
        blocks_problem = Static("", id="blocks-problem", classes="qe-problem", markup=False)
        blocks_problem.display = False
        return [
            QueueFields(self.edit, id="queue-fields"),
            *(
                [ConsensusFields(self.edit.consensus, self.edit.drafts, id="consensus")]
                if self.edit.consensus_offered
                else []
            ),
            *([GoldFields(self.edit.gold, id="gold")] if self.edit.gold.offered else []),
            Static("Blocks: ctrl+n adds · [ ] or ctrl+↑↓ move · delete removes", classes="qe-label"),
            BlockList(id="block-list", compact=True, markup=False),
            blocks_problem,
            Container(id="block-settings-slot"),
        ]

    def on_mount(self) -> None:
        self._load()

    @work(exclusive=True, group="editor-load")
    async def _load(self) -> None:
        edit = self.edit
        if self.queue is not None:
            try:
                client = self.session.client
                detail = await client.queue(self.queue.id)
                completed = (await client.completed_tasks(self.queue.id, limit=1)).count
            except Exception as exc:
                self.qd.report(exc, doing="Opening the queue")
                self.dismiss()
                return
            edit.load(detail, completed)
        edit.consensus_offered = await self._has("B21")
        edit.gold.offered = await self._has("B22")
        edit.reviews = any(
            has_review(q) for q in [*([edit.detail] if edit.detail else []), *self.qd.known_queues]
        )
        edit.mark_saved()
        pane = self.query_one("#editor-pane")
        await self.query_one("#editor-loading").remove()
        await pane.mount_all(self._editor_widgets())
        self._fill_block_list()
        if edit.drafts:
            await self._select(0)
        self._changed()
        self.query_one("#queue-name").focus()

    async def _has(self, feature: str) -> bool:
        try:
            return await self.session.client.supports(feature)
        except errors.QueueDeskError:
            return False  # the editor works without it; the save says what the server answers

    # --- showing the model ---------------------------------------------------------------------------

    def _show_problems(self) -> None:
        if not self.query("#block-list"):
            return
        mine = self.edit.queue_problems_shown()
        self.query_one(QueueFields).show_problems(mine)
        others = [f"{k}: {m}" for k, m in mine.items() if k not in ("name", "gold") and "consensus" not in k]
        for consensus in self.query(ConsensusFields):
            consensus.show_problems(mine)
        for gold in self.query(GoldFields):
            gold.show_problem(mine.get("gold"))
        general = self.query_one("#blocks-problem", Static)
        general.update("\n".join(others))
        general.display = bool(others)
        self.query_one(BlockList).relabel(self._labels())
        settings = self._settings()
        if settings is not None:
            settings.show_problems(
                {p.field: p.message for p in self.edit.problems if p.block == settings.index}
            )

    def _labels(self) -> list[str]:
        return [self.edit.block_label(i) for i in range(len(self.edit.drafts))]

    def _fill_block_list(self) -> None:
        self.query_one(BlockList).fill(self._labels(), self.edit.selected)

    def _settings(self) -> BlockSettings | None:
        found = self.query(BlockSettings)
        return found.first() if found else None

    async def _select(self, index: int | None) -> None:
        """Show the settings of block `index` (None: no block)."""
        self.edit.selected = index
        slot = self.query_one("#block-settings-slot")
        await slot.remove_children()
        if index is not None and index < len(self.edit.drafts):
            await slot.mount(BlockSettings(self.edit.drafts[index], index, id="block-settings"))
            listing = self.query_one(BlockList)
            if listing.highlighted != index:
                listing.highlighted = index
        self._show_problems()

    def _changed(self) -> None:
        """Something was typed: checked, shown at the fields, in the preview and the status line."""
        self.edit.check()
        self._show_problems()
        self.query_one(QueuePreview).show(*self.edit.previewed())
        for consensus in self.query(ConsensusFields):
            consensus.show_blocks(self.edit.drafts)
        self.query_one("#editor-status", Static).update(self.edit.status_line())

    # --- events ------------------------------------------------------------------------------------

    @on(QueueFields.Changed)
    @on(ConsensusFields.Changed)
    @on(GoldFields.Changed)
    def _queue_changed(self) -> None:
        self._changed()

    @on(OptionList.OptionHighlighted, "#block-list")
    async def _block_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != self.edit.selected:
            await self._select(event.option_index)

    @on(BlockSettings.Changed)
    async def _block_changed(self, event: BlockSettings.Changed) -> None:
        self._changed()
        if event.field == "type":  # another type has other settings
            await self._select(event.settings.index)
            self._focus_setting("type")

    def _focus_setting(self, key: str) -> None:
        settings = self._settings()
        if settings is not None:
            settings.focus_field(key)

    # --- actions -----------------------------------------------------------------------------------

    def action_add_block(self) -> None:
        if not self.query("#block-list"):
            return
        from queuedesk.tui.modals.block_type_picker import BlockTypePicker

        self.app.push_screen(BlockTypePicker(), self._add_block_of)

    async def _add_block_of(self, type_name: str | None) -> None:
        if type_name is None:
            return
        at = self.edit.add_block(type_name)
        self._fill_block_list()
        await self._select(at)
        self._changed()
        self._focus_setting("name")

    async def action_remove_block(self) -> None:
        if not self.edit.remove_block():
            return
        self._fill_block_list()
        await self._select(self.edit.selected)
        self._changed()
        self.query_one(BlockList).focus()

    def action_move_block(self, step: int) -> None:
        if not self.edit.move_block(step):
            return
        to = self.edit.selected  # moved before the list moves its cursor: the settings shown stay
        self.query_one(BlockList).highlighted = to
        settings = self._settings()
        if settings is not None and to is not None:
            settings.renumber(to)
        self._changed()

    def action_save(self) -> None:
        if self.edit.saved_state is None or self.sending:
            return
        self.edit.name_touched = True
        self._changed()
        if self.edit.problems:
            self.call_later(self._go_to, self.edit.problems[0])
            self.notify(
                "Nothing was saved: fix the fields marked in red.", title="Not saved", severity="warning"
            )
            return
        if self.queue is not None and not self.edit.dirty:
            self.notify("Nothing to save: no changes.", timeout=3)
            return
        confirm = self.edit.what_happens_to_tasks()
        if confirm is None:
            self._send()
            return
        self._ask("Change the blocks?", confirm, "Save", self._send)

    def _ask(self, title: str, explain: str, run: str, then: Any) -> None:
        from queuedesk.tui.modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmScreen(title, explain, run), answered)

    async def _go_to(self, problem: DraftProblem) -> None:
        if problem.block is None:
            parts = [*self.query(ConsensusFields), *self.query(GoldFields)]
            if any(part.focus_field(problem.field) for part in parts):
                return
            if not self.query_one(QueueFields).focus_field(problem.field):
                self.query_one("#queue-description").focus()
            return
        if problem.block != self.edit.selected:
            await self._select(problem.block)
        self._focus_setting(problem.field)

    @work(exclusive=True, group="editor-save")
    async def _send(self) -> None:
        client = self.session.client
        self.sending = True
        try:
            saved = await self.edit.send(client, None if self.queue is None else self.queue.id)
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
        self.edit.mark_saved()
        done = "created" if self.queue is None else "saved"
        self.notify(f"Queue {saved.name!r} {done}.", title="Saved")
        self.dismiss()

    def _refused(self, problems: list[Problem]) -> None:
        self.edit.problems = [located(p) for p in problems]
        self._show_problems()
        if self.edit.problems:
            self.call_later(self._go_to, self.edit.problems[0])

    def action_leave(self) -> None:
        if not self.edit.dirty:
            self.dismiss()
            return
        explain = "What you changed in this queue has not been saved."
        self._ask("Discard your changes?", explain, "Discard", self.dismiss)
