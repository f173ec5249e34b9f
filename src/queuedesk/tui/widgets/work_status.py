"""The work screen's status line: the queue, the task on screen and its time, the session's counts,
what waits to be sent; below it the last thing said (a submission held, a key refused)."""

from datetime import datetime

from textual.content import Content
from textual.widgets import Static

from queuedesk.tui.clock import duration
from queuedesk.tui.work.task_rules import TaskRules
from queuedesk.tui.work.work_session import WorkSession


class WorkStatus(Static):
    def show(self, work: WorkSession, now: datetime, *, unsent: int, rules: TaskRules) -> None:
        parts: list[str | Content] = [work.queue_name]
        if work.current is not None:
            on_task = "idle" if work.time.idle(now) else duration(work.time.task_seconds)
            parts.append(f"task {work.current.id} · {on_task}")
        done = work.counts.done
        if work.consensus:  # an answer given is recorded; done only once the workers agreed (B21)
            settled = work.settled()
            parts.append(
                f"answers recorded {done - settled} · done {settled} · skipped {work.counts.skipped}"
            )
        else:
            parts.append(f"done {done} · skipped {work.counts.skipped}")
        if done:
            parts.append(f"avg {work.time.seconds_done / done:.1f} s")
            elapsed = (now - work.time.started_at).total_seconds()
            if elapsed >= 60:
                parts.append(f"{done / (max(elapsed, 1) / 3600):,.0f}/h")
        if work.open_left is not None:
            # In a consensus queue the open tasks include those answered here, waiting for others.
            left = "open in the queue" if work.consensus else "more in the queue"
            parts.append(f"{work.open_left:,} {left}")
        if unsent:
            parts.append(Content.styled(f" {unsent} unsent ", "bold reverse"))
        if rules.submit_on_choice:
            parts.append("submit on choice")
        line = Content(" · ").join(parts)  # the queue's name and the message are never markup
        if message := rules.said():
            line += f"\n{message}"
        self.update(line)
