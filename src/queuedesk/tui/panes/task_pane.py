"""The task pane: the task's blocks and form, the word while there is none, and whether keys are for it.

The work screen and the review screen both compose one (`screens/work.py`, `screens/review.py`); the
loop that claims, shows and sends tasks drives it (`panes/task_loop.py`). The pane puts a task on
screen (`show`) and, once it is painted, lets keys reach it (`painted`): keys read before are refused
out loud (`TaskRules`, `tui/work/task_rules.py`). A decision key takes the focus away at once and acts
once the fields have handled the keys typed before it (`decide`, the screen's `after_keys`); a decision
that did not end the task gives the keys back (`resume`).

A review opens read-only (`opens_read_only`): nothing is focused, the verdict keys live; it is edited
once `e` or `tab` is pressed (`editing`). After a task is painted, or the reviewer is back out of
the fields, the pane calls `on_shown`, for the lines above the form (at once: they are part of the
task as it is shown).
"""

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal, Protocol

from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.await_remove import AwaitRemove
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, LoadingIndicator, Static, TextArea

from queuedesk.api.models import AssignedTask, QueueDetail
from queuedesk.tui.base import AppAccess, KeysInOrder
from queuedesk.tui.forms.fields import FieldInput
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.forms.options import OptionsEditor
from queuedesk.tui.forms.text import TextEditor
from queuedesk.tui.keys.keys_read import key_time
from queuedesk.tui.review.review_rules import changes, read_only_refusal
from queuedesk.tui.work.task_rules import CHOICE_KEYS, SELECTION_TYPES, TaskRules
from queuedesk.tui.work.work_session import WorkSession

# The keys of a task screen, as priority bindings: they act in the order the keys were typed.
TASK_KEYS: list[BindingType] = [
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
    Binding("f2", "toggle_instructions", "Instructions", show=False, priority=True, id="work.instructions"),
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


def keys_over(keys: list[BindingType], changes: list[Binding]) -> list[BindingType]:
    """`keys` with each of `changes` in place of the binding on its key, and those on new keys after
    them (the order Textual gives a screen's bindings over its base's: the footer's order)."""
    by_key = {change.key: change for change in changes}
    kept = [by_key.pop(key.key, key) if isinstance(key, Binding) else key for key in keys]
    return [*kept, *by_key.values()]


class StatusLine(Protocol):
    """The line under the pane that says how the session goes (`widgets/work_status.py`, `review_status.py`)."""

    @property
    def is_attached(self) -> bool: ...

    def show(self, session: Any, now: datetime, /, *, unsent: int, rules: TaskRules) -> None: ...


class TaskPane(AppAccess, Vertical):
    def __init__(
        self,
        screen: KeysInOrder[Any],
        work: WorkSession,
        status: StatusLine,
        *,
        opens_read_only: bool = False,
        on_shown: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(id="work-body")
        self.keys_screen = screen  # the screen that composes the pane (kept: `check_action` asks it often)
        self.work = work
        self.status = status
        self.rules = TaskRules()  # when keys apply, what is said
        self.opens_read_only = opens_read_only
        self.on_shown = on_shown  # the task on screen takes keys (painted, or back to it out of the fields)
        self.editing = not opens_read_only
        self.detail: QueueDetail | None = None
        self.had_images = False
        self.refocus: Widget | None = None  # the field a decision took the focus from
        # Kept, not queried: `check_action` reads the form for each binding whenever the footer or a
        # key asks, and a DOM query each time was most of a task's cost (bench/tui_work.py).
        self.form: TaskForm | None = None
        self._loading: LoadingIndicator | None = LoadingIndicator(id="work-loading")
        self._waiting = Static("", id="work-waiting", markup=False)
        self.beside: Widget | None = None  # what a screen shows above the task (the review's details)

    def compose(self) -> ComposeResult:
        if self._loading is not None:
            yield self._loading
        yield self._waiting
        if self.beside is not None:
            yield self.beside

    def on_mount(self) -> None:
        self._waiting.display = False

    # --- showing the task ----------------------------------------------------------------------------

    def show(self, task: AssignedTask, data: dict[str, Any], values: dict[str, Any] | None) -> None:
        """Put `task` on screen with `data`; it takes keys once painted (`painted`), those before are refused."""
        assert self.detail is not None
        self.set_ready(False)
        if self.opens_read_only:  # a review brought back by undo with a correction opens editing
            self.editing = values is not None and bool(changes(values, task.data))
        if self.beside is not None:
            self.beside.display = False  # shown with the task's keys live (`painted`)
        self.rules.shown_at = key_time()  # keys read before this moment are not for this task
        self.drop_loading()
        self._waiting.display = False
        form = self.form
        if form is None:
            form = self.form = TaskForm(self.detail.data, data, mode="work")
            self.run_worker(self._paint_once_mounted(self.mount(form), task))
        else:
            form.display = True
            form.set_data(data)
            self.app.call_later(self.painted, task)
        has_images = bool(form.image_urls())
        if has_images != self.had_images:
            self.had_images = has_images
            self.keys_screen.refresh_bindings()  # z and o come and go with the task's pictures

    async def _paint_once_mounted(self, mounting: Awaitable[object], task: AssignedTask) -> None:
        await mounting  # the form's fields exist: the first one can take the focus
        self.app.call_later(self.painted, task)

    def painted(self, task: AssignedTask) -> None:
        """The task is on screen: from now on keys are for it; its first field has the focus.

        Run from the app's own queue (`app.call_later`), behind the keys it has already read: those
        were typed before the task was shown and are refused. Not after the next refresh: the frame
        showing the task can be on the terminal a long moment before such a callback runs (seen in
        tmux: a worker's key 60 ms after the paint was refused)."""
        if self.work.current is not task or self.work.leaving:
            return
        self.set_ready(True)
        self.focus_task()  # (the focus change refreshes the footer's keys: no refresh_bindings here)
        if self.beside is not None:
            self.beside.display = True
        if self.on_shown is not None:
            self.on_shown()

    def focus_task(self) -> None:
        """The focus for the task on screen: the first field to fill (a review read-only: none)."""
        if not self.editing:
            self.keys_screen.set_focus(None)  # read-only: keys go to the screen, where the verdict keys are
            return
        form = self.form
        if form is None:
            return
        # A task brought back by undo has its choice made: the focus goes to the first required
        # block anyway, where a worker changes their mind, not to a free-text field below it.
        required = [e for e in form.editors() if e.block.is_required]
        if not (required and required[0].focus_field()):
            form.focus_first_editable()

    def wait(self, text: str) -> None:
        """No task to show: `text` says why."""
        self._waiting.update(text)
        self._waiting.display = True
        if self.beside is not None:
            self.beside.display = False
        self.drop_loading()
        if self.form is not None:
            self.form.display = False
        self.show_status()

    def drop_loading(self) -> None:
        # Removed, not hidden: a hidden indicator still animates, and repaints cost every frame.
        if self._loading is not None:
            self._loading.remove()
            self._loading = None

    def drop_form_for(self, detail: QueueDetail) -> AwaitRemove | None:
        """Work on the queue as `detail` has it now: the form made for its old blocks goes (the next
        `show` makes one anew); its removal."""
        self.detail = detail
        form, self.form = self.form, None
        return form.remove() if form is not None else None

    def entered(self) -> dict[str, Any] | None:
        """What the worker entered on the task on screen (as `ctrl+s` keeps it), None when nothing."""
        form, task = self.form, self.work.current
        if form is None or task is None or self._loading is not None:
            return None
        values = form.values()
        if values == {block_id: task.data.get(block_id) for block_id in values}:
            return None
        return values

    # --- keys for the task ---------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self.rules.ready

    def set_ready(self, ready: bool) -> None:
        # Not `form.disabled`: toggling it restyles every editor (~0.1 s a task). Without a task on
        # screen the focus leaves the form, so keys reach `on_key` here and are refused out loud.
        self.rules.ready = ready
        if not ready:
            self.keys_screen.set_focus(None)

    def decide(self, then: Callable[[], object]) -> None:
        """A decision key was read: keys typed after it are not for this task (the focus goes), and
        `then` runs once the fields have handled every key typed before it."""
        self.refocus = self.keys_screen.focused
        self.rules.decided()
        self.set_ready(False)
        self.keys_screen.after_keys(then)

    def resume(self) -> None:
        """A decision that did not end the task (refused values, nothing to undo): keys for it again."""
        if self.work.current is None or self.work.leaving:
            return
        self.rules.ready = True
        back = self.refocus
        if back is None and self.opens_read_only:
            pass  # out of the fields it was (a review read-only, or after escape), out of them it stays
        elif back is not None and back.is_attached and back.focusable:
            self.keys_screen.set_focus(back)
        else:
            self.focus_task()
        if self.on_shown is not None:
            self.on_shown()

    def refuses_key(self, event: events.Key) -> bool:
        """A key read before the task on screen was put there, handled only now (a burst, a stall),
        was meant for the one before: refused, and said."""
        focused = self.keys_screen.focused
        if focused is not None and not focused.is_attached:
            # A focus left on a widget gone from the screen drops every key, `ctrl+q` too (Textual
            # looks for bindings from it up, and it has no parents): never leave the worker there.
            self.keys_screen.set_focus(None)
            if self.ready:
                self.focus_task()
        on_task = not self.work.leaving and self.work.current is not None
        if not self.rules.refuses_read_key(
            event.key, self.qd.keys_read.typed_by(event.time), on_task=on_task
        ):
            return False
        self.show_status()
        return True

    def new_line(self) -> None:
        """`ctrl+n` in a one-line text field, as the app reads the key: the multi-line area takes the
        field's place and the focus at once, so the keys typed after it go there (in a burst `ab
        ctrl+n cd` is "ab", a line break, "cd"; never "abcd" and the break after). Elsewhere the key
        goes its usual way (the area's own `ctrl+n`, in order)."""
        focused = self.keys_screen.focused
        if self.ready and isinstance(focused, FieldInput):
            editor = next((n for n in focused.ancestors if isinstance(n, TextEditor)), None)
            if editor is not None:
                editor.new_line_as_read(focused)
                return
        raise SkipAction()

    def refuses_unready_key(self, event: events.Key) -> None:
        """Keys reach the screen itself while no field has the focus: no task is on screen to take them
        (or it is a review, read-only: a letter does nothing there, and is said to)."""
        if self.rules.refuses_unready_key(event.key, printable=event.is_printable, leaving=self.work.leaving):
            event.stop()
            event.prevent_default()
            self.show_status()
        elif self.ready and not self.editing and event.is_printable:
            self.rules.refusal = read_only_refusal(event.key)
            self.show_status()

    def not_applied(self, key: str) -> None:
        """A key for the task on screen while there is none: said out loud, never dropped silently."""
        self.rules.not_applied(key)
        self.show_status()

    def say(self, message: str) -> None:
        self.rules.message = message
        self.show_status()

    # --- what the rules ask (`TaskView`) -------------------------------------------------------------

    def focus_kind(self) -> Literal["text", "multiline", "option_filter", "other"]:
        focused = self.keys_screen.focused
        if isinstance(focused, TextArea):
            return "multiline"
        if isinstance(focused, Input):
            return "option_filter" if focused.has_class("option-filter") else "text"
        return "other"

    def one_selection(self) -> bool:
        editors = self.form.editors() if self.form is not None else []
        return len(editors) == 1 and editors[0].block.type in SELECTION_TYPES

    def has_images(self) -> bool:
        return self.form is not None and bool(self.form.image_urls())

    def has_instructions(self) -> bool:
        return self.detail is not None and bool(self.detail.description.strip())

    def choice_takes(self, key: str) -> bool:
        return (editor := self.choice_editor()) is not None and editor.takes_key(key)

    def options_take(self, key: str) -> bool:
        focused = self.keys_screen.focused
        return isinstance(focused, OptionsEditor) and focused.takes_key(key)

    def choice_editor(self) -> OptionsEditor | None:
        """The editor a choice key submits from ("submit on choice": the task's one selection)."""
        focused = self.keys_screen.focused
        if not isinstance(focused, OptionsEditor) or not self.rules.submits_on_choice(self):
            return None
        return None if focused.filtering or focused.count > 10 else focused

    def in_form(self) -> bool:
        focused, form = self.keys_screen.focused, self.form
        return form is not None and focused is not None and (focused is form or form in focused.ancestors)

    # --- the task's pictures and content -------------------------------------------------------------

    def image_url(self) -> str | None:
        urls = self.form.image_urls() if self.form is not None and self.ready else []
        if not urls:
            self.say("This task has no image.")
            return None
        return urls[0]

    def zoom(self) -> None:
        url = self.image_url()
        if url is not None:
            from queuedesk.tui.modals.image import ImageScreen

            self.app.push_screen(ImageScreen(url), lambda _: self._images_again())

    def _images_again(self) -> None:
        """Back from the full view: a picture fetched there on a retry is shown here too."""
        from queuedesk.tui.widgets.image_view import ImageView

        for view in self.query(ImageView):
            view.refresh_from_cache()

    def open_image(self) -> None:
        url = self.image_url()
        if url is None:
            return
        from queuedesk.tui.terminal.system_viewer import open_externally
        from queuedesk.tui.work.image_fetch import ImageUnavailable

        try:
            open_externally(url)
        except ImageUnavailable as exc:
            self.notify(exc.reason, title="Cannot open the image", severity="warning")

    def scroll_task(self, direction: int) -> None:
        """A page of the task's content down (1) or up (-1): its own pane, else the form's."""
        if self.form is None:
            return
        pane = self.form.task_pane() or self.form.form_pane()
        pane.scroll_relative(y=direction * max(1, pane.size.height - 2), animate=False)

    def field_keys(self) -> list[tuple[str, str]]:
        """The keys of the form's fields, for f1: (keys, where)."""
        if self.form is None:
            return []
        return [(e.help_keys(), e.block.name) for e in self.form.editors() if e.help_keys()]

    # --- status --------------------------------------------------------------------------------------

    def show_status(self) -> None:
        if not self.is_attached:
            return
        outbox, last = self.qd.outbox, self.work.last_submission
        if last is not None and outbox is not None:
            self.rules.outbox_said(last[1].id, outbox.state_of(last[0]), outbox.outcome(last[0]))
        if not self.status.is_attached:  # the screen is being taken down (a refused key pops it)
            return
        unsent = outbox.unsent if outbox is not None else 0
        self.status.show(self.work, self.clock.now(), unsent=unsent, rules=self.rules)
