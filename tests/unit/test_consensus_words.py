"""Consensus (B21) in words and checks, without a server: what settings mean, what is wrong with
settings asked for, and what the worker's screen says of an answer and of answers waiting."""

from datetime import UTC, datetime

from queuedesk.api.consensus_rules import Wanted, default_blocks, described, problems
from queuedesk.api.models import AssignedTask, Block, ConsensusSettings
from queuedesk.tui.panes.task_loop import answers_waiting
from queuedesk.tui.work.journal import Entry
from queuedesk.tui.work.task_rules import TaskRules, held_message
from queuedesk.tui.work.work_session import WorkSession

BLOCKS = [
    Block.model_validate({"id": "text", "name": "Text", "type": "text"}),
    Block.model_validate({"id": "kind", "name": "Kind", "type": "single_selection",
                          "single_selection": {"options": [{"id": "a", "name": "A"}]}}),
    Block.model_validate({"id": "fixed", "name": "Fixed", "type": "binary", "binary": {"read_only": True}}),
    Block.model_validate({"id": "urgent", "name": "Urgent", "type": "binary"}),
    Block.model_validate({"id": "size", "name": "Size", "type": "number"}),
]  # fmt: skip


def test_the_settings_are_said_as_a_quality_lead_would_say_them() -> None:
    two_then_three = ConsensusSettings(answers=2, max_answers=3, agreement=0.5, blocks=["kind", "urgent"])
    assert described(two_then_three, BLOCKS) == (
        "Each task is answered by 2 workers, a third when they disagree; a task the third cannot settle "
        "goes to review. They agree when, on each of Kind and Urgent, one value is given by at least "
        "half of the answers, and more than any other value."
    )
    exact = ConsensusSettings(answers=3, max_answers=3, agreement=1.0, blocks=["kind"])
    assert described(exact, BLOCKS) == (
        "Each task is answered by 3 workers; a task they do not agree on goes to review. They agree "
        "when one value of Kind is given by every answer."
    )
    wide = ConsensusSettings(answers=2, max_answers=5, agreement=0.75, blocks=["size"])
    assert "up to 5 while they disagree; a task 5 answers cannot settle" in described(wide, BLOCKS)
    assert "at least 75% of the answers" in described(wide, BLOCKS)
    assert described(None) == "No consensus: one answer completes a task."


def test_settings_asked_for_are_checked_against_the_queue() -> None:
    assert default_blocks(BLOCKS) == ["kind", "urgent"]  # selections and yes/no a worker fills
    assert problems(Wanted(2, 3, 0.5), BLOCKS) == []
    assert problems(Wanted(2, blocks=("size",)), BLOCKS) == []  # a number block when named
    found = problems(Wanted(11, 1, 0.4, ("text", "nope")), BLOCKS)
    assert found[0] == "answers must be 2-10, not 11"
    assert found[1].startswith("the maximum must be from the answers (11) to 10, not 1")
    assert found[2].startswith("agreement must be 0.5-1.0")
    assert "'text' is a text block: only single_selection" in found[3]
    assert "'nope' is no block of the queue (comparable: kind, fixed, urgent, size)" in found[4]
    only_text = BLOCKS[:1]
    assert problems(Wanted(2), only_text)[0].startswith("no block to compare")


def test_an_answer_left_collecting_is_recorded_not_done() -> None:
    rules = TaskRules(message=held_message(7))
    rules.outbox_said(7, None, "open")
    assert rules.message == "Task 7: answer recorded. It is done once enough workers agree."
    plain = TaskRules(message=held_message(8))
    plain.outbox_said(8, None, "completed")
    assert plain.message == "Task 8 sent."


def test_answers_waiting_are_never_an_empty_queue() -> None:
    assert answers_waiting(3, 0) == (
        "No task for you now: 3 of your answers wait for other workers (or a reviewer), and a task you "
        "answered is not offered again. New tasks will show here as soon as they arrive."
    )
    assert "1 of your answers waits" in answers_waiting(1, 2)
    assert "2 open tasks are being worked on by others" in answers_waiting(1, 2)


class Outcomes:
    """The outbox's part the session counts with: what the server made of each submission."""

    def __init__(self) -> None:
        self.held: dict[str, Entry] = {}
        self.told: dict[str, str] = {}

    def hold(self, entry: Entry) -> None:
        self.held[entry.id] = entry

    def undo(self, entry_id: str) -> Entry | None:
        return self.held.pop(entry_id, None)

    async def send_held_now(self, *, keep: str | None = None) -> None: ...

    def task_ids(self, queue_id: int) -> list[int]:
        return []

    def outcome(self, entry_id: str) -> str | None:
        return self.told.get(entry_id)


def _task(task_id: int) -> AssignedTask:
    return AssignedTask.model_validate({
        "id": task_id, "status": "in_progress", "created_at": "2026-12-07T10:00:00Z", "queue": "Q",
        "queue_id": 1, "data": {}, "source": "api", "assignment": {},
    })  # fmt: skip


def test_answers_recorded_and_done_are_counted_apart() -> None:
    now = datetime(2026, 12, 7, 10, tzinfo=UTC)
    outbox = Outcomes()
    work = WorkSession(None, 1, "Q", outbox, now)  # type: ignore[arg-type]  (no claims here)
    entries = [work.submit(_task(n), {"kind": "a"}, now) for n in (1, 2, 3)]
    assert (work.counts.done, work.settled()) == (3, 0)  # none told yet: all recorded
    outbox.told = {entries[0].id: "open", entries[1].id: "completed"}
    assert work.settled() == 1
    work.uncount(entries[1])  # refused after all (its outcome no longer counts)
    assert (work.counts.done, work.settled()) == (2, 0)
    outbox.told[entries[2].id] = "completed"
    assert work.settled() == 1


def test_a_collecting_task_says_how_far_its_answers_are() -> None:
    from queuedesk.api.models import QueueDetail
    from queuedesk.commands.task_view import answers_so_far

    detail = QueueDetail.model_validate({
        "id": 1, "name": "Q", "created_at": "2026-12-07T10:00:00Z", "n_tasks": 1,
        "consensus": {"answers": 2, "max_answers": 3, "agreement": 0.5, "blocks": ["kind"]},
    })  # fmt: skip
    assert answers_so_far(1, detail) == "1 of 2 answers"
    assert answers_so_far(2, detail) == "2 answers, they disagree: up to 3"
