"""Work: the task on one side, the form on the other; one key per decision, the next task already there.

The next task is claimed ahead (B4 with `exclude`) and its images fetched while the worker is on
this one, so after a submit it is on screen at once. Submissions wait out a short undo grace in the
outbox (on disk first); claims held here are heartbeated and given back when the worker leaves.
Keys (the one mechanism of `tui/keys/ordered_keys.py`): every decision (submit, skip, undo, keep draft,
leave) is a priority binding, read in the order typed; it takes the focus away at once and acts once
the fields have handled every key typed before it (`after_keys`). A key typed after it, before the
next task is painted, reaches the screen and is refused out loud; the next task's first field takes
the focus once it is painted. A second `enter` within `DOUBLE_ENTER_SECONDS` of a submit is refused
too, though the next task may already be there: it was meant for the task just sent. So is one with
no key between it and the submit's, read within `UNSEEN_SECONDS` of the next task being shown: an
app starved of the processor reads a double `enter` typed 80 ms apart further apart than that
window, and the task would go unseen and empty; a third `enter` sends it as it is.
"""

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.await_remove import AwaitRemove
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, LoadingIndicator, Static, TextArea

from queuedesk.api import errors
from queuedesk.api.models import AssignedTask, Queue, QueueDetail
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.clock import Cancellable
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.forms.options import OptionsEditor
from queuedesk.tui.keys.keys_read import key_time
from queuedesk.tui.widgets.context_bar import ContextBar
from queuedesk.tui.widgets.instructions import Instructions
from queuedesk.tui.widgets.steady_footer import SteadyFooter
from queuedesk.tui.widgets.work_status import WorkStatus
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.outbox import TASK_REMOVED, Outbox
from queuedesk.tui.work.work_session import WorkSession

SELECTION_TYPES = ("single_selection", "multiple_selection", "binary")
EMPTY_POLL_SECONDS = 5.0
MIN_HEARTBEAT_SECONDS = 5.0
DOUBLE_ENTER_SECONDS = 0.3
# How often the queue is read again while a task is on screen: an admin's change to its blocks
# reaches the form (after each task shown too), so the next submit is made on the queue as it is.
QUEUE_CHECK_SECONDS = 15.0
# Shorter than anyone reads a task and decides to send it untouched; longer than a loaded machine
# keeps a key typed after a submit's enter from the app (the typing fuzzer saw more than 0.3 s).
UNSEEN_SECONDS = 1.0
NOT_SENT = "Not sent:"
# Keys that act on no task on screen (leave, undo the last submission, help, quit): never refused.
KEYS_FOR_NO_TASK = frozenset(
    {"escape", "u", "f7", "f1", "question_mark", "ctrl+q", "ctrl+c", "f2", "ctrl+up", "ctrl+down"}
)
# Annotation blocks the worker fills that this app has no editor for yet: said before any claim.
NEEDS_ANOTHER_TOOL = {"bounding_boxes": "drawing boxes on the image"}
INSTRUCTIONS_FOLDED_BELOW = 40  # terminal rows: on a smaller one the instructions start folded
CHOICE_KEYS = (*"1234567890", "y", "n")


def held_message(task_id: int) -> str:
    return f"Task {task_id} sent in 5 s — u undoes."


def retried_message(task_id: int) -> str:
    return f"Task {task_id} not sent yet: the server did not answer; it is retried."


class WorkScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss")
    # Priority bindings: they act in the order the keys were typed (see the module's docstring).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Submit", priority=True, id="work.submit"),
        Binding("ctrl+j", "submit_anywhere", "Submit", show=False, priority=True, id="work.submit_anywhere"),
        Binding("s", "skip", "Skip", priority=True, id="work.skip"),
        Binding("u", "undo", "Undo", priority=True, id="work.undo"),
        Binding("z", "zoom", "Image", priority=True, id="work.zoom"),
        Binding("o", "open_image", "Open image", show=False, priority=True, id="work.open_image"),
        Binding("ctrl+s", "release_draft", "Keep draft", priority=True, id="work.release_draft"),
        # The same actions from inside a text field, where letters are text.
        # (Actions of their own: `check_action` turns the letters' off inside a field, not these.)
        Binding("f6", "anywhere('skip')", "Skip", show=False, priority=True, id="work.skip_anywhere"),
        Binding("f7", "anywhere('undo')", "Undo", show=False, priority=True, id="work.undo_anywhere"),
        Binding("f8", "anywhere('zoom')", "Image", show=False, priority=True, id="work.zoom_anywhere"),
        Binding(
            "f9",
            "anywhere('open_image')",
            "Open image",
            show=False,
            priority=True,
            id="work.open_image_anywhere",
        ),
        Binding("escape", "escape", "Back", priority=True, id="work.back"),
        # The task's content scrolls from anywhere, a field keeping the focus (its own keys stay its own).
        Binding("ctrl+down", "scroll_task(1)", "Scroll", priority=True, id="work.scroll_down"),
        Binding("ctrl+up", "scroll_task(-1)", "Scroll up", show=False, priority=True, id="work.scroll_up"),
        Binding(
            "f2", "toggle_instructions", "Instructions", show=False, priority=True, id="work.instructions"
        ),
        Binding(  # in the footer only where it applies (`check_action`), after Back: that one stays at 80 columns
            "ctrl+t",
            "toggle_submit_on_choice",
            "Submit on choice",
            priority=True,
            id="work.submit_on_choice",
        ),
        # With "submit on choice" the choosing key is the submitting key (`check_action` says when).
        *[Binding(key, f"choice_key('{key}')", show=False, priority=True) for key in CHOICE_KEYS],
    ]

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        self.detail: QueueDetail | None = None
        self.needs_another_tool = False  # a block no editor here can fill: only back (and help) apply
        self._work: WorkSession | None = None
        self.ready = False
        self.message = ""
        self.refusal = ""  # the last key refused (no task on screen for it), until the next decision
        self.submitted_at: datetime | None = None
        # The key read (KeysRead's own entry) that submitted last: the double-enter guard's first enter.
        self.submit_key: tuple[str, float] | None = None
        self.shown_at = 0.0  # when the task on screen was put there (on the keys' clock)
        self._choice_by_key = False  # a choice key submits: its `Chosen` message is no second submit
        self.submit_on_choice = False
        self.had_images = False
        self._refocus: Widget | None = None  # the field a decision took the focus from
        self._heartbeat: Cancellable | None = None
        self._ticks = 0
        self._poll: Cancellable | None = None
        # Kept, not queried: `check_action` reads the form for each binding whenever the footer or a
        # key asks, and a DOM query each time was most of a task's cost (bench/tui_work.py).
        self._form: TaskForm | None = None
        self._loading: LoadingIndicator | None = LoadingIndicator(id="work-loading")
        self._waiting = Static("", id="work-waiting", markup=False)
        self._status = WorkStatus("", id="work-status")

    LOOP = "work"  # the header's last word (the review screen says "review")

    def compose(self) -> ComposeResult:
        yield ContextBar(f"{self.queue.name} / {self.LOOP}", id="context")
        yield Instructions(
            "", key="f2", expanded=self.app.size.height >= INSTRUCTIONS_FOLDED_BELOW, id="work-instructions"
        )
        with Vertical(id="work-body"):
            if self._loading is not None:
                yield self._loading
            yield self._waiting
            yield from self.compose_beside_the_task()
        yield self.status_line()
        yield SteadyFooter()

    def compose_beside_the_task(self) -> ComposeResult:
        """What a screen built on this one shows in the task's body besides the task (nothing here)."""
        yield from ()

    def status_line(self) -> Widget:
        return self._status

    def on_mount(self) -> None:
        self.submit_on_choice = self.qd.settings.submit_on_choice
        self._waiting.display = False
        self.qd.outbox_changed.subscribe(self, lambda _: self._show_status(), immediate=True)
        self._tick()
        self._open()

    def on_unmount(self) -> None:
        for timer in (self._heartbeat, self._poll):
            if timer is not None:
                timer.stop()

    @property
    def _outbox(self) -> Outbox:
        outbox = self.qd.outbox
        if outbox is None:  # the app opens it with any session that can claim, before this screen
            raise RuntimeError("the work screen needs a session with an outbox")
        return outbox

    @property
    def work_session(self) -> WorkSession:
        """The tasks held and the counts, without the screen (`tui/work/work_session.py`)."""
        if self._work is None:
            self._work = WorkSession(
                self.session.client, self.queue.id, self.queue.name, self._outbox, self.clock.now()
            )
        return self._work

    @property
    def current(self) -> AssignedTask | None:
        """The task on screen (or being put there)."""
        return self.work_session.current

    @current.setter
    def current(self, task: AssignedTask | None) -> None:
        self.work_session.current = task

    @property
    def ahead(self) -> list[AssignedTask]:
        return self.work_session.ahead

    @property
    def last_submission(self) -> tuple[str, AssignedTask] | None:
        return self.work_session.last_submission

    @property
    def leaving(self) -> bool:
        return self._work is not None and self._work.leaving

    @property
    def form(self) -> TaskForm | None:
        return self._form

    # --- loading tasks -----------------------------------------------------------------------------

    @work(exclusive=True, group="work-open")
    async def _open(self) -> None:
        try:
            self.detail = await self.session.client.queue(self.queue.id)
        except Exception as exc:
            self.qd.report(exc, doing="Opening the queue for work")
            self.dismiss()
            return
        self.query_one(Instructions).update(self.detail.description)
        self.refresh_bindings()  # f2 applies once there are instructions
        unworkable = [b for b in self.detail.data if b.type in NEEDS_ANOTHER_TOOL]
        if unworkable:
            named = ", ".join(f"{b.name} ({NEEDS_ANOTHER_TOOL[b.type]})" for b in unworkable)
            self._drop_loading()
            waiting = self.query_one("#work-waiting", Static)
            waiting.update(
                f"This queue needs another tool: QueueDesk cannot fill {named} yet. No task was claimed, "
                "so none is held from other workers. escape goes back."
            )
            waiting.display = True
            self.needs_another_tool = True
            self.refresh_bindings()
            return
        await self._next()

    def _advance(self) -> None:
        """The next task: at once when it was claimed ahead, else claimed now (keys wait meanwhile)."""
        task = self.work_session.take_ahead()
        if task is not None:
            self._show(task)
            self._prefetch()
        else:
            self._set_ready(False)
            self.run_worker(self._next(), group="work-open", exclusive=True, exit_on_error=False)

    async def _next(self) -> None:
        """Show the task claimed ahead, or claim one; then claim the one after it."""
        self._set_ready(False)
        try:
            task, held = await self.work_session.next_task()
        except errors.Conflict as exc:
            if exc.code == "claim_limit":
                # Our own claims fill the limit: finish the ones waiting in the outbox first.
                task, held = None, 0
                self.message = "Waiting for your last submissions to reach the server…"
            else:
                raise
        except Exception as exc:
            self._wait(f"Could not claim a task: {str(exc).rstrip('.')}. Retrying in a few seconds.")
            self.qd.report(exc, doing="Claiming a task")
            return
        if task is None:
            left = await self.work_session.count_left() if self.work_session.given_back else None
            if held:
                self._wait(
                    f"All {held} open tasks are being worked on by others. Waiting for one to come back…"
                )
            elif left:
                self._wait(
                    f"Only tasks you skipped are left ({left}). They are not offered again in this "
                    "session: escape, then w, to work on them. New tasks will show here as they arrive."
                )
            else:
                self._wait("The queue is empty. New tasks will show here as soon as they arrive.")
            return
        self._show(task)
        self._prefetch()

    def _wait(self, text: str) -> None:
        self.current = None
        waiting = self._waiting
        waiting.update(text)
        waiting.display = True
        self._drop_loading()
        form = self.form
        if form is not None:
            form.display = False
        self._show_status()
        self._stop_polling()
        self._poll = self.clock.call_later(self, EMPTY_POLL_SECONDS, self._poll_again)

    def _stop_polling(self) -> None:
        if self._poll is not None:
            self._poll.stop()
            self._poll = None

    def _poll_again(self) -> None:
        self._poll = None
        if self.current is None and not self.leaving:
            self.run_worker(self._next(), group="work-open", exclusive=True, exit_on_error=False)

    @work(group="work-prefetch", exit_on_error=False)
    async def _prefetch(self) -> None:
        # Not exclusive: a claim cancelled half way may leave a task claimed that nobody here knows of.
        task = await self.work_session.claim_ahead()
        if task is not None:
            self._warm_images(task)
        self.check_queue()
        await self.work_session.count_left()  # for the status line (after the claim: it counts less)
        self._show_status()

    def _warm_images(self, task: AssignedTask) -> None:
        if self.detail is None:
            return
        from queuedesk.tui.widgets.image_view import fetcher_for

        fetcher = fetcher_for(self)
        for block in self.detail.data:
            value = task.data.get(block.id)
            if block.type == "image" and isinstance(value, str) and value:
                fetcher.prefetch(value)

    def _show(self, task: AssignedTask, values: dict[str, Any] | None = None, seconds: float = 0.0) -> None:
        """Put `task` on screen (`seconds` already spent on it); it takes keys once painted
        (`_painted`), those before are refused."""
        assert self.detail is not None
        self._stop_polling()
        self._set_ready(False)
        draft = self.work_session.shown(task, self.clock.now(), seconds)
        self.shown_at = key_time()  # keys read before this moment are not for this task
        data = {**task.data, **draft, **(values or {})}
        if task.draft and values is None:
            self.notify(
                f"Your draft on task {task.id} is filled in again: what you entered when you gave it back.",
                title="Draft restored",
                timeout=6,
            )
        self._drop_loading()
        self._waiting.display = False
        form = self.form
        if form is None:
            form = self._form = TaskForm(self.detail.data, data, mode="work")
            self.run_worker(self._paint_once_mounted(self.query_one("#work-body").mount(form), task))
        else:
            form.display = True
            form.set_data(data)
            self.app.call_later(self._painted, task)
        self._schedule_heartbeat()
        has_images = bool(form.image_urls())
        if has_images != self.had_images:
            self.had_images = has_images
            self.refresh_bindings()  # z and o come and go with the task's pictures
        self._show_status()

    def _drop_loading(self) -> None:
        # Removed, not hidden: a hidden indicator still animates, and repaints cost every frame.
        if self._loading is not None:
            self._loading.remove()
            self._loading = None

    async def _paint_once_mounted(self, mounting: Awaitable[object], task: AssignedTask) -> None:
        await mounting  # the form's fields exist: the first one can take the focus
        self.app.call_later(self._painted, task)

    def _painted(self, task: AssignedTask) -> None:
        """The task is on screen: from now on keys are for it; its first field has the focus.

        Run from the app's own queue (`app.call_later`), behind the keys it has already read: those
        were typed before the task was shown and are refused. Not after the next refresh: the frame
        showing the task can be on the terminal a long moment before such a callback runs (seen in
        tmux: a worker's key 60 ms after the paint was refused)."""
        if self.current is not task or self.leaving:
            return
        self._set_ready(True)
        self._focus_form()  # (the focus change refreshes the footer's keys: no refresh_bindings here)

    def _focus_form(self) -> None:
        form = self.form
        if form is None:
            return
        # A task brought back by undo has its choice made: the focus goes to the first required
        # block anyway, where a worker changes their mind, not to a free-text field below it.
        required = [e for e in form.editors() if e.block.is_required]
        if not (required and required[0].focus_field()):
            form.focus_first_editable()

    def _set_ready(self, ready: bool) -> None:
        # Not `form.disabled`: toggling it restyles every editor (~0.1 s a task). Without a task on
        # screen the focus leaves the form, so keys reach `on_key` here and are refused out loud.
        self.ready = ready
        if not ready:
            self.set_focus(None)

    def move_focus(self, step: int) -> None:
        if not self.ready:  # no task on screen: `tab` would focus the form of the task just sent
            self._not_applied("“tab”" if step > 0 else "“shift+tab”")
            return
        super().move_focus(step)

    def _decide(self, then: Callable[[], object]) -> None:
        """A decision key was read: keys typed after it are not for this task (the focus goes), and
        `then` runs once the fields have handled every key typed before it."""
        self._refocus = self.focused
        self.refusal = ""
        self._set_ready(False)
        self.after_keys(then)

    def _resume(self) -> None:
        """A decision that did not end the task (refused values, nothing to undo): keys for it again."""
        if self.current is None or self.leaving:
            return
        self.ready = True
        back = self._refocus
        if back is not None and back.is_attached and back.focusable:
            self.set_focus(back)
        else:
            self._focus_form()

    # --- heartbeats --------------------------------------------------------------------------------

    def _schedule_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
        delay = self.work_session.heartbeat_delay(self.clock.now(), MIN_HEARTBEAT_SECONDS)
        if delay is not None:
            self._heartbeat = self.clock.call_later(self, delay, self._beat)

    def _beat(self) -> None:
        self._heartbeat = None
        self.run_worker(self._renew(), group="work-heartbeat", exit_on_error=False)

    async def _renew(self) -> None:
        await self.work_session.give_back_ahead_when_away(self.clock.now())
        for task in await self.work_session.renew():
            if self.current is task:
                why = (
                    f"Task {task.id}: {TASK_REMOVED}."
                    if task.id in self.work_session.removed
                    else f"Task {task.id} is no longer yours (its lease ran out and someone else took it)."
                )
                self.notify(
                    f"{why} Here is the next one.",
                    title="Task lost",
                    severity="warning",
                    timeout=8,
                )
                self.current = None
                await self._next()
        self._schedule_heartbeat()

    # --- keys --------------------------------------------------------------------------------------

    def refuses_key(self, event: events.Key) -> bool:
        """Asked by the app for every key it reads, before routing it: a key read before the task on
        screen was put there, handled only now (a burst, a stall), was meant for the one before.
        Every key read counts as the worker's activity (`tab` too, which no field sees)."""
        self._worker_active()
        if (
            self.leaving
            or self.current is None
            or self.qd.keys_read.typed_by(event.time) >= self.shown_at
            or event.key in KEYS_FOR_NO_TASK
        ):
            return False
        self.refusal = f"“{event.key}” was not applied: no task was on screen yet."
        self._show_status()
        return True

    def on_key(self, event: events.Key) -> None:
        # Keys reach the screen itself while no field has the focus: no task is on screen to take them.
        if not self.ready and (event.is_printable or event.key == "enter") and not self.leaving:
            event.stop()
            event.prevent_default()
            self.refusal = f"“{event.key}” was not applied: no task was on screen yet."
            self._show_status()

    def _in_text_field(self) -> bool:
        return isinstance(self.focused, Input | TextArea)

    def _choice_editor(self) -> OptionsEditor | None:
        """The editor a choice key submits from ("submit on choice": the task's one selection)."""
        form, focused = self.form, self.focused
        if form is None or not self.ready or not isinstance(focused, OptionsEditor):
            return None
        if not self._submits_on_choice(form) or focused.filtering or focused.count > 10:
            return None
        return focused

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.needs_another_tool and action not in ("escape", "toggle_instructions"):
            return False
        if action == "toggle_submit_on_choice":
            form = self.form
            editors = form.editors() if form is not None else []
            return len(editors) == 1 and editors[0].block.type in SELECTION_TYPES
        if action == "toggle_instructions":
            return self.detail is not None and bool(self.detail.description.strip())
        if action == "choice_key":
            editor = self._choice_editor()
            return editor is not None and editor.takes_key(str(parameters[0]))
        if action == "submit" and isinstance(self.focused, TextArea | Input):
            # A new line in a multi-line field; the options' filter picks with enter. (ctrl+j submits.)
            return not (isinstance(self.focused, TextArea) or self.focused.has_class("option-filter"))
        if action in ("zoom", "open_image") or (
            action == "anywhere" and parameters and parameters[0] in ("zoom", "open_image")
        ):
            form = self.form
            if form is None or not form.image_urls():
                return False
        # Letters are text inside a field; f6 to f9 do the same from anywhere.
        return not (action in ("skip", "undo", "zoom", "open_image") and self._in_text_field())

    def action_scroll_task(self, direction: int) -> None:
        """A page of the task's content down (1) or up (-1): its own pane, else the form's."""
        form = self.form
        if form is None:
            return
        pane = form.task_pane() or form.form_pane()
        pane.scroll_relative(y=direction * max(1, pane.size.height - 2), animate=False)

    def action_toggle_instructions(self) -> None:
        self.query_one(Instructions).toggle()

    def action_anywhere(self, action: str) -> None:
        """f6 to f9: the single-letter actions, also from inside a text field."""
        {
            "skip": lambda: self.action_skip("Skip"),
            "undo": self.action_undo,
            "zoom": self.action_zoom,
            "open_image": self.action_open_image,
        }[action]()

    def action_submit(self) -> None:
        form, task = self.form, self.current
        if not self.ready or form is None or task is None:
            self._not_applied("Enter")
            return
        now = self.clock.now()
        if self.submitted_at is not None and (second := self._second_enter()) is not None:
            self.message = (
                f"Enter again within {DOUBLE_ENTER_SECONDS:g} s of a submit: not applied to task {task.id}."
                if second == "double"
                else f"Enter right after a submit, before task {task.id} could be read: not applied; "
                "press enter again to send it as it is."
            )
            self._show_status()
            return
        self.submitted_at = now
        self.submit_key = self.qd.keys_read.last
        self._decide(lambda: self._submit(form, task))

    def _second_enter(self) -> str | None:
        """What the enter just read is: "double" when it follows the enter of a submit with no key between,
        within `DOUBLE_ENTER_SECONDS` of it, or of this task being put on screen (after a stall both
        come at once, whatever time the worker left between them), or with the app stopped between
        the two (read apart by the stop, however close they were typed); "unseen" when it follows it
        so within `UNSEEN_SECONDS` of this task being shown. An enter that submitted nothing here (it
        kept a note in a dialog, say) is no first enter."""
        keys = self.qd.keys_read
        if not keys.repeated("enter") or keys.before is not self.submit_key:
            return None
        if (
            keys.repeated_within("enter", DOUBLE_ENTER_SECONDS)
            or keys.read_within(DOUBLE_ENTER_SECONDS, self.shown_at)
            or keys.stopped_between()
        ):
            return "double"
        return "unseen" if keys.read_within(UNSEEN_SECONDS, self.shown_at) else None

    def action_submit_anywhere(self) -> None:
        """ctrl+j: submit, also from a multi-line field (where enter is a new line)."""
        self.action_submit()

    def action_choice_key(self, key: str) -> None:
        editor, form, task = self._choice_editor(), self.form, self.current
        if editor is None or form is None or task is None:
            return

        def choose_and_submit() -> None:
            if self.current is not task:
                return
            self._choice_by_key = True
            editor.type_key(key)
            self.submitted_at = self.clock.now()
            self._submit(form, task)

        self._decide(choose_and_submit)

    def _submit(self, form: TaskForm, task: AssignedTask) -> None:
        """Send `task` with the form's values as every key typed before the submit left them."""
        if self.current is not task or self.leaving:
            return
        form.commit_keys()
        values = form.values()
        problems = form.problems()
        if problems:
            self.submitted_at = None
            self._resume()
            form.show_problems(problems)
            missing = form.missing_required()
            self.message = (
                f"{NOT_SENT} {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} required."
                if missing
                else f"{NOT_SENT} fix the fields marked in red."
            )
            self._show_status()
            return
        self.work_session.submit(task, values, self.clock.now())
        self.message = held_message(task.id)
        self._advance()

    def _not_applied(self, key: str) -> None:
        """A key for the task on screen while there is none: said out loud, never dropped silently."""
        self.refusal = f"{key} was not applied: no task was on screen yet."
        self._show_status()

    def action_undo(self) -> None:
        self._decide(self._undo)

    def _undo(self) -> None:
        if self.leaving:
            return
        last = self.last_submission
        back = self.work_session.undo(self._entered())
        if back is None:
            self.message = (
                "Nothing to undo."
                if last is None
                else f"Too late to undo: task {last[1].id} was already sent."
            )
            self._show_status()
            self._resume()
            return
        task, entry, spent = back
        self._show(task, entry.data, seconds=spent)  # the clock goes on where it stopped
        self.message = f"Task {task.id} is back, with what you chose."
        self._show_status()

    def action_skip(self, key: str = "“s”") -> None:
        task = self.current
        if not self.ready or task is None:
            self._not_applied(key)
            return
        self._decide(lambda: self._skip(task))

    def _skip(self, task: AssignedTask) -> None:
        if self.current is not task or self.leaving:
            return
        self.work_session.counts.skipped += 1
        self.message = f"Skipped task {task.id}: it goes back to the queue."
        self._give_back(task, None)
        self._advance()

    def action_release_draft(self) -> None:
        task, form = self.current, self.form
        if not self.ready or task is None or form is None:
            self._not_applied("Ctrl+s")
            return
        self._decide(lambda: self._release_draft(task, form))

    def _release_draft(self, task: AssignedTask, form: TaskForm) -> None:
        if self.current is not task or self.leaving:
            return
        form.commit_keys()
        draft = form.values()
        self.work_session.counts.skipped += 1
        self.message = f"Task {task.id} given back with your draft kept on it."
        self._give_back(task, draft)
        self._advance()

    def _give_back(self, task: AssignedTask, draft: dict[str, Any] | None) -> None:
        self.work_session.give_back(task)  # at once: the claim ahead that follows must not take it back
        self._release_task(task, draft)

    @work(group="work-release", exit_on_error=False)
    async def _release_task(self, task: AssignedTask, draft: dict[str, Any] | None) -> None:
        try:
            await self.work_session.release(task, draft)
        except Exception as exc:
            self.qd.report(exc, doing=f"Giving task {task.id} back")

    @work(group="work-take-back", exit_on_error=False)
    async def take_back(self, entry: Entry) -> None:
        """A submission the server refused for its values: the task comes back with them, each
        message on its field (the queue is read again: its blocks may have changed meanwhile)."""
        fields: dict[str, str] = entry.extra.get("fields") or {}
        if not fields or self.leaving:
            # A lost task (409, 404) cannot come back; the app's notification says so. Not done.
            self.work_session.uncount(entry)
            self._show_status()
            return
        client = self.session.client
        try:
            detail = await client.queue(self.queue.id)
            task = await client.task(self.queue.id, entry.task_id)
        except errors.QueueDeskError:
            return
        me = self.session.me
        if task.status != "in_progress" or me is None or task.assignment.assigned_to != me.email:
            return
        lost: dict[str, Any] = {}
        if self.detail is None or _blocks(detail) != _blocks(self.detail):
            lost, removal = self._drop_form_for(detail, entry.data)
            if removal is not None:
                await removal
        spent = self.work_session.came_back(task, entry)
        self._show(task, entry.data, seconds=spent)
        form = self.form
        if form is not None:
            self.call_after_refresh(form.show_problems, fields)
        self.message = f"Task {task.id} came back: the server refused a value. Fix it and submit again."
        if lost:
            self._say_queue_changed(task.id, lost)
        self._show_status()

    def action_toggle_submit_on_choice(self) -> None:
        self.submit_on_choice = not self.submit_on_choice
        self.qd.remember("submit_on_choice", self.submit_on_choice)
        self.message = (
            f"Submit on choice {'on' if self.submit_on_choice else 'off'}. Kept for the next start."
        )
        self._show_status()

    def field_keys(self) -> list[tuple[str, str]]:
        """The keys of the form's fields, for f1: (keys, where)."""
        form = self.form
        if form is None:
            return []
        return [(editor.help_keys(), editor.block.name) for editor in form.editors() if editor.help_keys()]

    def _submits_on_choice(self, form: TaskForm) -> bool:
        editors = form.editors()
        return self.submit_on_choice and len(editors) == 1 and editors[0].block.type in SELECTION_TYPES

    @on(BlockEditor.Chosen)
    def _chosen(self, event: BlockEditor.Chosen) -> None:
        if self._choice_by_key:  # the choice key submitted already (`action_choice_key`)
            self._choice_by_key = False
            return
        form = self.form
        if form is not None and self.submit_on_choice and self._submits_on_choice(form):
            self.action_submit()  # a choice by other means (a click, more than ten options)

    def _image_url(self) -> str | None:
        form = self.form
        urls = form.image_urls() if form is not None and self.ready else []
        if not urls:
            self.message = "This task has no image."
            self._show_status()
            return None
        return urls[0]

    def action_zoom(self) -> None:
        url = self._image_url()
        if url is not None:
            from queuedesk.tui.modals.image import ImageScreen

            self.app.push_screen(ImageScreen(url), lambda _: self._images_again())

    def _images_again(self) -> None:
        """Back from the full view: a picture fetched there on a retry is shown here too."""
        from queuedesk.tui.widgets.image_view import ImageView

        for view in self.query(ImageView):
            view.refresh_from_cache()

    def action_open_image(self) -> None:
        url = self._image_url()
        if url is None:
            return
        from queuedesk.tui.terminal.system_viewer import open_externally
        from queuedesk.tui.work.image_fetch import ImageUnavailable

        try:
            open_externally(url)
        except ImageUnavailable as exc:
            self.notify(exc.reason, title="Cannot open the image", severity="warning")

    def action_escape(self) -> None:
        """`escape`: out of a text field (to the form), out of the options' filter, else back."""
        form = self.form
        focused = self.focused
        if form is not None and self.ready and form.leave_field():
            return
        if isinstance(focused, OptionsEditor) and focused.filtering:
            self.run_worker(focused.close_filter(), exit_on_error=False)
            return
        self._decide(lambda: self.run_worker(self.action_leave(), group="work-leave", exit_on_error=False))

    async def action_leave(self) -> None:
        await self.leave()
        self.dismiss()

    async def leave(self, *, send: bool = True) -> None:
        """Send what waits for the undo grace (unless not to `send`), and give back every claim held here."""
        if self.leaving:
            return
        draft = self._entered()
        self._set_ready(False)
        for task, problem in await self.work_session.leave(draft, send=send):
            if problem is not None:
                self.qd.report(problem, doing=f"Keeping your draft on task {task.id}")
            else:
                self.notify(
                    f"Task {task.id} given back with what you entered kept as a draft: "
                    "it is filled in again when the task is next opened.",
                    title="Draft kept",
                    timeout=8,
                )

    def _entered(self) -> dict[str, Any] | None:
        """What the worker entered on the task on screen (as `ctrl+s` keeps it), None when nothing."""
        form, task = self.form, self.current
        if form is None or task is None or self._loading is not None:
            return None
        values = form.values()
        if values == {block_id: task.data.get(block_id) for block_id in values}:
            return None
        return values

    # --- status ------------------------------------------------------------------------------------

    def _tick(self) -> None:
        self._count_time()
        self._show_status()
        self._ticks += 1
        if self._ticks % int(QUEUE_CHECK_SECONDS) == 0 and self.current is not None:
            self.check_queue()
        if self.is_attached:
            self.clock.call_later(self, 1.0, self._tick)

    # --- the queue changed by an admin -------------------------------------------------------------

    @work(group="work-queue-check", exclusive=True, exit_on_error=False)
    async def check_queue(self) -> None:
        """Read the queue again; when its blocks changed, the form is made again for the task on
        screen once the keys typed so far have been handled (keeping what was typed)."""
        try:
            detail = await self.session.client.queue(self.queue.id)
        except errors.QueueDeskError:
            return  # the next check, or the submit's answer, tells
        if self.detail is not None and detail.description != self.detail.description:
            self.query_one(Instructions).update(detail.description)
        if self.detail is None or _blocks(detail) == _blocks(self.detail):
            if self.detail is not None:
                self.detail = detail
            return
        task = self.current
        self.after_keys(lambda: self._rebuild_for(detail, task))

    def _rebuild_for(self, detail: QueueDetail, task: AssignedTask | None) -> None:
        if not self.ready or task is None or self.current is not task or self.leaving:
            return  # a decision is under way: the check after the next task is shown applies it
        typed = self.form.values() if self.form is not None else {}
        lost, _removal = self._drop_form_for(detail, typed)
        ids = {block.id for block in detail.data}
        self._count_time()
        self._show(
            task, {k: v for k, v in typed.items() if k in ids}, seconds=self.work_session.time.task_seconds
        )
        self._say_queue_changed(task.id, lost)

    def _drop_form_for(
        self, detail: QueueDetail, typed: dict[str, Any]
    ) -> tuple[dict[str, Any], AwaitRemove | None]:
        """Work on the queue as `detail` has it now: the form made for its old blocks goes (the next
        `_show` makes one anew). What was typed in the blocks it no longer has, by block name, and
        the old form's removal."""
        lost = _typed_in_removed(self.detail, detail, typed)
        self.detail = detail
        form, self._form = self._form, None
        return lost, form.remove() if form is not None else None

    def _say_queue_changed(self, task_id: int, lost: dict[str, Any]) -> None:
        said = f"An admin changed this queue's fields: task {task_id} is shown with them."
        if lost:
            said += " Removed, with what you had typed there: " + "; ".join(
                f"{name}: {value!r}" for name, value in lost.items()
            )
        self.notify(said, title="Queue changed", timeout=15)

    def _count_time(self) -> None:
        """Add the time since the last count to the task on screen: not while a modal covers the
        screen, and not past the moment the worker went idle."""
        self.work_session.time.count(self.clock.now(), on_task=self.current is not None)

    def _worker_active(self) -> None:
        now = self.clock.now()
        was_idle = self._idle(now)
        self._count_time()  # the idle stretch before this key is not counted
        self.work_session.time.last_key_at = now
        if was_idle:
            self._show_status()  # "idle" goes at once, not at the next tick
        if went := self.work_session.back():
            self.notify(
                f"While you were away, the {'task' if went == 1 else f'{went} tasks'} claimed ahead for "
                "you went back to the queue for others to work on. The task on screen is still yours.",
                title="Welcome back",
                timeout=8,
            )
            self._prefetch()

    def on_screen_suspend(self) -> None:
        self._count_time()
        self.work_session.time.paused = True

    def on_screen_resume(self) -> None:
        self._count_time()
        self.work_session.time.paused = False
        self.work_session.time.last_key_at = self.clock.now()  # the key that closed the modal
        self._show_status()

    @on(TaskForm.Changed)
    def _typed(self) -> None:
        # A text field keeps the keys typed into it: its changes are the worker's activity.
        self._worker_active()
        form = self.form
        if self.message.startswith(NOT_SENT) and form is not None and not form.problems():
            self.message = ""  # fixed: the word about what was wrong goes with it
            self._show_status()

    def _idle(self, now: datetime) -> bool:
        return self.work_session.time.idle(now)

    def _update_held_message(self) -> None:
        """ "sent in 5 s — u undoes" holds only while the last submission waits for its grace."""
        if self.last_submission is None or self.qd.outbox is None:
            return
        entry_id, task = self.last_submission
        if self.message not in (held_message(task.id), retried_message(task.id)):
            return
        state = self.qd.outbox.state_of(entry_id)
        if state is None:
            self.message = f"Task {task.id} sent."
        elif state == "unsent":
            self.message = retried_message(task.id)
        elif state == "failed":
            self.message = ""  # the refusal is its own notification, with the values typed

    def _show_status(self) -> None:
        if not self.is_attached:
            return
        self._update_held_message()
        if not self._status.is_attached:  # the screen is being taken down (a refused key pops it)
            return
        self._status.show(
            self.work_session,
            self.clock.now(),
            unsent=self.qd.outbox.unsent if self.qd.outbox is not None else 0,
            submit_on_choice=self.submit_on_choice,
            message=" ".join(part for part in (self.message, self.refusal) if part),
        )


def _blocks(detail: QueueDetail) -> list[dict[str, Any]]:
    return [block.model_dump() for block in detail.data]


def _typed_in_removed(
    before: QueueDetail | None, after: QueueDetail, values: dict[str, Any]
) -> dict[str, Any]:
    """What was typed (by block name) in the blocks of `before` that `after` no longer has."""
    kept = {block.id for block in after.data}
    return {
        block.name: values[block.id]
        for block in (before.data if before is not None else [])
        if block.id not in kept and values.get(block.id) not in (None, "", [], {})
    }
