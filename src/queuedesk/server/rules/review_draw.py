"""Which completed tasks are drawn for review (B19): a fixed hash of the task id, so a test, a replay
or a second server process draws the same tasks."""

KNUTH = 2654435761  # Knuth's multiplicative hash constant: consecutive ids spread over the range


def drawn_for_review(task_id: int, percent: int) -> bool:
    """`(task id * 2654435761) mod 2^32 mod 100 < percent`."""
    return percent > 0 and (task_id * KNUTH) % (1 << 32) % 100 < percent
