"""A median from a histogram of whole seconds is the median of the values it counts."""

from statistics import median

from hypothesis import given
from hypothesis import strategies as st

from queuedesk.server.store.stats import histogram_median
from tests.unit.strategies import PROPERTY


@PROPERTY
@given(st.lists(st.integers(min_value=0, max_value=100_000), min_size=1, max_size=200))
def test_the_histograms_median_is_the_values_median(values: list[int]) -> None:
    counts: dict[int, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    assert histogram_median(counts) == median(values)


def test_an_empty_histogram_has_no_median() -> None:
    assert histogram_median({}) is None
