"""Create task (admins): a form of every block of the queue, posted as A1; the created task is shown."""

from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import LoadingIndicator, Static

from queuedesk.api import blocks as block_rules
from queuedesk.api import errors, original_rules
from queuedesk.api.models import Queue, QueueDetail
from queuedesk.tui.base import AppScreen, styles
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.widgets.app_footer import AppFooter
from queuedesk.tui.widgets.context_bar import ContextBar


def server_problems(exc: errors.ValidationError) -> dict[str, str]:
    """The 400 envelope's errors by block id (`data.category` -> `category`)."""
    found: dict[str, str] = {}
    for item in exc.errors:
        key = (item.field or "").removeprefix("data.").removeprefix("data")
        found.setdefault(key, item.message)
    return found


class CreateTaskScreen(AppScreen):
    STYLE_FILES: ClassVar = styles("editing.tcss", "forms.tcss")
    KEYS_WAIT_FOR_FOCUS = True  # keys typed while the queue loads go to the form once it is there
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", "Create", id="create.submit", priority=True),
        Binding("enter", "create", "Create", show=False, id="create.submit_enter"),
        Binding("escape", "leave", "Back", id="create.back"),
    ]

    def __init__(self, queue: Queue) -> None:
        super().__init__()
        self.queue = queue
        self.detail: QueueDetail | None = None
        self.leaving = False
        self.sending = False

    def compose(self) -> ComposeResult:
        yield ContextBar(f"{self.queue.name} / new task", id="context")
        with Vertical(id="create-body"):
            yield Static(
                "Fill the blocks this task starts with (empty ones stay empty); ctrl+s creates it.",
                id="create-help",
            )
            yield LoadingIndicator(id="create-loading")
        yield AppFooter()

    def on_mount(self) -> None:
        self._load()

    @work(exclusive=True, group="create-load")
    async def _load(self) -> None:
        try:
            self.detail = await self.session.client.queue(self.queue.id)
        except Exception as exc:
            self.qd.report(exc, doing="Opening the queue")
            self.dismiss()
            return
        await self.query_one("#create-loading").remove()
        form = TaskForm(self.detail.data, {}, mode="create")
        await self.query_one("#create-body").mount(form)
        form.focus_first_editable()

    @property
    def form(self) -> TaskForm | None:
        found = self.query(TaskForm)
        return found.first() if found else None

    def _values(self) -> dict[str, Any]:
        form = self.form
        if form is None:
            return {}
        return {key: value for key, value in form.values().items() if not block_rules.is_empty(value)}

    def action_create(self) -> None:
        self.after_keys(self._create)  # with the fields as every key typed before this one left them

    def _create(self) -> None:
        form = self.form
        if form is None or self.detail is None or self.sending:
            return
        form.commit_keys()
        problems = form.problems()  # in create mode "required" is not a problem: A1 does not enforce it
        values = self._to_send()
        if not problems and not values:
            problems = {"": "Fill at least one block: a task cannot be empty."}
        if problems:
            form.show_problems(problems)
            self.notify(
                "Nothing was sent: fix the fields marked in red.", title="Not created", severity="warning"
            )
            return
        if not self.session.extensions:
            refused = original_rules.refusals(self.detail.data, values)
            if refused:
                form.show_problems({r.block_id: r.message for r in refused})
                self.notify(
                    "Nothing was sent: this server cannot take the blocks marked in red as they are "
                    "(it fails on them, and may save the task all the same). Do what each one says, "
                    "then ctrl+s.",
                    title="Not created",
                    severity="warning",
                )
                return
        self._send(values)

    def _to_send(self) -> dict[str, Any]:
        """The values to send. On a basic server an empty list or object stays in where the original
        fails without a value (it is how "none" is said to it)."""
        values = self._values()
        form = self.form
        if form is None or self.detail is None or self.session.extensions:
            return values
        given = form.values()
        for block in self.detail.data:
            if block.type in original_rules.NEEDS_A_VALUE and given.get(block.id) is not None:
                values[block.id] = given[block.id]
        return values

    def _say_unsure(self, exc: errors.QueueDeskError) -> None:
        """A create that failed where the task may have been saved: never "try again" blindly."""
        if exc.probably_saved is True:
            advice = "Do not send it again (ctrl+s): look at the queue's count first."
        elif exc.probably_saved is False:
            advice = "Once the server works, ctrl+s sends it again; escape leaves the form."
        else:
            advice = (
                "It may have been created all the same: look at the queue (escape) before sending it again."
            )
        hint = exc.hint if "hint" in vars(exc) and exc.hint else ""
        said = "\n".join(part for part in (exc.message, hint, advice) if part)
        self.notify(said, title="Creating the task: not confirmed", severity="error", timeout=12)

    @work(exclusive=True, group="create-send")
    async def _send(self, values: dict[str, Any]) -> None:
        form, detail = self.form, self.detail
        assert form is not None and detail is not None
        self.sending = True
        try:
            task = await self.session.client.create_task(self.queue.id, values)
        except errors.ValidationError as exc:
            form.show_problems(server_problems(exc))
            self.notify(str(exc), title="The server refused the task", severity="warning")
            return
        except (errors.ServerError, errors.ConnectionFailed, errors.UnexpectedResponse) as exc:
            self._say_unsure(exc)
            return
        except Exception as exc:
            self.qd.report(exc, doing="Creating the task")
            return
        finally:
            self.sending = False
        self.notify(f"Task {task.id} created in {self.queue.name}.", title="Created")
        await form.remove()
        fresh = TaskForm(detail.data, {}, mode="create")
        await self.query_one("#create-body").mount(fresh)
        fresh.focus_first_editable()
        from queuedesk.tui.modals.task import TaskScreen

        self.app.push_screen(TaskScreen(detail, task))

    def action_leave(self) -> None:
        if self._values() and not self.leaving:
            self.leaving = True
            self.notify(
                "Press escape again to discard what you typed.", title="Unsaved task", severity="warning"
            )
            return
        self.dismiss()
