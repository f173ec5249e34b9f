"""A task's values in one line: in the completed history, what the worker answered comes first."""

from datetime import UTC, datetime

from queuedesk.api.models import Block, Task
from queuedesk.tui.present import answers_first, summary, tasks

BLOCKS = [
    Block(id="text", name="Text", type="text"),
    Block(id="link", name="Link", type="link", link={"read_only": True}),
    Block(
        id="pick",
        name="Pick",
        type="single_selection",
        single_selection={"options": [{"id": "o6", "name": "Six"}]},
    ),
    Block(id="ok", name="OK", type="binary"),
]
TASK = Task.model_validate(
    {
        "id": 9,
        "status": "completed",
        "created_at": datetime(2026, 11, 23, tzinfo=UTC),
        "data": {"text": "Lorem ipsum dolor sit amet", "link": "http://x.test", "pick": "o6", "ok": True},
        "queue": "Q",
        "queue_id": 1,
        "source": "api",
    }
)


def test_decisions_come_first_and_read_only_blocks_last() -> None:
    assert [b.id for b in answers_first(BLOCKS)] == ["pick", "ok", "text", "link"]


def test_a_cut_row_still_shows_the_answers() -> None:
    assert summary(answers_first(BLOCKS), TASK, width=20) == "Six · Yes · Lorem i…"
    assert summary(BLOCKS, TASK, width=20).startswith("Lorem ipsum")


def test_a_count_of_tasks_reads_as_english() -> None:
    # The flush dialog said "1 tasks will be deleted" and the history "1 tasks, newest first".
    assert [tasks(n) for n in (0, 1, 2, 12_000)] == ["0 tasks", "1 task", "2 tasks", "12,000 tasks"]
