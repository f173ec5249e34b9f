"""The review screen's status line: the queue, the review on screen and its time, what was reviewed
in this session and the share accepted, the reviews left; below it the last thing said."""

from datetime import datetime

from textual.content import Content
from textual.widgets import Static

from queuedesk.tui.clock import duration
from queuedesk.tui.review.review_rules import verdict_said
from queuedesk.tui.review.review_session import ReviewSession
from queuedesk.tui.widgets.queue_table import fit
from queuedesk.tui.work.task_rules import TaskRules

# The queue's name gives way first when the line is wider than the screen: at least this much of it stays.
NAME_AT_LEAST = 12


class ReviewStatus(Static):
    def show(self, review: ReviewSession, now: datetime, *, unsent: int, rules: TaskRules) -> None:
        parts: list[str | Content] = []
        if review.current is not None:
            on_task = "idle" if review.time.idle(now) else duration(review.time.task_seconds)
            parts.append(f"task {review.current.id} · {on_task}")
        parts.append(f"reviewed {review.reviewed}")
        rate = review.accept_rate
        parts.append("accepted —" if rate is None else f"accepted {rate:.0%}")
        left = review.left
        parts.append("left …" if left is None else f"left {left}")
        if unsent:
            parts.append(Content.styled(f" {unsent} unsent ", "bold reverse"))
        tail = Content(" · ").join(parts)  # the queue's name and the message are never markup
        name = review.queue_name
        if width := self.size.width:  # 0 before the first layout: then in full
            name = fit(name, max(NAME_AT_LEAST, width - tail.cell_length - len(" / review · ")))
        line = Content(" · ").join([f"{name} / review", tail])
        if message := verdict_said(rules, review.last_verdict):
            line += f"\n{message}"
        self.update(line)
