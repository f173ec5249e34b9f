"""Review: a completed task's inputs on one side, the worker's answers in their own form on the
other, who did it and how long it took above; one key per verdict, the next review already there.

It composes the work screen's parts on review claims (`tui/review/review_session.py`): the task pane
and its loop (`panes/task_pane.py`, `panes/task_loop.py`). A review opens read-only, nothing focused:
`a` accepts, `x` sends it back to be redone (asking for a note), `n` writes a note, `e` or `tab` edits.
Editing, the worker's keys apply (`escape` leaves the field, and the verdict keys act again); `enter`
after a change corrects. Which key applies when, and what is said: `tui/review/review_rules.py`.

A disputed task (B21) comes first: its answers side by side above the form, which starts from the
most common answers; `A`, `B`... take one answer whole, `e` edits, `enter` decides
(`tui/review/dispute_rules.py`).
"""

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from queuedesk.api.models import AssignedTask, Block, Queue
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.panes.task_loop import TaskLoop, outbox_of
from queuedesk.tui.panes.task_pane import TASK_KEYS, TaskPane, keys_over
from queuedesk.tui.review import review_rules as said
from queuedesk.tui.review.dispute_rules import ANSWER_KEYS
from queuedesk.tui.review.review_session import ReviewSession, Verdict, dispute_of
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.review_meta import ReviewMeta
from queuedesk.tui.widgets.review_status import ReviewStatus
from queuedesk.tui.widgets.steady_footer import SteadyFooter
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.task_rules import TaskRules, held_message

TAKE = Binding.Group("Take an answer", compact=True)  # A, B... on a disputed task, one footer entry
ANSWER_BINDINGS = [
    Binding(k, f"take_answer('{k}')", f"Take answer {k}", group=TAKE, priority=True, id=f"review.take_{k}")
    for k in ANSWER_KEYS
]


class ReviewScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss", "review.tcss")
    AUTO_FOCUS = ""  # read-only until `e`: nothing takes the focus by itself (a modal closing)
    # The work screen's keys (`TASK_KEYS`), with the verdicts' over them; those that do not apply to a
    # review (keep draft, submit on choice, the choice keys) are turned off by `check_action`.
    BINDINGS: ClassVar[list[BindingType]] = keys_over(
        TASK_KEYS,
        [
            Binding("a", "verdict('accept')", "Accept", priority=True, id="review.accept"),
            Binding("x", "verdict('redo')", "Redo", priority=True, id="review.redo"),
            Binding("e", "edit", "Edit", priority=True, id="review.edit"),
            Binding("n", "note", "Note", priority=True, id="review.note"),
            # Said on screen where they apply (the details above the form), kept out of a full footer:
            Binding("enter", "submit", "Correct", show=False, priority=True, id="review.correct"),
            Binding("s", "skip", "Skip", show=False, priority=True, id="review.skip"),
            Binding("escape", "escape", "Back", show=False, priority=True, id="review.back"),
            *ANSWER_BINDINGS,
        ],
    )

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        client, now = self.session.client, self.clock.now()
        self.review = ReviewSession(client, queue.id, queue.name, outbox_of(self), now, self._blocks)
        self.status = ReviewStatus("", id="work-status")
        self.pane = TaskPane(
            self, self.review, self.status, opens_read_only=True, on_shown=self._mark_changes
        )
        self.meta = ReviewMeta("", id="review-meta", markup=False)
        self.pane.beside = self.meta
        self.loop = TaskLoop(self, queue, self.review, self.pane)
        self._dispute_keys = False  # the footer shows a dispute's keys

    def compose(self) -> ComposeResult:
        yield ContextBar(f"{self.queue.name} / review", id="context")
        yield self.loop.instructions
        yield self.pane
        yield self.status
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.loop.start()

    def _blocks(self) -> list[Block]:
        return [] if self.pane.detail is None else self.pane.detail.data

    @property
    def answers(self) -> int:
        """The answers of the task on screen when it is disputed (B21), else 0."""
        dispute = dispute_of(self.current)
        return 0 if dispute is None else len(dispute.answers)

    def on_unmount(self) -> None:
        self.loop.stop()

    @property
    def rules(self) -> TaskRules:
        return self.pane.rules

    @property
    def form(self) -> TaskForm | None:
        return self.pane.form

    @property
    def ready(self) -> bool:
        return self.pane.ready

    @property
    def current(self) -> AssignedTask | None:
        return self.review.current

    @property
    def last_submission(self) -> tuple[str, AssignedTask] | None:
        return self.review.last_submission

    def take_back(self, entry: Entry) -> None:
        self.loop.take_back(entry)

    async def leave(self, *, send: bool = True) -> None:
        await self.loop.leave(send=send)

    def field_keys(self) -> list[tuple[str, str]]:
        return self.pane.field_keys()

    def refuses_key(self, event: events.Key) -> bool:
        return self.loop.refuses_key(event)

    def on_key(self, event: events.Key) -> None:
        self.pane.refuses_unready_key(event)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return said.review_applies(
            self.rules, action, parameters, self.pane, editing=self.pane.editing, answers=self.answers
        )

    def move_focus(self, step: int) -> None:
        if self.ready and not self.pane.editing and self.current is not None:
            self._start_editing()  # `tab` on a read-only review: edit, at its first field
        elif not self.ready:  # no review on screen: `tab` would focus the form of the one just judged
            self.pane.not_applied("“tab”" if step > 0 else "“shift+tab”")
        else:
            super().move_focus(step)

    def on_screen_suspend(self) -> None:
        self.loop.suspended()

    def on_screen_resume(self) -> None:
        self.loop.resumed()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if (
            self.ready
            and not self.pane.editing
            and self.form is not None
            and self.form in event.widget.ancestors
        ):
            self.pane.editing = True  # a click in a field
        if self.ready:
            self._show_meta()

    @on(TaskForm.Changed)
    def _edited(self) -> None:
        self.loop.worker_active()
        form = self.form
        if form is not None and self.rules.typed(form.problems):
            self.pane.show_status()
        self._mark_changes()

    def _mark_changes(self) -> None:
        form, task = self.form, self.current
        if (dispute := bool(self.answers)) != self._dispute_keys:
            self._dispute_keys = dispute
            self.refresh_bindings()  # a dispute has keys of its own, and not accept or redo
        if form is None or task is None:
            return
        changed = set(said.changes(form.values(), self.review.starting_values(task)))
        for editor in form.editors():
            editor.set_class(editor.block.id in changed, said.CHANGED)
        self._show_meta()

    def _show_meta(self) -> None:
        task, form, detail = self.current, self.form, self.pane.detail
        if task is not None and detail is not None and self.is_attached:
            values = form.values() if form is not None else {}
            editing, in_a_field = self.pane.editing, self.focused is not None
            self.meta.show(
                self.review,
                task,
                detail.data,
                values,
                editing=editing,
                in_a_field=in_a_field,
                clock=self.clock,
            )

    def _start_editing(self) -> None:
        self.pane.editing = True
        self._show_meta()
        self.pane.focus_task()
        self.pane.show_status()

    def action_verdict(self, verdict: Verdict) -> None:
        task = self.current
        if not self.ready or task is None:
            self.pane.not_applied(said.VERDICT_KEYS[verdict])
        elif verdict == "redo" and not self.review.notes.get(task.id):
            self.pane.decide(lambda: self._ask_note(task, then=verdict))
        else:
            self.pane.decide(lambda: self._judge(task, verdict))

    def action_edit(self) -> None:
        if not self.ready or self.current is None:
            self.pane.not_applied(said.VERDICT_KEYS["edit"])
        else:
            self._start_editing()

    def action_note(self) -> None:
        task = self.current
        if not self.ready or task is None:
            self.pane.not_applied(said.VERDICT_KEYS["note"])
        else:
            self.pane.decide(lambda: self._ask_note(task, then=None))

    def _ask_note(self, task: AssignedTask, then: Verdict | None) -> None:
        if self.current is not task or self.review.leaving:
            return
        from queuedesk.tui.modals.review_note import ReviewNoteScreen

        def written(note: str | None) -> None:
            self.review.write_note(task.id, note)
            if then is not None and note:
                self._judge(task, then)
                return
            if then is not None:
                self.rules.message = said.REDO_NEEDS_A_NOTE
            self.pane.resume()
            self._show_meta()
            self.pane.show_status()

        title, explain = said.note_dialog(then)
        self.app.push_screen(ReviewNoteScreen(title, explain, self.review.notes.get(task.id, "")), written)

    def action_submit(self) -> None:
        """`enter`: correct, once a value was changed."""
        form, task = self.form, self.current
        if not self.ready or form is None or task is None:
            self.pane.not_applied("Enter")
        elif not self.rules.refuses_enter(self.qd.keys_read, task.id):
            self.rules.submitting(self.clock.now(), self.qd.keys_read)
            self.pane.decide(lambda: self._correct(form, task))
        else:
            self.pane.show_status()

    def _correct(self, form: TaskForm, task: AssignedTask) -> None:
        """Correct the task (after a change), or decide it when it is disputed (B21)."""
        if self.current is not task or self.review.leaving:
            return
        form.commit_keys()
        deciding = dispute_of(task) is not None
        changed = deciding or said.changes(form.values(), task.data)
        problems = form.problems() if changed else {}
        if not changed or problems:
            refused = said.NOT_DECIDED if deciding else said.NOT_CORRECTED
            self.rules.submit_refused(refused if problems else said.NOTHING_CHANGED)
            if problems:
                form.show_problems(problems)
            self.pane.resume()
            self.pane.show_status()
            return
        self._judge(task, "decide" if deciding else "correct")

    def _judge(self, task: AssignedTask, verdict: Verdict) -> None:
        """Hold the verdict (sent after the undo grace); the next review is shown."""
        form = self.form
        if self.current is not task or self.review.leaving or form is None:
            return
        form.commit_keys()
        shown = said.verdict_values(verdict, form.values(), task.data)
        if shown is None:
            self.rules.message = said.CHANGED_BEFORE_ACCEPT
            self.pane.resume()
            self.pane.show_status()
            return
        self.review.give(task, verdict, shown, self.clock.now())
        self.rules.message = held_message(task.id)
        self.loop.advance()
        self.loop.recount()

    def action_take_answer(self, key: str) -> None:
        """A, B...: the form takes one answer of a disputed task whole (then edit, or enter decides)."""
        form, task = self.form, self.current
        values = None if task is None or not self.ready else self.review.answer_values(task, key)
        if form is None or task is None or values is None:
            self.pane.not_applied(f"“{key}”")
            return
        form.set_data({**task.data, **values})
        self.rules.message = f"Answer {key} taken: enter decides with it, e edits it first."
        self._mark_changes()
        self.pane.show_status()

    def action_submit_anywhere(self) -> None:
        self.action_submit()

    def action_skip(self, key: str = "“s”") -> None:
        self.loop.skip(key)

    def action_undo(self) -> None:
        self.loop.undo()

    def action_escape(self) -> None:
        """`escape` in a field: out of it, edits kept, the verdict keys live again (a worker's
        `escape` on a choice would leave the screen); elsewhere as on the work screen."""
        if self.ready and self.pane.editing and self.pane.in_form():
            self.set_focus(None)
            self._show_meta()
        else:
            self.loop.escape()

    def action_zoom(self) -> None:
        self.pane.zoom()

    def action_open_image(self) -> None:
        self.pane.open_image()

    def action_scroll_task(self, direction: int) -> None:
        self.pane.scroll_task(direction)

    def action_toggle_instructions(self) -> None:
        self.loop.instructions.toggle()

    def action_anywhere(self, action: str) -> None:
        """f6 to f9: the single-letter actions, also from inside a text field."""
        {"skip": lambda: self.action_skip("Skip"), "undo": self.action_undo, "zoom": self.action_zoom}.get(
            action, self.action_open_image
        )()
