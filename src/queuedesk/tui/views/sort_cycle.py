"""`s` in a table: the sort moves on to the next of its columns, and round again."""

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def next_sort(columns: Sequence[T], current: T) -> T:
    """The column after `current` (the first after the last; the first when `current` is none of them)."""
    if current not in columns:
        return columns[0]
    return columns[(list(columns).index(current) + 1) % len(columns)]
