"""The figures `office bench soak` reports are computed the way its JSON says."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.soak import growth, not_constant, segment_bounds, segment_rates, slope_per_1000, thinned


def test_growth_is_relative_to_the_start():
    assert growth(200.0, 220.0) == pytest.approx(0.10)
    assert growth(200.0, 190.0) == pytest.approx(-0.05)


def test_a_leak_shows_as_a_slope_and_a_flat_series_as_none():
    leaking = [(runs, 150.0 + 0.002 * runs) for runs in range(0, 10_001, 500)]  # 2 MB per 1,000 runs
    assert slope_per_1000(leaking) == pytest.approx(2.0)
    assert slope_per_1000([(runs, 150.0 + (runs % 2)) for runs in range(0, 10_001, 500)]) == pytest.approx(0, abs=0.1)
    assert slope_per_1000([(0, 150.0), (0, 160.0)]) == 0.0  # no runs between: no slope


def test_rows_per_run_per_segment_and_the_tables_that_grow_otherwise():
    counts = [
        (0, {"attempts": 500, "provider_health": 1, "leaky": 0}),
        (1000, {"attempts": 1500, "provider_health": 1, "leaky": 100}),
        (3000, {"attempts": 3500, "provider_health": 1, "leaky": 1000}),
    ]
    rates = segment_rates(counts)
    assert rates == {"attempts": [1.0, 1.0], "provider_health": [0.0, 0.0], "leaky": [0.1, 0.45]}
    assert not_constant(rates) == ["leaky"]


def test_a_table_that_appears_midway_counts_from_zero():
    assert segment_rates([(0, {}), (10, {"new": 5})]) == {"new": [0.5]}


@given(st.integers(0, 10_000), st.integers(1, 20_000), st.integers(1, 50))
def test_segments_cover_the_runs_once_in_order(first, runs, segments):
    bounds = segment_bounds(first, runs, segments)
    assert [i for r in bounds for i in r] == list(range(first, first + runs))
    assert len(bounds) == min(segments, runs)


@given(st.lists(st.integers(), min_size=1, max_size=500), st.integers(2, 50))
def test_thinning_keeps_the_ends_and_at_most_keep(samples, keep):
    kept = thinned(samples, keep)
    assert len(kept) == min(len(samples), keep)
    assert kept[0] == samples[0] and kept[-1] == samples[-1]
