"""`office bench soak` end to end at a toy size: one worker process, a warm-up, drained segments, the worker's RSS
and the store's rows per run per table (the real size runs as `office bench soak`, not here)."""

import pytest

from bench.soak import SoakPlan, run

pytestmark = pytest.mark.integration

TOY = SoakPlan(runs=40, warm_up=10, in_flight=5, hold_s=0.05, segments=2)


async def test_soak_reports_rss_and_constant_rows_per_run():
    result = await run(TOY)
    assert result["completed"] == 40 and result["failed"] == 0 and result["failed_warm_up"] == 0
    assert result["rss_fresh_mb"] > 0 and 0 < result["rss_start_mb"] <= result["rss_peak_mb"]
    assert len(result["rss_at_checkpoints_mb"]) == 1 + TOY.segments  # after the warm-up, then each segment
    # One happy turn per run: a registration, an attempt, a prompt and an answer, a run event; nothing else grows.
    rows = result["store_rows_per_run"]
    assert rows["office_runs"] == rows["attempts"] == 1.0 and rows["transcript_entries"] == 2.0
    assert result["store_tables_not_constant"] == []
    assert result["store_rows_warm_up"]["office_runs"] == TOY.warm_up
