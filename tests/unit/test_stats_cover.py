"""How stats read a period from rollups (server/store/stats_cover.py): the signed pieces count every
moment of the period once and nothing else, and what is read from the completions themselves is at
most half of the finest rollup's node at each end."""

from hypothesis import given
from hypothesis import strategies as st

from queuedesk.server.store.stats_cover import Nodes, Piece, Raw, cover
from tests.unit.strategies import PROPERTY

MINUTE, HOUR, DAY = 60, 3600, 86400
LEVELS = st.sampled_from([(MINUTE,), (HOUR, DAY), (MINUTE, HOUR, DAY), (10, 60)])


def times_counted(pieces: list[Piece], moment: int) -> int:
    counted = 0
    for piece in pieces:
        if isinstance(piece, Nodes):
            counted += piece.sign * (piece.first <= moment // piece.span < piece.last)
        else:
            counted += piece.sign * (piece.start <= moment < piece.end)
    return counted


@PROPERTY
@given(
    st.integers(0, 30 * DAY),
    st.integers(0, 10 * DAY),
    st.integers(-DAY, 2 * DAY),
    LEVELS,
    st.lists(st.integers(-2 * DAY, 12 * DAY), max_size=40),
)
def test_every_moment_of_the_period_counts_once_and_no_other(
    start: int, length: int, past_end: int, spans: tuple[int, ...], moments: list[int]
) -> None:
    end = start + length
    horizon = end + past_end
    pieces = cover(start, end, spans, horizon)
    edges = [start - 1, start, end - 1, end, *(start + m for m in moments)]
    for moment in edges:
        assert times_counted(pieces, moment) == (1 if start <= moment < end else 0), (moment, pieces)
    raw = [piece for piece in pieces if isinstance(piece, Raw)]
    assert len(raw) <= 2
    for piece in raw:  # read from the completions: at most half a finest node before the horizon
        assert min(piece.end, horizon) - piece.start <= spans[0] // 2 or piece.start >= horizon, piece


def test_seven_days_to_now_reads_whole_days_and_hours_and_at_most_half_an_hour() -> None:
    start = 1000 * DAY + 13 * HOUR + 1234
    now = start + 7 * DAY
    pieces = cover(start, now + 1, (HOUR, DAY), now + 1)
    assert sum(p.last - p.first for p in pieces if isinstance(p, Nodes) and p.span == DAY) <= 8
    assert sum(p.last - p.first for p in pieces if isinstance(p, Nodes) and p.span == HOUR) <= 12 + 24
    assert (
        sum(min(p.end, now + 1) - p.start for p in pieces if isinstance(p, Raw) and p.start <= now)
        <= HOUR // 2
    )
