"""Stored JSON text put into an answer as it is (an `orjson.Fragment`: never decoded, never encoded
again), also when a work process reads it: a Fragment cannot be pickled nor its text read back,
so there it is a stand-in that unpickles as the Fragment."""

from typing import Any

import orjson

_in_a_work_process = False


class _FragmentToBe:
    __slots__ = ("text",)

    def __init__(self, text: str | bytes) -> None:
        self.text = text

    def __reduce__(self) -> tuple[Any, tuple[str | bytes]]:
        return orjson.Fragment, (self.text,)


def working_in_a_work_process() -> None:
    global _in_a_work_process
    _in_a_work_process = True


def embedded(text: str | bytes) -> Any:
    """`text`, stored JSON, as a value that `orjson.dumps` writes out as it is."""
    return _FragmentToBe(text) if _in_a_work_process else orjson.Fragment(text)
