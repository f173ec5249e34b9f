"""Review: a completed task's inputs on one side, the worker's answers in their own form on the
other, who did it and how long it took above; one key per verdict, the next review already there.

It is the worker's loop (`WorkScreen`) on review claims (`tui/review/review_session.py`): the claim ahead,
the key discipline (`tui/keys/ordered_keys.py`, `tui/base.py`), the journal and the undo grace are that
screen's. What differs: a review opens read-only, with nothing focused, and the verdict keys live —
`a` accepts, `x` sends it back to be redone (asking for a note), `n` writes a note for any verdict,
`e` or `tab` starts editing. Editing, the worker's key rules apply (letters are text in a field, a
digit picks an option; `escape` leaves the field, and the verdict keys act again); `enter` after a
change corrects, the changed fields marked and the worker's values beside them.
"""

from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from queuedesk.api.models import AssignedTask, Block
from queuedesk.api.terminal_text import shown_on_one_line
from queuedesk.tui.base import styles
from queuedesk.tui.clock import duration
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.forms.options import OptionsEditor
from queuedesk.tui.present import block_value, short_time
from queuedesk.tui.review import review_rules as said
from queuedesk.tui.review.review_rules import VERDICT_KEYS, changes, review_applies
from queuedesk.tui.review.review_session import ReviewSession, Verdict
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.widgets.review_status import ReviewStatus
from queuedesk.tui.work.task_rules import held_message

COUNT_EVERY_TICKS = 15  # the reviews left are asked of the server every 15 s (and after each verdict)
CHANGED = "-review-changed"


class ReviewScreen(WorkScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss", "review.tcss")
    AUTO_FOCUS = ""  # read-only until `e`: nothing takes the focus by itself (a modal closing)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "verdict('accept')", "Accept", priority=True, id="review.accept"),
        Binding("x", "verdict('redo')", "Redo", priority=True, id="review.redo"),
        Binding("e", "edit", "Edit", priority=True, id="review.edit"),
        Binding("n", "note", "Note", priority=True, id="review.note"),
        # Said on screen where they apply (the details above the form), kept out of a full footer:
        Binding("enter", "submit", "Correct", show=False, priority=True, id="review.correct"),
        Binding("s", "skip", "Skip", show=False, priority=True, id="review.skip"),
        Binding("escape", "escape", "Back", show=False, priority=True, id="review.back"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.editing = False
        self.last_verdict: tuple[int, Verdict] | None = None
        self._ticks = 0

    LOOP = "review"

    def compose_beside_the_task(self) -> ComposeResult:
        yield Static("", id="review-meta", markup=False)

    def status_line(self) -> Widget:
        return ReviewStatus("", id="work-status")

    @property
    def work_session(self) -> ReviewSession:
        if self._work is None:
            self._work = ReviewSession(
                self.session.client, self.queue.id, self.queue.name, self._outbox, self.clock.now()
            )
        assert isinstance(self._work, ReviewSession)
        return self._work

    @property
    def review(self) -> ReviewSession:
        return self.work_session

    # --- the review on screen ----------------------------------------------------------------------

    def _show(self, task: AssignedTask, values: dict[str, Any] | None = None, seconds: float = 0.0) -> None:
        # A review opens read-only; one brought back by undo with a correction opens editing.
        self.editing = values is not None and bool(changes(values, task.data))
        self.query_one("#review-meta").display = False  # shown with the task's keys live (`_painted`)
        super()._show(task, values, seconds)

    def _painted(self, task: AssignedTask) -> None:
        super()._painted(task)
        if self.ready and self.current is task:
            self.query_one("#review-meta").display = True
            self._mark_changes()

    def _wait(self, text: str) -> None:
        self.query_one("#review-meta").display = False
        super()._wait(text)

    def _focus_form(self) -> None:
        if self.editing:
            super()._focus_form()
        else:
            self.set_focus(None)  # read-only: keys go to the screen, where the verdict keys are
            self._show_meta()

    def _resume(self) -> None:
        # Back where the reviewer was: out of the fields (read-only, or after escape) stays so.
        if self._refocus is None and self.current is not None and not self.leaving:
            self.ready = True
            self._show_meta()
            return
        super()._resume()

    def _start_editing(self) -> None:
        self.editing = True
        self._show_meta()
        super()._focus_form()
        self._show_status()

    def move_focus(self, step: int) -> None:
        if self.ready and not self.editing and self.current is not None:
            self._start_editing()  # `tab` on a read-only review: edit, at its first field
            return
        super().move_focus(step)

    def action_escape(self) -> None:
        """`escape` in a field: out of it, edits kept, the verdict keys live again (a worker's
        `escape` on a choice would leave the screen); elsewhere as on the work screen."""
        form, focused = self.form, self.focused
        in_form = form is not None and focused is not None and (focused is form or form in focused.ancestors)
        if self.ready and self.editing and in_form:
            self.set_focus(None)
            self._show_meta()
            return
        super().action_escape()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self.ready and not self.editing and self.form is not None and self.form in event.widget.ancestors:
            self.editing = True  # a click in a field
        if self.ready:
            self._show_meta()

    def on_mount(self) -> None:
        super().on_mount()
        self.submit_on_choice = False  # a choice here is an edit, never a verdict

    @on(TaskForm.Changed)
    def _edited(self) -> None:
        self._mark_changes()

    def _mark_changes(self) -> None:
        form, task = self.form, self.current
        if form is None or task is None:
            return
        changed = set(changes(form.values(), task.data))
        for editor in form.editors():
            editor.set_class(editor.block.id in changed, CHANGED)
        self._show_meta()

    def _show_meta(self) -> None:
        task, form = self.current, self.form
        if task is None or self.detail is None or not self.is_attached:
            return
        done = self.review.work_done(task)
        took = "" if done.seconds is None else f" in {duration(done.seconds)}"
        lines = [
            f"Task {task.id} · done by {done.by}{took} · completed {short_time(task.completed_at, self.clock)}"
        ]
        lines.append(said.keys_line(editing=self.editing, in_a_field=self.focused is not None))
        note = self.review.notes.get(task.id)
        if note:
            lines.append(f"Note: {note}")
        if form is not None:
            blocks = {block.id: block for block in self.detail.data}
            values = form.values()
            for block_id in changes(values, task.data):
                lines.append(self._change_line(blocks[block_id], values[block_id], task.data.get(block_id)))
        self.query_one("#review-meta", Static).update(shown_on_one_line("\n".join(lines)).replace("␊", "\n"))

    @staticmethod
    def _change_line(block: Block, now: Any, was: Any) -> str:
        return f"Changed {block.name}: {block_value(block, now)} (was {block_value(block, was)})"

    # --- verdicts ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return review_applies(self.rules, action, parameters, self, editing=self.editing)

    def options_take(self, key: str) -> bool:
        focused = self.focused
        return isinstance(focused, OptionsEditor) and focused.takes_key(key)

    def action_verdict(self, verdict: Verdict) -> None:
        task = self.current
        if not self.ready or task is None:
            self._not_applied(VERDICT_KEYS[verdict])
            return
        if verdict == "redo" and not self.review.notes.get(task.id):
            self._decide(lambda: self._ask_note(task, then=verdict))
            return
        self._decide(lambda: self._judge(task, verdict))

    def action_edit(self) -> None:
        if not self.ready or self.current is None:
            self._not_applied(VERDICT_KEYS["edit"])
            return
        self._start_editing()

    def action_note(self) -> None:
        task = self.current
        if not self.ready or task is None:
            self._not_applied(VERDICT_KEYS["note"])
            return
        self._decide(lambda: self._ask_note(task, then=None))

    def _ask_note(self, task: AssignedTask, then: Verdict | None) -> None:
        if self.current is not task or self.leaving:
            return
        from queuedesk.tui.modals.review_note import ReviewNoteScreen

        title, explain = said.note_dialog(then)

        def written(note: str | None) -> None:
            if note is not None:
                if note:
                    self.review.notes[task.id] = note
                else:
                    self.review.notes.pop(task.id, None)
            if then is not None and note:
                self._judge(task, then)
                return
            if then is not None:
                self.message = said.REDO_NEEDS_A_NOTE
            self._resume()
            self._show_meta()
            self._show_status()

        self.app.push_screen(ReviewNoteScreen(title, explain, self.review.notes.get(task.id, "")), written)

    def _submit(self, form: TaskForm, task: AssignedTask) -> None:
        """`enter`: correct, once a value was changed."""
        if self.current is not task or self.leaving:
            return
        form.commit_keys()
        if not changes(form.values(), task.data):
            self.submitted_at = None
            self.message = said.NOTHING_CHANGED
            self._resume()
            self._show_status()
            return
        problems = form.problems()
        if problems:
            self.submitted_at = None
            form.show_problems(problems)
            self.message = said.NOT_CORRECTED
            self._resume()
            self._show_status()
            return
        self._judge(task, "correct")

    def _judge(self, task: AssignedTask, verdict: Verdict) -> None:
        """Hold the verdict (sent after the undo grace); the next review is shown."""
        form = self.form
        if self.current is not task or self.leaving or form is None:
            return
        form.commit_keys()
        values = form.values()
        if verdict == "accept" and changes(values, task.data):
            self.message = said.CHANGED_BEFORE_ACCEPT
            self._resume()
            self._show_status()
            return
        shown = values if verdict == "correct" else {block_id: task.data.get(block_id) for block_id in values}
        self.review.give(task, verdict, shown, self.clock.now())
        self.last_verdict = (task.id, verdict)
        self.message = held_message(task.id)
        self._advance()
        self._count_left()

    # --- reviews left ------------------------------------------------------------------------------

    def _tick(self) -> None:
        if self._ticks % COUNT_EVERY_TICKS == 0:
            self._count_left()
        self._ticks += 1
        super()._tick()

    @work(group="review-count", exclusive=True, exit_on_error=False)
    async def _count_left(self) -> None:
        given_before = self.review.given_since_count
        try:
            stats = await self.session.client.stats(self.queue.id)
        except Exception:  # the count is a nicety: the next tick asks again
            return
        self.review.counted(stats.reviews_pending, given_before)
        self._show_status()

    # --- status ------------------------------------------------------------------------------------

    def _show_status(self) -> None:
        if not self.is_attached:
            return
        self._update_held_message()
        self.query_one(ReviewStatus).show(
            self.review,
            self.clock.now(),
            unsent=self.qd.outbox.unsent if self.qd.outbox is not None else 0,
            message=said.verdict_said(self.rules, self.last_verdict),
        )

    def on_key(self, event: events.Key) -> None:
        super().on_key(event)
        if self.ready and not self.editing and event.is_printable:
            self.refusal = said.read_only_refusal(event.key)
            self._show_status()
