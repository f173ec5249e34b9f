"""Work: the task on one side, the form on the other; one key per decision, the next task already there.

The screen is its keys: the task pane shows the task (`panes/task_pane.py`), the loop claims, shows
and gives back (`panes/task_loop.py`), the session holds and counts (`tui/work/work_session.py`), the
rules say which key applies and what is said (`tui/work/task_rules.py`).
Keys (the one mechanism of `tui/keys/ordered_keys.py`): every decision (submit, skip, undo, keep draft,
leave) is a priority binding, read in the order typed; it takes the focus away at once and acts once
the fields have handled every key typed before it (`after_keys`). A key typed after it, before the
next task is painted, reaches the screen and is refused out loud; the next task's first field takes
the focus once it is painted. A second `enter` right after a submit is refused too (`TaskRules.second_enter`).
"""

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from queuedesk.api.models import AssignedTask, Queue
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.panes.task_loop import TaskLoop, outbox_of
from queuedesk.tui.panes.task_pane import TASK_KEYS, TaskPane
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.steady_footer import SteadyFooter
from queuedesk.tui.widgets.work_status import WorkStatus
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.task_rules import TaskRules, held_message, not_sent
from queuedesk.tui.work.work_session import WorkSession


class WorkScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss")
    # Priority bindings: they act in the order the keys were typed (see the module's docstring).
    BINDINGS: ClassVar[list[BindingType]] = [
        *TASK_KEYS,
        # The one-line text field's new line changes the field the keys after it go to: read in order.
        Binding("ctrl+n", "new_line", "New line", show=False, priority=True),
    ]

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        self.work_session = WorkSession(
            self.session.client, queue.id, queue.name, outbox_of(self), self.clock.now()
        )
        self.work_session.look = self.session.client.task  # the task on screen looked at (a flush)
        self._status = WorkStatus("", id="work-status")
        self.pane = TaskPane(self, self.work_session, self._status)
        self.loop = TaskLoop(self, queue, self.work_session, self.pane)

    def compose(self) -> ComposeResult:
        yield ContextBar(f"{self.queue.name} / work", id="context")
        yield self.loop.instructions
        yield self.pane
        yield self._status
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.rules.submit_on_choice = self.qd.settings.submit_on_choice
        self.loop.start()

    def on_unmount(self) -> None:
        self.loop.stop()

    # --- what the app and the tests read ---------------------------------------------------------------

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
        return self.work_session.current

    @property
    def ahead(self) -> list[AssignedTask]:
        return self.work_session.ahead

    @property
    def last_submission(self) -> tuple[str, AssignedTask] | None:
        return self.work_session.last_submission

    def take_back(self, entry: Entry) -> None:
        self.loop.take_back(entry)

    async def leave(self, *, send: bool = True) -> None:
        await self.loop.leave(send=send)

    def field_keys(self) -> list[tuple[str, str]]:
        return self.pane.field_keys()

    # --- keys ------------------------------------------------------------------------------------------

    def refuses_key(self, event: events.Key) -> bool:
        """Asked by the app for every key it reads: one read before the task on screen was put there
        was meant for the one before (`TaskLoop.refuses_key`)."""
        return self.loop.refuses_key(event)

    def on_key(self, event: events.Key) -> None:
        self.pane.refuses_unready_key(event)

    def move_focus(self, step: int) -> None:
        if not self.pane.ready:  # no task on screen: `tab` would focus the form of the task just sent
            self.pane.not_applied("“tab”" if step > 0 else "“shift+tab”")
            return
        super().move_focus(step)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.rules.applies(action, parameters, self.pane)

    def on_screen_suspend(self) -> None:
        self.loop.suspended()

    def on_screen_resume(self) -> None:
        self.loop.resumed()

    @on(TaskForm.Changed)
    def _typed(self) -> None:
        # A text field keeps the keys typed into it: its changes are the worker's activity.
        self.loop.worker_active()
        form = self.form
        if form is not None and self.rules.typed(form.problems):
            self.pane.show_status()

    # --- decisions -------------------------------------------------------------------------------------

    def action_submit(self) -> None:
        form, task = self.form, self.current
        if not self.pane.ready or form is None or task is None:
            self.pane.not_applied("Enter")
            return
        if self.rules.refuses_enter(self.qd.keys_read, task.id):
            self.pane.show_status()
            return
        self.rules.submitting(self.clock.now(), self.qd.keys_read)
        self.pane.decide(lambda: self._submit(form, task))

    def action_new_line(self) -> None:
        self.pane.new_line()

    def action_submit_anywhere(self) -> None:
        """ctrl+j: submit, also from a multi-line field (where enter is a new line)."""
        self.action_submit()

    def action_choice_key(self, key: str) -> None:
        editor, form, task = self.pane.choice_editor(), self.form, self.current
        if editor is None or form is None or task is None:
            return

        def choose_and_submit() -> None:
            if self.current is not task:
                return
            self.rules.choice_by_key = True
            editor.type_key(key)
            self.rules.submitted_at = self.clock.now()
            self._submit(form, task)

        self.pane.decide(choose_and_submit)

    @on(BlockEditor.Chosen)
    def _chosen(self) -> None:
        if self.rules.choice_by_key:  # the choice key submitted already (`action_choice_key`)
            self.rules.choice_by_key = False
            return
        if self.rules.submit_on_choice and self.pane.one_selection():
            self.action_submit()  # a choice by other means (a click, more than ten options)

    def _submit(self, form: TaskForm, task: AssignedTask) -> None:
        """Send `task` with the form's values as every key typed before the submit left them."""
        if self.current is not task or self.work_session.leaving:
            return
        form.commit_keys()
        values = form.values()
        problems = form.problems()
        if problems:
            self.pane.resume()
            form.show_problems(problems)
            self.rules.submit_refused(not_sent(form.missing_required()))
            self.pane.show_status()
            return
        self.work_session.submit(task, values, self.clock.now())
        self.rules.message = held_message(task.id)
        self.loop.advance()

    def action_skip(self, key: str = "“s”") -> None:
        self.loop.skip(key)

    def action_undo(self) -> None:
        self.loop.undo()

    def action_release_draft(self) -> None:
        task, form = self.current, self.form
        if not self.pane.ready or task is None or form is None:
            self.pane.not_applied("Ctrl+s")
            return

        def release_draft() -> None:
            if self.current is not task or self.work_session.leaving:
                return
            form.commit_keys()
            self.work_session.counts.skipped += 1
            self.rules.message = f"Task {task.id} given back with your draft kept on it."
            self.loop.give_back(task, form.values())
            self.loop.advance()

        self.pane.decide(release_draft)

    def action_escape(self) -> None:
        self.loop.escape()

    # --- the task's pictures, content and instructions ---------------------------------------------------

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
        {
            "skip": lambda: self.action_skip("Skip"),
            "undo": self.action_undo,
            "zoom": self.action_zoom,
            "open_image": self.action_open_image,
        }[action]()

    def action_toggle_submit_on_choice(self) -> None:
        on = self.rules.submit_on_choice = not self.rules.submit_on_choice
        self.qd.remember("submit_on_choice", on)
        self.pane.say(f"Submit on choice {'on' if on else 'off'}. Kept for the next start.")
