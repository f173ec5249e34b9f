"""The keys the queue list and a queue's own screen both give for the queue at hand (the chosen row,
or the queue shown). Each opens another screen, so each is a priority binding: the screen opens as
the key is read, and the keys typed after it go there (`opens_a_screen` in `tui/base.py`)."""

from textual.binding import Binding, BindingType


def keys_for_a_queue(scope: str) -> list[BindingType]:
    """Work, review, a new task and flush, with the binding ids `<scope>.work` and so on."""
    return [
        Binding("w", "work", "Work", id=f"{scope}.work", priority=True),
        Binding("w", "no_claiming", show=False, priority=True),  # a basic server: says why, never shown
        Binding("v", "review", "Review", id=f"{scope}.review", priority=True),
        Binding("v", "no_review", show=False, priority=True),  # no review here: says why, never shown
        Binding("n", "create", "New task", id=f"{scope}.create", priority=True),
        Binding("F", "flush", "Flush", id=f"{scope}.flush", priority=True),
    ]
