"""The lines above the review's form: who did the task and how long it took (or that its answers did
not agree, B21), what the keys do now, the note written, each answer changed; on a disputed task,
its answers side by side below them (`widgets/answers_table.py`)."""

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from queuedesk.api.models import AssignedTask, Block
from queuedesk.tui.clock import Clock, duration
from queuedesk.tui.present import short_time
from queuedesk.tui.review import review_rules as said
from queuedesk.tui.review.review_session import ReviewSession, dispute_of
from queuedesk.tui.widgets.answers_table import answers_table


class ReviewMeta(Static):
    def show(
        self,
        review: ReviewSession,
        task: AssignedTask,
        blocks: list[Block],
        values: dict[str, object],
        *,
        editing: bool,
        in_a_field: bool,
        clock: Clock,
    ) -> None:
        done, dispute = review.work_done(task), dispute_of(task)
        took = "" if done.seconds is None else f" in {duration(done.seconds)}"
        line = f"Task {task.id} · done by {done.by}{took} · completed {short_time(task.completed_at, clock)}"
        if dispute is not None:
            line = f"Task {task.id} · disputed: its {len(dispute.answers)} answers did not agree"
        text = said.details(
            line,
            editing=editing,
            in_a_field=in_a_field,
            note=review.notes.get(task.id),
            blocks=blocks,
            values=dict(values),
            original=review.starting_values(task),
            answers=0 if dispute is None else len(dispute.answers),
        )
        shown: RenderableType = Text(text)
        if dispute is not None:
            shown = Group(Text(text), answers_table(blocks, dispute, keys=True))
        self.set_class(dispute is not None, "-dispute")
        self.update(shown)
