"""The loop of a work or review screen: open the queue, claim a task (and the next one ahead), show
it in the task pane, keep its lease, give it back or take it back, leave.

The next task is claimed ahead (B4 with `exclude`) and its images fetched while the worker is on this
one, so after a decision it is on screen at once. Submissions wait out a short undo grace in the
outbox (on disk first); claims held here are heartbeated and given back when the worker leaves. What
is held and counted is the session's (`tui/work/work_session.py`, `tui/review/review_session.py`), its
timers too; what is shown is the pane's (`panes/task_pane.py`). Workers run on the screen that
composes both, so they end with it.
"""

from typing import Any

from textual import events
from textual.worker import Worker

from queuedesk.api import errors
from queuedesk.api.models import AssignedTask, Queue, QueueDetail
from queuedesk.tui.base import AppScreen
from queuedesk.tui.forms.options import OptionsEditor
from queuedesk.tui.panes.task_pane import TaskPane
from queuedesk.tui.widgets.instructions import Instructions
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.kept import GONE_UNLEFT, Kept, kept_words
from queuedesk.tui.work.outbox import TASK_REMOVED, Outbox
from queuedesk.tui.work.task_rules import undo_refused
from queuedesk.tui.work.work_session import WorkSession

# Annotation blocks the worker fills that this app has no editor for yet: said before any claim.
NEEDS_ANOTHER_TOOL = {"bounding_boxes": "drawing boxes on the image"}
INSTRUCTIONS_FOLDED_BELOW = 40  # terminal rows: on a smaller one the instructions start folded


def outbox_of(screen: AppScreen) -> Outbox:
    outbox = screen.qd.outbox
    if outbox is None:  # the app opens it with any session that can claim, before this screen
        raise RuntimeError("the work screen needs a session with an outbox")
    return outbox


class TaskLoop:
    def __init__(self, screen: AppScreen, queue: Queue, work: WorkSession, pane: TaskPane) -> None:
        self.screen = screen
        self.queue = queue
        self.work = work
        self.pane = pane
        self._renewing = False  # a check of the claims held is under way (one at a time)
        # The queue's instructions, above the pane (the screen composes them; the loop keeps them up to date).
        self.instructions = Instructions(
            "", key="f2", expanded=screen.app.size.height >= INSTRUCTIONS_FOLDED_BELOW, id="work-instructions"
        )
        work.timers.schedule = lambda delay, callback: screen.clock.call_later(screen, delay, callback)

    def _run(self, coroutine: Any, group: str, *, exclusive: bool = False) -> Worker[Any]:
        return self.screen.run_worker(coroutine, group=group, exclusive=exclusive, exit_on_error=False)

    def start(self) -> None:
        """The screen is mounted: the status line follows the outbox, the clock ticks, the queue opens."""
        self.screen.qd.outbox_changed.subscribe(self.pane, lambda _: self.pane.show_status(), immediate=True)
        self.tick()
        self.screen.run_worker(self._open(), group="work-open", exclusive=True)

    def stop(self) -> None:
        """The screen goes. Gone without leaving (the app closed it: the key refused, the session
        ended), the claims cannot be given back from here: what was typed is kept in the journal."""
        self.work.timers.stop_all()
        if not self.work.leaving:
            typed = self.pane.entered() if self.work.current is not None else None
            for kept in self.work.keep_all_here(typed, GONE_UNLEFT):
                self.say_kept(kept)

    # --- loading tasks -------------------------------------------------------------------------------

    async def _open(self) -> None:
        screen = self.screen
        try:
            detail = await screen.session.client.queue(self.queue.id)
        except Exception as exc:
            screen.qd.report(exc, doing="Opening the queue for work")
            screen.dismiss()
            return
        self.pane.detail = detail
        self.work.consensus = detail.consensus is not None
        self.instructions.update(detail.description)
        screen.refresh_bindings()  # f2 applies once there are instructions
        unworkable = [b for b in detail.data if b.type in NEEDS_ANOTHER_TOOL]
        if unworkable:
            named = ", ".join(f"{b.name} ({NEEDS_ANOTHER_TOOL[b.type]})" for b in unworkable)
            self.pane.rules.needs_another_tool = True
            self.pane.wait(
                f"This queue needs another tool: QueueDesk cannot fill {named} yet. No task was claimed, "
                "so none is held from other workers. escape goes back."
            )
            screen.refresh_bindings()
            return
        await self.next()

    def advance(self) -> None:
        """The next task: at once when it was claimed ahead, else claimed now (keys wait meanwhile)."""
        task = self.work.take_ahead()
        if task is not None:
            self.show(task)
            self._prefetch()
        else:
            self.pane.set_ready(False)
            self._run(self.next(), "work-open", exclusive=True)

    async def next(self) -> None:
        """Show the task claimed ahead, or claim one; then claim the one after it."""
        self.pane.set_ready(False)
        try:
            task, held = await self.work.next_task()
        except errors.Conflict as exc:
            if exc.code != "claim_limit":
                raise
            # Our own claims fill the limit (a submission on its way still holds its claim): never
            # "the queue is empty" for that; tried again on the next poll.
            self._wait("Waiting for your last submissions to reach the server…")
            return
        except Exception as exc:
            self._wait(f"Could not claim a task: {str(exc).rstrip('.')}. Retrying in a few seconds.")
            self.screen.qd.report(exc, doing="Claiming a task")
            return
        if task is None:
            left = await self.work.count_left() if self.work.given_back else None
            answered = self.work.answered_waiting
            if answered:  # B21: not "empty": the worker's answers wait for others
                self._wait(answers_waiting(answered, held))
            elif held:
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
        self.show(task)
        self._prefetch()

    def _wait(self, text: str) -> None:
        self.work.current = None
        self.pane.wait(text)
        self.work.poll_later(self._poll_again)

    def _poll_again(self) -> None:
        if self.work.current is None and not self.work.leaving:
            self._run(self.next(), "work-open", exclusive=True)

    def _prefetch(self) -> None:
        # Not exclusive: a claim cancelled half way may leave a task claimed that nobody here knows of.
        self._run(self._claim_ahead(), "work-prefetch")

    async def _claim_ahead(self) -> None:
        task = await self.work.claim_ahead()
        if task is not None:
            self._warm_images(task)
        self.check_queue()
        await self.work.count_left()  # for the status line (after the claim: it counts less)
        self.pane.show_status()

    def _warm_images(self, task: AssignedTask) -> None:
        warm_images(self.screen, self.pane.detail, task)

    def show(self, task: AssignedTask, values: dict[str, Any] | None = None, seconds: float = 0.0) -> None:
        """Put `task` on screen (`seconds` already spent on it, `values` over its data)."""
        self.work.timers.stop("poll")
        self.pane.set_ready(False)
        draft = self.work.shown(task, self.screen.clock.now(), seconds)
        if task.draft and values is None:
            self.screen.notify(
                f"Your draft on task {task.id} is filled in again: what you entered when you gave it back.",
                title="Draft restored",
                timeout=6,
            )
        self.pane.show(task, {**task.data, **draft, **(values or {})}, values)
        self.work.beat_later(self.screen.clock.now(), self._beat)
        self.pane.show_status()

    # --- heartbeats ----------------------------------------------------------------------------------

    def _beat(self) -> None:
        if not self._renewing:
            self._renewing = True  # now: two beats asked before the first runs make one
            self._run(self._renew(), "work-heartbeat")

    async def _check_held(self) -> None:
        """A look at the task on screen (not a renewal): lost (flushed, taken), the claims are
        renewed now, which drops what is lost."""
        try:
            held = await self.work.still_held()
        except errors.AuthenticationError as exc:
            self.screen.qd.report(exc, doing="Keeping your task")  # the screen closes: `stop` keeps it
            return
        if not held:
            self._beat()

    async def _renew(self) -> None:
        """Renew the claims held; a task lost meanwhile (flushed, or its claim taken) leaves the
        screen and the claims ahead with what was typed on it kept in the journal, and is said."""
        try:
            await self.work.give_back_ahead_when_away(self.screen.clock.now())
            lost = await self.work.renew()
        except errors.AuthenticationError as exc:
            self.screen.qd.report(exc, doing="Keeping your task")  # the screen closes: `stop` keeps it
            return
        finally:
            self._renewing = False
        typed = self.pane.entered()
        for task in lost:
            said = self.work.dropped(task, typed)
            if said is not None:
                self.screen.notify(said, title="Task lost", severity="warning", timeout=15)
        if lost and self.work.current is None and not self.work.leaving:
            await self.next()
        self.work.beat_later(self.screen.clock.now(), self._beat)

    # --- decisions that end the task on screen -------------------------------------------------------

    def skip(self, key: str = "“s”") -> None:
        task = self.work.current
        if not self.pane.ready or task is None:
            self.pane.not_applied(key)
            return
        self.pane.decide(lambda: self._skip(task))

    def _skip(self, task: AssignedTask) -> None:
        if self.work.current is not task or self.work.leaving:
            return
        self.work.counts.skipped += 1
        self.pane.rules.message = f"Skipped task {task.id}: it goes back to the queue."
        self.give_back(task, None)
        self.advance()

    def give_back(self, task: AssignedTask, draft: dict[str, Any] | None) -> None:
        self.work.give_back(task)  # at once: the claim ahead that follows must not take it back
        self._run(self._release(task, draft), "work-release")

    async def _release(self, task: AssignedTask, draft: dict[str, Any] | None) -> None:
        try:
            await self.work.release(task, draft)
        except Exception as exc:
            self.screen.qd.report(exc, doing=f"Giving task {task.id} back")

    def undo(self) -> None:
        self.pane.decide(self._undo)

    def _undo(self) -> None:
        if self.work.leaving:
            return
        last = self.work.last_submission
        back = self.work.undo(self.pane.entered())
        if back is None:
            self.pane.say(undo_refused(None if last is None else last[1].id))
            self.pane.resume()
            return
        task, entry, spent = back
        self.show(task, entry.data, seconds=spent)  # the clock goes on where it stopped
        self.pane.say(f"Task {task.id} is back, with what you chose.")

    def take_back(self, entry: Entry) -> None:
        self._run(self._take_back(entry), "work-take-back")

    async def _take_back(self, entry: Entry) -> None:
        """A submission the server refused for its values: the task comes back with them, each
        message on its field (the queue is read again: its blocks may have changed meanwhile)."""
        fields: dict[str, str] = entry.extra.get("fields") or {}
        if not fields or self.work.leaving:
            # A lost task (409, 404) cannot come back; the app's notification says so. Not done.
            self.work.uncount(entry)
            self.pane.show_status()
            if entry.error == TASK_REMOVED and not self.work.leaving:
                self._beat()  # a flush: the tasks held here are checked at once
            return
        client = self.screen.session.client
        try:
            detail = await client.queue(self.queue.id)
            task = await client.task(self.queue.id, entry.task_id)
        except errors.QueueDeskError:
            return
        me = self.screen.session.me
        if task.status != "in_progress" or me is None or task.assignment.assigned_to != me.email:
            return
        lost: dict[str, Any] = {}
        if self.pane.detail is None or _blocks(detail) != _blocks(self.pane.detail):
            lost = _typed_in_removed(self.pane.detail, detail, entry.data)
            removal = self.pane.drop_form_for(detail)
            if removal is not None:
                await removal
        spent = self.work.came_back(task, entry)
        self.show(task, entry.data, seconds=spent)
        form = self.pane.form
        if form is not None:
            self.screen.call_after_refresh(form.show_problems, fields)
        self.pane.rules.message = (
            f"Task {task.id} came back: the server refused a value. Fix it and submit again."
        )
        if lost:
            self._say_queue_changed(task.id, lost)
        self.pane.show_status()

    # --- leaving -------------------------------------------------------------------------------------

    async def leave(self, *, send: bool = True) -> None:
        """Send what waits for the undo grace (unless not to `send`), and give back every claim held
        here, with what was typed on each kept (`WorkSession.release_keeping`), and say where."""
        if self.work.leaving:
            return
        draft = self.pane.entered()
        self.pane.set_ready(False)
        for kept in await self.work.leave(draft, send=send):
            self.say_kept(kept)

    def say_kept(self, kept: Kept) -> None:
        said, title = kept_words(kept)
        self.screen.app.notify(
            said, title=title, severity="warning" if kept.journal else "information", timeout=15
        )

    def escape(self) -> None:
        """`escape`: out of a text field (to the form), out of the options' filter, else back."""
        form, focused = self.pane.form, self.screen.focused
        if form is not None and self.pane.ready and form.leave_field():
            return
        if isinstance(focused, OptionsEditor) and focused.filtering:
            self.screen.run_worker(focused.close_filter(), exit_on_error=False)
            return
        self.pane.decide(lambda: self._run(self._leave_and_go(), "work-leave"))
        self.screen.hold_keys_while_leaving()  # the keys after escape: for the screen beneath

    async def _leave_and_go(self) -> None:
        await self.leave()
        self.screen.dismiss()

    # --- time ------------------------------------------------------------------------------------------

    def tick(self) -> None:
        self.count_time()
        self.pane.show_status()
        if self.work.tick():
            self.check_queue()
        if self.work.held_check_due and not self._renewing:
            # a flush, a lost claim, a refused key: seen within `HELD_CHECK_SECONDS`
            self._run(self._check_held, "work-held-check", exclusive=True)
        if self.work.count_due:
            self.recount()
        if self.screen.is_attached:
            self.work.timers.start("tick", 1.0, self.tick)

    def recount(self) -> None:
        """Count again what is left (`WorkSession.recount`: the reviews left, asked of the server)."""
        self._run(self._recount(), "review-count", exclusive=True)

    async def _recount(self) -> None:
        await self.work.recount()
        self.pane.show_status()

    def count_time(self) -> None:
        """Add the time since the last count to the task on screen: not while a modal covers the
        screen, and not past the moment the worker went idle."""
        self.work.time.count(self.screen.clock.now(), on_task=self.work.current is not None)

    def refuses_key(self, event: events.Key) -> bool:
        """Asked by the app for every key it reads, before routing it (`TaskPane.refuses_key`). Every
        key read counts as the worker's activity (`tab` too, which no field sees). Once the worker
        left (escape), the keys are the screen beneath's (`KeysInOrder.held_for_beneath`)."""
        if self.screen.held_for_beneath(event):
            return True
        self.worker_active()
        return self.pane.refuses_key(event)

    def worker_active(self) -> None:
        """A key was read (or a field changed): the worker is here."""
        now = self.screen.clock.now()
        was_idle = self.work.time.idle(now)
        self.count_time()  # the idle stretch before this key is not counted
        self.work.time.last_key_at = now
        if was_idle:
            self.pane.show_status()  # "idle" goes at once, not at the next tick
        if went := self.work.back():
            self.screen.notify(
                f"While you were away, the {'task' if went == 1 else f'{went} tasks'} claimed ahead for "
                "you went back to the queue for others to work on. The task on screen is still yours.",
                title="Welcome back",
                timeout=8,
            )
            self._prefetch()

    def suspended(self) -> None:
        self.count_time()
        self.work.time.paused = True

    def resumed(self) -> None:
        self.count_time()
        self.work.time.paused = False
        self.work.time.last_key_at = self.screen.clock.now()  # the key that closed the modal
        self.pane.show_status()

    # --- the queue changed by an admin ---------------------------------------------------------------

    def check_queue(self) -> None:
        # The method, not a coroutine: one cancelled before it started (a newer check) is never made.
        self._run(self._check_queue, "work-queue-check", exclusive=True)

    async def _check_queue(self) -> None:
        """Read the queue again; when its blocks changed, the form is made again for the task on
        screen once the keys typed so far have been handled (keeping what was typed)."""
        try:
            detail = await self.screen.session.client.queue(self.queue.id)
        except errors.QueueDeskError:
            return  # the next check, or the submit's answer, tells
        known = self.pane.detail
        self.work.consensus = detail.consensus is not None
        if known is not None and detail.description != known.description:
            self.instructions.update(detail.description)
        if known is None or _blocks(detail) == _blocks(known):
            if known is not None:
                self.pane.detail = detail
            return
        task = self.work.current
        self.screen.after_keys(lambda: self._rebuild_for(detail, task))

    def _rebuild_for(self, detail: QueueDetail, task: AssignedTask | None) -> None:
        if not self.pane.ready or task is None or self.work.current is not task or self.work.leaving:
            return  # a decision is under way: the check after the next task is shown applies it
        typed = self.pane.form.values() if self.pane.form is not None else {}
        lost = _typed_in_removed(self.pane.detail, detail, typed)
        self.pane.drop_form_for(detail)
        ids = {block.id for block in detail.data}
        self.count_time()
        self.show(task, {k: v for k, v in typed.items() if k in ids}, seconds=self.work.time.task_seconds)
        self._say_queue_changed(task.id, lost)

    def _say_queue_changed(self, task_id: int, lost: dict[str, Any]) -> None:
        self.screen.notify(queue_changed_words(task_id, lost), title="Queue changed", timeout=15)


def queue_changed_words(task_id: int, lost: dict[str, Any]) -> str:
    said = f"An admin changed this queue's fields: task {task_id} is shown with them."
    if lost:
        said += " Removed, with what you had typed there: " + "; ".join(
            f"{name}: {value!r}" for name, value in lost.items()
        )
    return said


def answers_waiting(answered: int, held: int) -> str:
    """Nothing to claim in a consensus queue (B21) where the worker's answers wait for others."""
    yours = "1 of your answers waits" if answered == 1 else f"{answered:,} of your answers wait"
    said = f"No task for you now: {yours} for other workers (or a reviewer), and a task you answered is not offered again."
    if held:
        said += f" {held:,} open {'task is' if held == 1 else 'tasks are'} being worked on by others."
    return said + " New tasks will show here as soon as they arrive."


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


def warm_images(screen: AppScreen, detail: QueueDetail | None, task: AssignedTask) -> None:
    """The task's images fetched ahead (into the cache), so they show at once."""
    if detail is None:
        return
    from queuedesk.tui.widgets.image_view import fetcher_for

    fetcher = fetcher_for(screen)
    for block in detail.data:
        value = task.data.get(block.id)
        if block.type == "image" and isinstance(value, str) and value:
            fetcher.prefetch(value)
