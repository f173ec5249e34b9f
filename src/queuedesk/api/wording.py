"""Counts and id ranges said as a person says them: "1 task", "3 tasks", "id 93", "ids 93-95"."""

from collections.abc import Sequence


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and the noun, singular for exactly one (thousands grouped: "1,200 rows")."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def id_span(ids: Sequence[int]) -> str:
    """The first and last of a run of ids: "id 93" for one, "ids 93-95" for more."""
    if len(ids) == 1:
        return f"id {ids[0]}"
    return f"ids {ids[0]}-{ids[-1]}"
