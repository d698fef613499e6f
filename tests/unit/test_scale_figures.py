"""The figures `office bench scale` reports are computed the way its JSON says."""

import math

import pytest

from bench.scale import (
    PLAN,
    WORKER_SIZING,
    combined_overheads,
    flat_cost,
    hold_for,
    overheads,
    percentile,
    scaling_efficiency,
)
from office.settings import WorkerSizing


def test_percentiles_are_values_that_were_measured():
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([0.3, 0.1, 0.2], 99) == 0.3  # unordered input, few values: the largest
    assert math.isnan(percentile([], 99))


def test_overhead_is_wall_time_minus_the_providers_hold():
    assert overheads([10.25, 10.5], provider_s=10.0) == [0.25, 0.5]


def test_a_runs_overhead_is_its_part_before_the_call_plus_its_part_after():
    before, after = [0.125, 0.25], [0.0625, 0.5]
    combined = sorted(combined_overheads(before, after))
    assert combined == pytest.approx([0.1875, 0.3125, 0.625, 0.75])  # every start with every end
    assert percentile(combined, 100) == 0.75  # the worst start with the worst end


def test_littles_law_sets_the_hold_that_keeps_n_in_flight():
    assert hold_for(1000, arrival_per_s=10) == 100.0
    assert hold_for(10, arrival_per_s=10) == 1.0


def test_scaling_efficiency_is_one_for_linear_and_falls_when_workers_share_the_cores():
    assert scaling_efficiency({1: 10.0, 2: 20.0, 4: 40.0}) == {1: 1.0, 2: 1.0, 4: 1.0}
    assert scaling_efficiency({1: 12.0, 2: 12.0, 4: 12.0}) == {1: 1.0, 2: 0.5, 4: 0.25}


def test_flat_cost_compares_the_largest_levels_p99_with_the_smallest():
    levels = {"10": {"overhead_p99_s": 0.3}, "100": {"overhead_p99_s": 5.0}, "1000": {"overhead_p99_s": 0.6}}
    assert flat_cost(levels)  # 0.6 <= 2 x 0.3; the middle level does not enter the rule
    levels["1000"]["overhead_p99_s"] = 0.61
    assert not flat_cost(levels)


def test_a_default_worker_has_turn_slots_to_spare_at_the_largest_level():
    # As many slots as turns in flight would make each run's turn wait for the slot of the run a hold before it.
    assert WorkerSizing() == WORKER_SIZING  # the bench measures the defaults
    assert WORKER_SIZING.max_concurrent_activities >= 2 * max(PLAN.levels)
    assert WORKER_SIZING.max_cached_workflows >= 2 * max(PLAN.levels)
