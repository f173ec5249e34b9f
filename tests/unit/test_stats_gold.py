"""The Stats tab's gold accuracy (B22) without a screen: each worker's cells, the order `s` gives
them, and the queue's share in the summary."""

from datetime import UTC, datetime

from queuedesk.api.models import QueueStats, WorkerStats
from queuedesk.tui.panes.stats_view import GOLD_COLUMNS, WORKER_SORTS, _cells, _summary, has_gold
from queuedesk.tui.views.periods import DEFAULT_PERIOD, PERIODS

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


def worker(name: str, answered: int, correct: int) -> WorkerStats:
    return WorkerStats(
        email=f"{name}@example.com", name=name, completed=3, gold_answered=answered, gold_correct=correct
    )


def stats(*workers: WorkerStats) -> QueueStats:
    return QueueStats(
        since=NOW, bucket_minutes=15, pending=4, in_progress=1, completed=[3], by_worker=list(workers)
    )


def test_each_worker_correct_of_answered_and_the_share_or_a_dash() -> None:
    cells = _cells(worker("ada", 10, 8), NOW)
    assert (cells["gold_answered"], cells["gold"]) == ("8/10", "80%")
    cells = _cells(worker("bob", 0, 0), NOW)
    assert (cells["gold_answered"], cells["gold"]) == ("—", "—")
    assert [key for key, _ in GOLD_COLUMNS] == ["gold_answered", "gold"]


def test_sorted_by_accuracy_best_first_those_without_gold_last() -> None:
    workers = [worker("cy", 0, 0), worker("bob", 4, 1), worker("ada", 10, 8), worker("dee", 5, 4)]
    key, mark = WORKER_SORTS["gold"]
    assert [w.name for w in sorted(workers, key=key)] == ["ada", "dee", "bob", "cy"]
    assert mark == "▼"


def test_the_summary_says_the_queues_share_only_when_gold_was_answered() -> None:
    period = PERIODS[DEFAULT_PERIOD]
    without = stats(worker("cy", 0, 0))
    assert not has_gold(without) and "gold" not in _summary(without, [3], period).plain
    held = stats(worker("ada", 10, 8), worker("bob", 10, 5), worker("cy", 0, 0))
    assert has_gold(held) and " · gold 65% correct of 20" in _summary(held, [3], period).plain
