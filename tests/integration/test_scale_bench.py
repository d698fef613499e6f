"""`office bench scale` end to end at a toy size: its own stack, worker processes, steady-state levels (plain, and
gated by ceilings that never bind) and the horizontal arm, reporting the figures its JSON promises (the real sizes
run in `make bench`, not here)."""

import pytest

from bench.scale import ScalePlan, run

pytestmark = pytest.mark.integration

TOY = ScalePlan(
    levels=(2, 4),
    arrival_per_s=4.0,  # holds of 0.5 s and 1 s
    window_s=2.0,
    worker_counts=(1,),
    horizontal_runs=8,
    horizontal_in_flight=4,
    horizontal_hold_s=0.2,
    bounded_agents=False,  # its own bench, with its own test
    gate_levels=(2, 4),
)


async def test_scale_bench_reports_every_level_of_both_arms_and_worker_count():
    result = await run(TOY)
    assert set(result["levels"]) == {"2", "4"}
    for in_flight, figures in result["levels"].items():
        assert figures["turn_hold_s"] == int(in_flight) / TOY.arrival_per_s
        assert figures["failed"] == 0 and figures["heartbeat_timeouts"] == 0 and figures["submit_errors"] == 0
        assert figures["runs_per_s"] > 0 and figures["rss_peak_mb"] > 0
        assert 0 <= figures["overhead_p50_s"] <= figures["overhead_p99_s"]
        assert figures["history_events_per_run"] > 0
    assert result["workers"]["1"]["runs_per_s"] > 0 and result["workers"]["1"]["scaling_efficiency"] == 1.0
    assert isinstance(result["flat_cost"], bool)
    assert "bounded_agents" in result
    # The gated arm: the same levels again, every run through its workspace's and its agent's gate.
    gated = result["gated"]
    assert gated["ceiling"] == TOY.gate_ceiling and set(gated["levels"]) == {"2", "4"}
    for in_flight, figures in gated["levels"].items():
        assert figures["failed"] == 0 and figures["submit_errors"] == 0
        # beside the plain arm: half the arrivals each, the level's hold, one window
        plain = result["levels"][in_flight]
        assert figures["arms_side_by_side"] == plain["arms_side_by_side"] == 2
        assert figures["arrival_per_s"] == plain["arrival_per_s"] == TOY.arrival_per_s / 2
        assert figures["turn_hold_s"] == plain["turn_hold_s"]
        assert figures["gate_executions"] == {"workspace": 1, "agent": 1}  # every run asked both gates
    for in_flight, pair in gated["side_by_side"].items():
        assert pair["overhead_p99_s_plain"] == result["levels"][in_flight]["overhead_p99_s"]
        assert pair["overhead_p99_s_gated"] == gated["levels"][in_flight]["overhead_p99_s"]
    assert isinstance(gated["flat_cost"], bool)
