"""How a period is read from rollups: whole nodes of the coarsest level that fits, the ends from finer
levels, and what no level covers from the completions themselves (`Raw`).

An end that fills more than half of its node is read as the node minus the rest of it, so an end
costs at most half a node at each level. Nothing is completed after the horizon (now), so the part
of a node past it costs nothing to take off.
"""

from typing import NamedTuple


class Nodes(NamedTuple):
    """Nodes `first` to `last - 1` of the level of `span` microseconds, counted `sign` times."""

    span: int
    first: int
    last: int
    sign: int


class Raw(NamedTuple):
    """The completions in [`start`, `end`) microseconds, counted `sign` times."""

    start: int
    end: int
    sign: int


Piece = Nodes | Raw


def cover(start: int, end: int, spans: tuple[int, ...], horizon: int, sign: int = 1) -> list[Piece]:
    """Pieces whose signed sum is what [start, end) holds; `spans` finest first, each a multiple of
    the one before."""
    if start >= end:
        return []
    if not spans:
        return [Raw(start, end, sign)]
    span = spans[-1]
    first, last = -(-start // span), end // span
    if first < last:
        return [
            Nodes(span, first, last, sign),
            *_within(start, first * span, spans, horizon, sign),
            *_within(last * span, end, spans, horizon, sign),
        ]
    if first == last:  # the range crosses one boundary between two nodes (or starts on it)
        boundary = first * span
        return _within(start, boundary, spans, horizon, sign) + _within(boundary, end, spans, horizon, sign)
    return _within(start, end, spans, horizon, sign)


def _cost(start: int, end: int, horizon: int) -> int:
    return max(0, min(end, horizon) - start)


def _within(start: int, end: int, spans: tuple[int, ...], horizon: int, sign: int) -> list[Piece]:
    """[start, end) inside one node of the coarsest level: read with the finer levels, or as the
    node minus what it holds around the range, whichever reads less."""
    if start >= end:
        return []
    span, finer = spans[-1], spans[:-1]
    node = start // span
    low, high = node * span, (node + 1) * span
    if _cost(low, start, horizon) + _cost(end, high, horizon) < _cost(start, end, horizon):
        return [
            Nodes(span, node, node + 1, sign),
            *cover(low, start, finer, horizon, -sign),
            *cover(end, high, finer, horizon, -sign),
        ]
    return cover(start, end, finer, horizon, sign)
